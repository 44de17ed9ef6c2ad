import type { Command } from 'commander';
import { CliError, EngineError } from '../errors.js';
import type { CommandRunner } from './globals.js';
import { upgradeOptions } from './config-upgrade.js';
import { context, projectConfig } from './context.js';
import { registerMigrateMore, versionFlag } from './migrate-more.js';

/** The configuration and, for commands that talk to the engine, a client (as in metadata.ts). */
const invalidFlag = (flag: string, value: string, reason: string) =>
  new CliError('invalid-flag-value', `invalid value "${value}" for --${flag}: ${reason}`, 64);

function positive(flag: string, value: string, extra = ''): number {
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw invalidFlag(flag, value, `expected an integer ≥ 1${extra}`);
  return n;
}

interface ApplyFlags {
  goto?: string;
  skipExecution?: boolean;
  up?: string;
  down?: string;
  version?: string;
  type?: string;
  dryRun?: boolean;
}

/** The selection of `migrate apply` (cli.md §5.14); every usage error exits 64 before the project is read. */
async function selection(f: ApplyFlags): Promise<import('../project/migrations/migrations.js').Selection> {
  const others = [f.up !== undefined && '--up', f.down !== undefined && '--down', f.version !== undefined && '--version'].filter((x): x is string => !!x);
  if (f.goto !== undefined && others.length > 0) throw new CliError('conflicting-flags', `--goto and ${others[0]} cannot be used together`, 64);
  if (others.length > 1) throw new CliError('conflicting-flags', '--up, --down and --version cannot be combined', 64);
  if (f.type !== undefined && f.version === undefined) throw new CliError('conflicting-flags', '--type can only be used with --version', 64);
  if (f.up !== undefined) return { kind: 'up', count: f.up === 'all' ? null : positive('up', f.up) };
  if (f.goto !== undefined) return { kind: 'goto', version: await versionFlag('goto', f.goto) };
  if (f.down !== undefined) return { kind: 'down', count: f.down === 'all' ? 'all' : positive('down', f.down, ' or "all"') };
  if (f.version !== undefined) {
    const version = await versionFlag('version', f.version);
    const type = f.type ?? 'up';
    if (type !== 'up' && type !== 'down') throw invalidFlag('type', type, 'expected one of up, down');
    return { kind: 'version', version, direction: type };
  }
  return { kind: 'up', count: null };
}

