import type { Command } from 'commander';
import { CliError } from '../errors.js';
import { ALLOW_UNKNOWN_KEYS, allowUnknownKeys, type CommandRunner, type GlobalFlags } from './globals.js';
import { context, projectConfig } from './context.js';
import type { Output } from './output.js';

interface TestFlags {
  reporter?: string;
  reportFile?: string;
  coverage?: boolean;
  minCoverage?: string;
  allowWrites?: boolean;
  cache?: boolean;
}
const NO_CACHE = ['--no-cache', "run the project's migrations (and build a role's schema) rather than load them from the machine's cache (nor save them)"] as const;

/** With `--reporter junit`, `--output FILE` names the report (issue 33); `-o text|json` keeps its global meaning. */
export function junitFileOf(g: GlobalFlags, flags: TestFlags): string | undefined {
  if (flags.reportFile) return flags.reportFile;
  return flags.reporter === 'junit' && g.output !== undefined && g.output !== 'text' && g.output !== 'json' ? g.output : undefined;
}

/** The project's sources for an ephemeral engine: config, built metadata (problems shown), variables. */
async function sources(g: GlobalFlags, out: Output, cmd: Command, preload = true) {
  const config = await projectConfig(g, out, { project: true, version2: true, offline: true });
  const { buildOrFail } = await import('./metadata.js');
  const built = await buildOrFail(out, config.metadataDirectory, config.version, allowUnknownKeys(cmd));
  // PostgreSQL's start-up runs enough WebAssembly to set off optimising compiles (setWasmTiering).
  (await import('../db/pglite-prestart.js')).setWasmTiering();
  if (preload) void import('../db/pglite-preload.js').then((m) => m.preloadPglite());
  return {
    config,
    sources: {
      projectDir: config.projectDir as string, migrationsDirectory: config.migrationsDirectory, built, variable: config.variable.bind(config), logger: out.logger,
      ...(cmd.opts<{ cache?: boolean }>().cache === false ? { cacheDir: null } : {}),
    },
  };
}

/** `engine test [PATHS…]` (issue 33 points 1–3). */
export function registerTest(program: Command, run: CommandRunner): void {
  const cmd = program.command('test').argument('[paths...]', 'test files or directories (default tests/)')
    .description('run the permission test cases of tests/**/*.test.yaml on an ephemeral engine, or on the engine of the global endpoint flag')
    .option('--reporter <name>', 'text (default) or junit: JUnit XML written to the file the output flag names (see Examples) or --report-file')
    .option('--report-file <file>', 'write the JUnit XML report to this file')
    .option('--allow-writes', 'on a running engine (endpoint flag): also run the cases that write (seeds, mutations); their changes stay')
    .option('--coverage', 'print the role × table × operation matrix of the permissions the cases exercised')
    .option('--min-coverage <percent>', 'fail (exit 1) when the permission coverage is below this percentage')
    .option(...NO_CACHE)
    .option(...ALLOW_UNKNOWN_KEYS);
  run(cmd, async (g, out) => {
    const flags = cmd.opts<TestFlags>();
    if (flags.reporter !== undefined && flags.reporter !== 'text' && flags.reporter !== 'junit') {
      throw new CliError('invalid-flag-value', `invalid value "${flags.reporter}" for --reporter: expected text or junit`, 64);
    }
    const min = flags.minCoverage === undefined ? undefined : Number(flags.minCoverage);
    if (min !== undefined && !(Number.isFinite(min) && min >= 0 && min <= 100)) {
      throw new CliError('invalid-flag-value', `invalid value "${flags.minCoverage}" for --min-coverage: expected a percentage from 0 to 100`, 64);
    }
    const junitFile = junitFileOf(g, flags);
    if (flags.reporter === 'junit' && !junitFile) throw new CliError('missing-argument', '--reporter junit needs --output FILE (or --report-file FILE)', 64);
    const lib = await import('../project/test/index.js');
    const { sources: src } = await sources(g, out, cmd);
    const files = lib.loadTestFiles(lib.findTestFiles(src.projectDir, cmd.args));
    const remote = g.endpoint ? await context(g, out, { project: true, version2: true }) : undefined;
    const text = out.mode === 'text';
    const r = await lib.runTests({
      sources: src, files, logger: out.logger, allowWrites: !!flags.allowWrites,
      ...(remote ? { endpoint: { url: remote.client.endpoint, client: remote.client, ...(remote.config.adminSecret ? { adminSecret: remote.config.adminSecret } : {}) } } : {}),
      onResult: (res) => {
        if (!text) return;
        out.data(lib.caseLine(res));
        if (res.status === 'failed') out.diffData(lib.failureDetails(res).join('\n'));
      },
    });
    if (junitFile) {
      const { writeFileSync } = await import('node:fs');
      writeFileSync(junitFile, lib.junitReport(r.results, r.summary));
    }
    const covFail = min !== undefined && r.coverage.percent < min;
    if (text) {
      out.data(lib.summaryLine(r.summary));
      if (flags.coverage || min !== undefined) out.data(lib.renderCoverage(r.coverage).join('\n'));
      if (covFail) out.logger.error(`permission coverage ${r.coverage.percent}% is below --min-coverage ${min}%`);
    } else {
      out.json({
        ok: r.summary.failed === 0 && !covFail, summary: { ...r.summary, ms: Math.round(r.summary.ms) }, cases: r.results.map(lib.resultJson),
        ...(flags.coverage || min !== undefined ? { coverage: r.coverage } : {}), warnings: [],
      });
    }
    return r.summary.failed > 0 || covFail ? 1 : 0;
  });
}

