import type { Command } from 'commander';
import { CliError, EngineError } from '../errors.js';
import { ALLOW_UNKNOWN_KEYS, allowUnknownKeys, type CommandRunner } from './globals.js';
import { projectConfig } from './context.js';
import type { Output } from './output.js';
import { untilStopped } from './until-stopped.js';
import type { DevEvent } from '../project/dev/watch.js';

interface DevFlags {
  port?: string;
  host?: string;
  dataDir?: string;
  tests: boolean;
}

/** `engine dev` (issue 33 point 5): the project served on the embedded engine, its folders watched. */
export function registerDev(program: Command, run: CommandRunner): void {
  const cmd = program.command('dev')
    .description('serve the project on the embedded engine and bring each change of migrations/, metadata/ and tests/ to it')
    .option('--port <port>', 'TCP port, 0 picks a free one (default 8080, env ENGINE_GRAPHQL_SERVER_PORT)')
    .option('--host <host>', 'interface to listen on (default 127.0.0.1, env ENGINE_GRAPHQL_SERVER_HOST)')
    .option('--data-dir <dir>', 'data directory of the embedded PostgreSQL (default .engine/data, env ENGINE_GRAPHQL_DATA_DIR)')
    .option('--no-tests', 'do not run the test cases of tests/ after each change')
    .option(...ALLOW_UNKNOWN_KEYS);
  run(cmd, async (g, out) => {
    const flags = cmd.opts<DevFlags>();
    const config = await projectConfig(g, out, { project: true, version2: true, offline: true });
    const [{ loadEnvironment }, { resolveServeSettings }, { buildMetadata, layoutOf }, { EngineClient }, { DevWatcher }, { seedsDirectory }, { join }, { VERSION }] = await Promise.all([
      import('../project/config/environment.js'), import('../project/config/serve-settings.js'), import('../project/metadata-dir/build.js'),
      import('../client/engine-client.js'), import('../project/dev/watch.js'), import('../project/migrations/seeds.js'), import('node:path'), import('../version.js'),
    ]);
    const env = loadEnvironment({ project: g.project, envfile: g.envfile });
    const settings = resolveServeSettings({ ...(flags.port ? { port: flags.port } : {}), ...(flags.host ? { host: flags.host } : {}), ...(flags.dataDir ? { dataDir: flags.dataDir } : {}), adminSecret: g.adminSecret }, env);
    if (settings.databaseUrl) throw new CliError('invalid-flag-value', 'engine dev runs on the embedded database; unset ENGINE_GRAPHQL_DATABASE_URL or use engine serve', 64);
    // The database's thread and PGlite's compile start while the engine's modules load (as serve's).
    void import('../db/pglite-prestart.js').then((m) => m.prestartPgliteWorker(settings.dataDir));
    const logger = out.logger;
    logger.info(`Starting embedded PostgreSQL in ${settings.dataDir}…`);
    const { startServer } = await import('../server/index.js');
    const { existsSync } = await import('node:fs');
    const freshDatabase = settings.dataDir === undefined || !existsSync(settings.dataDir);
    const server = await startServer({ ...settings, logger, variable: env.variable });
    const client = new EngineClient({ endpoint: server.url, ...(settings.adminSecret ? { adminSecret: settings.adminSecret } : {}), timeoutSeconds: 60, logger, version: VERSION, retryDelaysMs: [] });
    const projectDir = config.projectDir as string;
    const allowUnknown = allowUnknownKeys(cmd);
    const watcher = new DevWatcher({
      projectDir,
      migrationsDirectory: config.migrationsDirectory,
      metadataDirectory: config.metadataDirectory,
      seedsDirectory: seedsDirectory(projectDir),
      testsDirectory: join(projectDir, 'tests'),
      build: () => buildMetadata(config.metadataDirectory, process.cwd(), layoutOf(config.version), { allowUnknownKeys: allowUnknown }),
      client,
      sources: (built) => ({ projectDir, migrationsDirectory: config.migrationsDirectory, built, variable: config.variable.bind(config), logger }),
      tests: flags.tests,
      freshDatabase,
      onEvent: (e) => void report(out, e),
    });
    out.data(`Engine listening on ${server.url}`);
    await watcher.start();
    logger.info('Watching migrations/, metadata/, seeds/ and tests/ (Ctrl-C stops)');
    return untilStopped(out, logger, async () => {
      await watcher.close();
      await client.close();
      await server.close();
    });
  });
}

/** One event of the watch on the terminal: problems at file:line:col as `metadata validate` prints them. */
async function report(out: Output, e: DevEvent): Promise<void> {
  const logger = out.logger;
  switch (e.kind) {
    case 'migrations-applied':
      logger.info(`Applied migration(s) ${e.versions.join(', ')}`);
      return;
    case 'migration-changed':
      out.warn('migration-changed', `migration ${e.version}_${e.name} was applied and its up.sql changed: the dev database no longer matches it; run 'engine db reset' to build it again`);
      return;
    case 'metadata-invalid': {
      const { printProblems } = await import('./metadata.js');
      printProblems(out, e.problems);
      logger.error('The metadata has errors; the engine keeps the last good metadata.');
      return;
    }
    case 'metadata-applied':
      if (e.warnings.length > 0) (await import('./metadata.js')).printProblems(out, e.warnings);
      if (e.changed) logger.info('Metadata applied.');
      return;
    case 'metadata-rejected': {
      const { rejected } = await import('./metadata.js');
      const { ApplyRejectedError } = await import('../project/metadata-dir/apply.js');
      if (e.error instanceof ApplyRejectedError) rejected(out, e.error, e.built);
      else logger.error(e.error.message);
      logger.error('The engine keeps the last good metadata.');
      return;
    }
    case 'seeds-applied':
      logger.info(`Applied ${e.files} seed file(s) to the new database.`);
      return;
    case 'seeds-changed':
      logger.info("Seed files changed: they run on a new database ('engine db reset').");
      return;
    case 'tests': {
      const lib = await import('../project/test/index.js');
      for (const r of e.run.results) {
        out.data(lib.caseLine(r));
        if (r.status === 'failed') out.diffData(lib.failureDetails(r).join('\n'));
      }
      out.data(lib.summaryLine(e.run.summary));
      return;
    }
    case 'failed':
      // A located failure (a migration's SQL at file:line:col with its line and caret, a test file's problem) is
      // printed as the command's own errors are; the watch goes on.
      if (e.error instanceof EngineError && out.mode === 'text') out.fail(e.error);
      else logger.error(`${e.step}: ${e.error instanceof Error ? e.error.message : String(e.error)}`);
      if (e.step === 'migrations') logger.error('The migrations are tried again at the next change.');
  }
}