export function registerMigrate(program: Command, run: CommandRunner): void {
  const migrate = program.command('migrate').description('create and apply SQL migrations');

  const create = migrate.command('create').argument('<name>', 'migration name (letters, digits, "_" and "-")')
    .description('create a migration directory with up.sql and down.sql')
    .option('--sql-from-file <file>', 'content of up.sql ("-" reads stdin)')
    .option('--up-sql <sql>', 'content of up.sql').option('--down-sql <sql>', 'content of down.sql')
    .option('--from-server', "the engine's current schema (pg_dump on the engine's side) as up.sql")
    .option('--schema <schema>', 'with --from-server: a schema to dump (repeatable; default public)', (v: string, p: string[]) => [...p, v], [] as string[]);
  run(create, async (g, out) => {
    const name = create.args[0] as string;
    const o = create.opts<{ sqlFromFile?: string; upSql?: string; downSql?: string; fromServer?: boolean; schema: string[] }>();
    const sources = [o.sqlFromFile !== undefined && '--sql-from-file', o.upSql !== undefined && '--up-sql', o.fromServer && '--from-server'].filter((x): x is string => !!x);
    if (sources.length > 1) throw new CliError('conflicting-flags', `${sources[0]} and ${sources[1]} cannot be used together`, 64);
    if (o.schema.length > 0 && !o.fromServer) throw new CliError('conflicting-flags', '--schema can only be used with --from-server', 64);
    if (o.fromServer) {
      const { createFromServerAction } = await import('./migrate-more.js');
      return createFromServerAction(g, out, name, o.schema);
    }
    const { MIGRATION_NAME, createMigration } = await import('../project/migrations/migrations.js');
    if (!MIGRATION_NAME.test(name)) {
      throw new CliError('invalid-name', `invalid migration name "${name}": use letters, digits, "_" and "-"`, 64);
    }
    const config = await projectConfig(g, out, { project: true, version2: true, offline: true });
    const from = o.sqlFromFile;
    let sql = o.upSql ?? '';
    if (from !== undefined) {
      const { readFileSync } = await import('node:fs');
      const { resolve } = await import('node:path');
      const { readProjectFile } = await import('../project/project-file.js');
      const text = from === '-' ? readFileSync(0, 'utf8') : readProjectFile(resolve(from));
      if (text === undefined) throw new CliError('file-not-found', `file "${from}" not found`, 1);
      sql = text;
    }
    const { shownPath } = await import('../project/config/environment.js');
    const r = createMigration(config.migrationsDirectory, name, sql, undefined, o.downSql);
    const version = r.version.toString();
    if (out.mode === 'text') out.data(version);
    out.logger.info(`Created migration ${version}_${name} in ${shownPath(config.migrationsDirectory)}/.`);
    // `directory` is the new migration's own directory (the message names the migrations directory).
    out.success({ version, name, directory: shownPath(r.directory) });
    return 0;
  });

  const apply = migrate.command('apply').description('apply pending migrations (or roll back applied ones)')
    .option('--up <n>', 'apply the first N pending migrations ("all": every one)')
    .option('--goto <version>', 'apply or roll back until exactly this version is the latest applied')
    .option('--skip-execution', 'only mark migrations applied (or rolled back); run no SQL')
    .option('--down <n>', 'roll back the N latest applied migrations ("all": every one)')
    .option('--version <version>', 'apply or roll back one migration (see --type)')
    .option('--type <direction>', 'with --version: up or down (default up)')
    .option('--dry-run', 'list the migrations that would run; apply nothing');
  run(apply, async (g, out) => {
    const f = apply.opts<ApplyFlags>();
    const sel = await selection(f);
    const { config, client } = await context(g, out, { project: true, version2: true, offline: false });
    const m = await import('../project/migrations/migrations.js');
    const { shownPath } = await import('../project/config/environment.js');
    const dir = config.migrationsDirectory;
    const local = m.readMigrations(dir);
    for (const w of local.warnings) out.warn(w.code, w.message);
    const state = await m.readState(client);
    const { unwrapTransactions } = await import('../project/migrations/sql.js');
    const steps = await unwrapTransactions(m.plan(local.migrations, state.applied, sel, dir, { skipExecution: !!f.skipExecution }));
    // The wording of cli.md §5.14; warned before anything runs, and on --dry-run too (it is what would happen).
    for (const s of steps) if (s.outOfOrder) out.warn('migration-out-of-order', `applying out-of-order migration ${s.migration.version}`);
    const entry = (s: (typeof steps)[number], status: 'applied' | 'pending' | 'failed') => ({
      version: s.migration.version.toString(), name: s.migration.name, direction: s.direction,
      file: s.file === null ? null : shownPath(s.file), status,
    });
    const dryRun = !!f.dryRun;
    if (steps.length === 0) {
      out.logger.info('Nothing to apply; the database is up to date.');
      return void out.success({ dry_run: dryRun, migrations: [] });
    }
    if (dryRun) {
      if (out.mode === 'text') out.data(steps.map((s) => `${s.direction}  ${s.migration.version}_${s.migration.name}`).join('\n'));
      out.logger.info(`Dry run: ${steps.length} migration(s) would run; nothing was applied.`);
      return void out.success({ dry_run: true, migrations: steps.map((s) => entry(s, 'pending')) });
    }
    // Created only when the state read found it missing: `CREATE SCHEMA IF NOT EXISTS` still needs the CREATE
    // privilege on the database, which a role that can run migrations on an engine-made catalog may lack.
    if (!state.tableExists) await client.runSql(m.CREATE_STATE_TABLE);
    let done = 0;
    for (const s of steps) {
      try {
        await m.runStep(client, s, dir);
      } catch (e) {
        if (out.mode !== 'json' || !(e instanceof EngineError)) throw e;
        // JSON failure document with the per-migration outcome (cli.md §3.4: extra keys named per command).
        const error: Record<string, unknown> = { code: e.code, message: e.message };
        for (const k of ['file', 'line', 'column', 'path', 'hint'] as const) if (e.location[k] !== undefined) error[k] = e.location[k];
        const migrations = steps.map((t, i) => entry(t, i < done ? 'applied' : i === done ? 'failed' : 'pending'));
        out.json({ ok: false, error, migrations, warnings: out.warnings });
        return e instanceof CliError ? e.exitCode : 1;
      }
      done++;
      out.logger.info(`${f.skipExecution ? 'Marked' : 'Applied'} ${s.migration.version}_${s.migration.name} (${s.direction}${f.skipExecution ? ', not executed' : ''}).`);
    }
    out.logger.info(`Applied ${done} migration(s).`);
    out.success({ dry_run: false, migrations: steps.map((s) => entry(s, 'applied')) });
    return 0;
  });

  const config = upgradeOptions(migrate.command('config').description('upgrade a config version 1 project to version 2, or 3 with --to 3'));
  run(config, async (g, out) => {
    const { upgradeAction } = await import('./config-upgrade.js');
    const f = config.opts<{ dryRun?: boolean; to?: string; renameSessionVariables?: boolean }>();
    return upgradeAction(g, out, !!f.dryRun, f.to, f.renameSessionVariables === true);
  });

  const status = migrate.command('status').description('show which migrations are applied, pending or missing');
  run(status, async (g, out) => {
    const { config, client } = await context(g, out, { project: true, version2: true, offline: false });
    const m = await import('../project/migrations/migrations.js');
    const st = await import('../project/migrations/status.js');
    const local = m.readMigrations(config.migrationsDirectory);
    for (const w of local.warnings) out.warn(w.code, w.message);
    const rows = st.statusRows(local.migrations, (await m.readState(client)).applied);
    const count = (s: string) => rows.filter((r) => r.status === s).length;
    if (out.mode === 'text') {
      if (rows.length === 0) out.logger.info('No migrations.');
      else out.data(st.statusTable(rows));
    }
    out.success({
      migrations: rows.map((r) => ({ version: r.version.toString(), name: r.name, local: r.local, applied: r.applied, status: r.status })),
      summary: { applied: count('applied'), pending: count('pending'), missing: count('missing') },
    });
  });

  registerMigrateMore(migrate, run);
}