/** `engine db reset` (issue 33 point 5): the embedded dev database rebuilt from migrations, metadata and seeds. */
export function registerDb(program: Command, run: CommandRunner): void {
  const db = program.command('db').description('the embedded dev database of `engine serve`');
  const reset = db.command('reset').description('drop the embedded dev database and build it again from migrations, metadata and seeds')
    .option('--data-dir <dir>', 'data directory of the embedded PostgreSQL (default .engine/data, env ENGINE_GRAPHQL_DATA_DIR)')
    .option('-y, --yes', 'do not ask for confirmation')
    .option(...ALLOW_UNKNOWN_KEYS);
  run(reset, async (g, out) => {
    const f = reset.opts<{ dataDir?: string; yes?: boolean }>();
    const { config, sources: src } = await sources(g, out, reset);
    const shown = f.dataDir ?? config.variable('ENGINE_GRAPHQL_DATA_DIR') ?? '.engine/data';
    if (!f.yes) {
      if (!out.interactive) throw new CliError('confirmation-required', `refusing to reset ${shown} without confirmation; pass --yes`, 64);
      const { confirmPrompt } = await import('./prompts.js');
      if (!(await confirmPrompt(`This deletes every row of the dev database in ${shown}. Continue?`))) throw new CliError('aborted', 'Aborted; nothing was changed.', 1);
    }
    const { resolve } = await import('node:path');
    const { resetDataDir } = await import('../project/test/reset.js');
    out.logger.info(`Resetting ${shown}: migrations, metadata, seeds…`);
    const r = await resetDataDir(resolve(shown), shown, src);
    out.logger.info(`Reset ${shown}${r.removed ? '' : ' (it did not exist)'}.`);
    out.success({ data_dir: shown, removed: r.removed });
  });
}

/** `engine metadata schema --role R | --all-roles --output-dir D` (issue 33 point 4): offline, on an ephemeral engine. */
export function registerMetadataSchema(metadata: Command, run: CommandRunner): void {
  const cmd = metadata.command('schema').description("print a role's GraphQL schema (SDL), offline, from the project's migrations and metadata")
    .option('--role <role>', 'the role whose schema is printed')
    .option('--session-var <name=value>', 'a session variable of the role (repeatable)', (v: string, p: string[]) => [...p, v], [] as string[])
    .option('--all-roles', "every role of the metadata, one <role>.graphql file each (with --output-dir)")
    .option('--output-dir <dir>', 'where --all-roles writes its files')
    .option(...NO_CACHE)
    .option(...ALLOW_UNKNOWN_KEYS);
  run(cmd, async (g, out) => {
    const f = cmd.opts<{ role?: string; sessionVar: string[]; allRoles?: boolean; outputDir?: string }>();
    if (!f.role === !f.allRoles) throw new CliError('missing-argument', 'give --role ROLE or --all-roles --output-dir DIR', 64);
    if (f.allRoles && !f.outputDir) throw new CliError('missing-argument', '--all-roles needs --output-dir DIR', 64);
    // Checked, not used: a role's schema is built from its permissions alone (their filters read session variables
    // when a request runs, never what the schema holds), so no value changes the SDL.
    for (const kv of f.sessionVar) {
      if (kv.indexOf('=') <= 0) throw new CliError('invalid-flag-value', `invalid value "${kv}" for --session-var: expected NAME=VALUE`, 64);
    }
    const lib = await import('../project/test/index.js');
    // PGlite's files are read when an engine starts: a warm run (its SDL cached) starts none.
    const { sources: src } = await sources(g, out, cmd, false);
    const roles = f.role ? [f.role] : lib.metadataRoles(src.built.document);
    const sdl = await lib.roleSchemas(src, roles);
    if (f.role) {
      const one = sdl.get(f.role) as string;
      if (out.mode === 'json') out.success({ role: f.role, sdl: one });
      else out.data(one);
      return;
    }
    const { mkdirSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const dir = f.outputDir as string;
    mkdirSync(dir, { recursive: true });
    const written: string[] = [];
    for (const [role, text] of sdl) {
      const file = join(dir, lib.roleFileName(role));
      writeFileSync(file, text);
      written.push(file);
      out.logger.info(`Wrote ${file}`);
    }
    if (out.mode === 'json') out.success({ files: written });
    else out.data(written.join('\n'));
  });
}
