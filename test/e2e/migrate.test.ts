import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { relationExists } from '../helpers/assertions.js';
import { BIN, tempDir, useTestEngine } from './cli-helpers.js';

// `engine migrate create|apply|status` (cli.md §5.13–§5.15) through the real binary against a real engine. The engine
// runs in this process, so the CLI is always spawned asynchronously.

const e = useTestEngine();
let project: string;

beforeEach(async () => {
  project = await tempDir('engine-migrate-');
  writeFileSync(join(project, 'config.yaml'), `version: 2\nendpoint: ${e.url}\n`);
});

interface Result {
  code: number;
  out: string;
  err: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

function cli(args: string[], opts: { stdin?: string } = {}): Promise<Result> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('ENGINE_GRAPHQL_')) env[k] = v;
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [BIN, ...args], { cwd: project, env: { ...env, NO_COLOR: '1' } }, (error, out, err) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      let json: unknown = undefined;
      if (args.includes('json')) json = JSON.parse(out);
      resolve({ code, out, err, json });
    });
    child.stdin?.end(opts.stdin ?? '');
  });
}

const migrationsDir = () => join(project, 'migrations');

/** Writes `migrations/<version>_<name>/` with the given files. */
function migration(version: string, name: string, files: { up?: string; down?: string }): string {
  const dir = join(migrationsDir(), `${version}_${name}`);
  mkdirSync(dir, { recursive: true });
  if (files.up !== undefined) writeFileSync(join(dir, 'up.sql'), files.up);
  if (files.down !== undefined) writeFileSync(join(dir, 'down.sql'), files.down);
  return dir;
}

/** The rows of the state table as `<version>:<name>`. */
async function stateRows(): Promise<string[]> {
  const rows = await e.db.query<{ v: string }>(`SELECT version::text || ':' || name AS v FROM engine_catalog.schema_migrations ORDER BY version`);
  return rows.map((r) => r.v);
}

/** Three migrations: a, b (references a), c. */
function threeMigrations(bad = false): void {
  migration('1', 'create_a', { up: 'CREATE TABLE a (id int PRIMARY KEY);', down: 'DROP TABLE a;' });
  migration('2', 'create_b', {
    up: bad ? 'CREATE TABLE b (id int PRIMARY KEY);\nSELEC 1;' : 'CREATE TABLE b (id int PRIMARY KEY, a_id int REFERENCES a (id));',
    down: 'DROP TABLE b;',
  });
  migration('3', 'create_c', { up: 'CREATE TABLE c (id int);', down: 'DROP TABLE c;' });
}

describe('migrate create', () => {
  it('creates <version>_<name>/ with up.sql and down.sql', async () => {
    const before = Date.now();
    const r = await cli(['migrate', 'create', 'create_users']);
    expect(r.code).toBe(0);
    const version = r.out.trim();
    expect(version).toMatch(/^\d+$/);
    expect(Number(version)).toBeGreaterThanOrEqual(before);
    expect(r.err).toBe(`Created migration ${version}_create_users in migrations/.\n`);
    const dir = join(migrationsDir(), `${version}_create_users`);
    expect(readFileSync(join(dir, 'up.sql'), 'utf8')).toBe('');
    expect(readFileSync(join(dir, 'down.sql'), 'utf8')).toBe('-- Write the down migration for create_users here.\n');
    expect(readdirSync(migrationsDir())).toEqual([`${version}_create_users`]);
  });

  it('takes up.sql from a file or stdin, and answers JSON', async () => {
    writeFileSync(join(project, 'init.sql'), 'CREATE TABLE t (id int);\n');
    const r = await cli(['migrate', 'create', 'from-file', '--sql-from-file', 'init.sql', '-o', 'json']);
    expect(r.code).toBe(0);
    expect(r.json).toEqual({ ok: true, version: expect.stringMatching(/^\d+$/), name: 'from-file', directory: `migrations/${r.json.version}_from-file`, warnings: [] });
    expect(readFileSync(join(migrationsDir(), `${r.json.version}_from-file`, 'up.sql'), 'utf8')).toBe('CREATE TABLE t (id int);\n');
    const s = await cli(['migrate', 'create', 'from_stdin', '--sql-from-file', '-'], { stdin: 'SELECT 1;\n' });
    expect(s.code).toBe(0);
    expect(readFileSync(join(migrationsDir(), `${s.out.trim()}_from_stdin`, 'up.sql'), 'utf8')).toBe('SELECT 1;\n');
    const missing = await cli(['migrate', 'create', 'x', '--sql-from-file', 'nope.sql']);
    expect(missing.code).toBe(1);
    expect(missing.err).toBe('error: file "nope.sql" not found\n');
  });

  it('uses the highest existing version + 1 when the clock is not ahead of it', async () => {
    migration('99999999999999', 'future', { up: '' });
    const r = await cli(['migrate', 'create', 'next']);
    expect(r.out).toBe('100000000000000\n');
  });

  it('rejects an invalid name with exit 64', async () => {
    const r = await cli(['migrate', 'create', 'bad name']);
    expect(r.code).toBe(64);
    expect(r.err).toBe('error: invalid migration name "bad name": use letters, digits, "_" and "-"\n');
    const j = await cli(['migrate', 'create', 'bad.name', '-o', 'json']);
    expect(j.code).toBe(64);
    expect(j.json).toEqual({ ok: false, error: { code: 'invalid-name', message: 'invalid migration name "bad.name": use letters, digits, "_" and "-"' } });
    expect(existsSync(migrationsDir())).toBe(false);
  });
});

describe('migrate apply and status', () => {
  it('create → apply → status → down → status', async () => {
    const v = (await cli(['migrate', 'create', 'create_users'])).out.trim();
    writeFileSync(join(migrationsDir(), `${v}_create_users`, 'up.sql'), 'CREATE TABLE users (id serial PRIMARY KEY, name text);\n');
    writeFileSync(join(migrationsDir(), `${v}_create_users`, 'down.sql'), 'DROP TABLE users;\n');

    const applied = await cli(['migrate', 'apply']);
    expect(applied).toMatchObject({ code: 0, out: '' });
    expect(applied.err).toBe(`Applied ${v}_create_users (up).\nApplied 1 migration(s).\n`);
    expect(await relationExists(e, 'public.users')).toBe(true);
    expect(await stateRows()).toEqual([`${v}:create_users`]);

    const status = await cli(['migrate', 'status']);
    expect(status.code).toBe(0);
    expect(status.out).toBe(`VERSION${' '.repeat(v.length - 7)}  NAME          STATUS\n${v}  create_users  applied\n`);

    const again = await cli(['migrate', 'apply']);
    expect(again.err).toBe('Nothing to apply; the database is up to date.\n');

    const down = await cli(['migrate', 'apply', '--down', '1']);
    expect(down.code).toBe(0);
    expect(down.err).toBe(`Applied ${v}_create_users (down).\nApplied 1 migration(s).\n`);
    expect(await relationExists(e, 'public.users')).toBe(false);
    expect(await stateRows()).toEqual([]);

    const after = await cli(['migrate', 'status', '-o', 'json']);
    expect(after.json).toEqual({
      ok: true,
      migrations: [{ version: v, name: 'create_users', local: true, applied: false, status: 'pending' }],
      summary: { applied: 0, pending: 1, missing: 0 },
      warnings: [],
    });
  });

  it('applies all pending in order and answers JSON', async () => {
    threeMigrations();
    const r = await cli(['migrate', 'apply', '-o', 'json']);
    expect(r.code).toBe(0);
    expect(r.json).toEqual({
      ok: true, dry_run: false, warnings: [],
      migrations: [
        { version: '1', name: 'create_a', direction: 'up', file: 'migrations/1_create_a/up.sql', status: 'applied' },
        { version: '2', name: 'create_b', direction: 'up', file: 'migrations/2_create_b/up.sql', status: 'applied' },
        { version: '3', name: 'create_c', direction: 'up', file: 'migrations/3_create_c/up.sql', status: 'applied' },
      ],
    });
    expect(await stateRows()).toEqual(['1:create_a', '2:create_b', '3:create_c']);
  });

  it('stops at the first failure: its SQL and state row roll back, earlier ones stay, later ones stay pending', async () => {
    threeMigrations(true);
    const r = await cli(['migrate', 'apply']);
    expect(r.code).toBe(1);
    const lines = r.err.split('\n');
    expect(lines[0]).toBe('Applied 1_create_a (up).');
    expect(lines.slice(1, 4)).toEqual([
      'error: migrations/2_create_b/up.sql:2:1: migration 2_create_b failed: query execution failed: syntax error at or near "SELEC" [postgres-error]',
      '    SELEC 1;',
      '    ^',
    ]);
    expect(await relationExists(e, 'public.a')).toBe(true);
    expect(await relationExists(e, 'public.b')).toBe(false);
    expect(await relationExists(e, 'public.c')).toBe(false);
    expect(await stateRows()).toEqual(['1:create_a']);
    const status = await cli(['migrate', 'status', '-o', 'json']);
    expect(status.json.migrations.map((m: { status: string }) => m.status)).toEqual(['applied', 'pending', 'pending']);
    expect(status.json.summary).toEqual({ applied: 1, pending: 2, missing: 0 });
  });

  it('reports the failure in JSON with each migration outcome', async () => {
    threeMigrations(true);
    const r = await cli(['migrate', 'apply', '-o', 'json']);
    expect(r.code).toBe(1);
    expect(r.json).toEqual({
      ok: false,
      error: {
        code: 'migration-failed', path: '$.args[0].args', file: 'migrations/2_create_b/up.sql', line: 2, column: 1,
        message: 'migration 2_create_b failed: query execution failed: syntax error at or near "SELEC" [postgres-error]',
      },
      migrations: [
        { version: '1', name: 'create_a', direction: 'up', file: 'migrations/1_create_a/up.sql', status: 'applied' },
        { version: '2', name: 'create_b', direction: 'up', file: 'migrations/2_create_b/up.sql', status: 'failed' },
        { version: '3', name: 'create_c', direction: 'up', file: 'migrations/3_create_c/up.sql', status: 'pending' },
      ],
      warnings: [],
    });
    expect(await stateRows()).toEqual(['1:create_a']);
  });

  it('--dry-run lists the plan and applies nothing', async () => {
    threeMigrations();
    const before = await e.state();
    const r = await cli(['migrate', 'apply', '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.out).toBe('up  1_create_a\nup  2_create_b\nup  3_create_c\n');
    expect(r.err).toBe('Dry run: 3 migration(s) would run; nothing was applied.\n');
    expect(await stateRows()).toEqual([]);
    expect(await e.state()).toEqual(before);
    const j = await cli(['migrate', 'apply', '--dry-run', '--up', '2', '-o', 'json']);
    expect(j.json.dry_run).toBe(true);
    expect(j.json.migrations.map((m: { version: string; status: string }) => `${m.version}:${m.status}`)).toEqual(['1:pending', '2:pending']);
    await cli(['migrate', 'apply']);
    const d = await cli(['migrate', 'apply', '--down', 'all', '--dry-run']);
    expect(d.out).toBe('down  3_create_c\ndown  2_create_b\ndown  1_create_a\n');
    expect(await stateRows()).toEqual(['1:create_a', '2:create_b', '3:create_c']);
  });

  it('--up N, --down N and --down all', async () => {
    threeMigrations();
    expect((await cli(['migrate', 'apply', '--up', '1'])).err).toBe('Applied 1_create_a (up).\nApplied 1 migration(s).\n');
    expect(await stateRows()).toEqual(['1:create_a']);
    expect((await cli(['migrate', 'apply', '--up', '5'])).code).toBe(0);
    expect(await stateRows()).toEqual(['1:create_a', '2:create_b', '3:create_c']);
    expect((await cli(['migrate', 'apply', '--down', '1'])).err).toBe('Applied 3_create_c (down).\nApplied 1 migration(s).\n');
    // b references a: all must roll back newest first.
    const all = await cli(['migrate', 'apply', '--down', 'all']);
    expect(all.err).toBe('Applied 2_create_b (down).\nApplied 1_create_a (down).\nApplied 2 migration(s).\n');
    expect(await stateRows()).toEqual([]);
    expect(await relationExists(e, 'public.a')).toBe(false);
  });

  it('--version V with --type up|down, and its errors', async () => {
    threeMigrations();
    expect((await cli(['migrate', 'apply', '--version', '1'])).code).toBe(0);
    const r = await cli(['migrate', 'apply', '--version', '3', '--type', 'up']);
    expect(r.err).toBe('Applied 3_create_c (up).\nApplied 1 migration(s).\n');
    expect(await stateRows()).toEqual(['1:create_a', '3:create_c']);
    const down = await cli(['migrate', 'apply', '--version', '3', '--type', 'down']);
    expect(down.err).toBe('Applied 3_create_c (down).\nApplied 1 migration(s).\n');
    expect(await stateRows()).toEqual(['1:create_a']);

    const already = await cli(['migrate', 'apply', '--version', '1']);
    expect([already.code, already.err]).toEqual([1, 'error: migration 1 is already applied\n']);
    const notApplied = await cli(['migrate', 'apply', '--version', '2', '--type', 'down']);
    expect([notApplied.code, notApplied.err]).toEqual([1, 'error: migration 2 is not applied\n']);
    const notFound = await cli(['migrate', 'apply', '--version', '42', '-o', 'json']);
    expect(notFound.code).toBe(1);
    expect(notFound.json).toEqual({ ok: false, error: { code: 'migration-not-found', message: 'migration 42 not found in migrations/' } });
    const badType = await cli(['migrate', 'apply', '--version', '1', '--type', 'sideways']);
    expect([badType.code, badType.err]).toEqual([64, 'error: invalid value "sideways" for --type: expected one of up, down\n']);
  });

  it('conflicting and invalid flags exit 64 before anything is read', async () => {
    const r = await cli(['migrate', 'apply', '--up', '1', '--down', '1']);
    expect([r.code, r.err]).toEqual([64, 'error: --up, --down and --version cannot be combined\n']);
    const j = await cli(['migrate', 'apply', '--down', 'all', '--version', '3', '-o', 'json']);
    expect(j.code).toBe(64);
    expect(j.json).toEqual({ ok: false, error: { code: 'conflicting-flags', message: '--up, --down and --version cannot be combined' } });
    const t = await cli(['migrate', 'apply', '--type', 'down']);
    expect([t.code, t.err]).toEqual([64, 'error: --type can only be used with --version\n']);
    const n = await cli(['migrate', 'apply', '--up', '0']);
    expect([n.code, n.err]).toEqual([64, 'error: invalid value "0" for --up: expected an integer ≥ 1\n']);
    const d = await cli(['migrate', 'apply', '--down', 'some']);
    expect([d.code, d.err]).toEqual([64, 'error: invalid value "some" for --down: expected an integer ≥ 1 or "all"\n']);
  });

  it('rolling back an applied version without local files fails with migration-files-missing', async () => {
    threeMigrations();
    await cli(['migrate', 'apply']);
    rmSync(join(migrationsDir(), '3_create_c'), { recursive: true });
    const r = await cli(['migrate', 'apply', '--down', '1']);
    expect([r.code, r.err]).toEqual([1, 'error: cannot roll back 3: no local files for this version\n']);
    expect(await stateRows()).toEqual(['1:create_a', '2:create_b', '3:create_c']);
    // Without down.sql the directory cannot roll back either; nothing ran.
    rmSync(join(migrationsDir(), '2_create_b', 'down.sql'));
    const v = await cli(['migrate', 'apply', '--version', '2', '--type', 'down', '-o', 'json']);
    expect(v.json.error).toEqual({ code: 'migration-files-missing', message: 'cannot roll back 2: no local files for this version' });
    const status = await cli(['migrate', 'status']);
    expect(status.out).toBe('VERSION  NAME      STATUS\n1        create_a  applied\n2        create_b  applied\n3        create_c  missing\n');
    const json = await cli(['migrate', 'status', '-o', 'json']);
    expect(json.json.migrations[2]).toEqual({ version: '3', name: 'create_c', local: false, applied: true, status: 'missing' });
    expect(json.json.summary).toEqual({ applied: 2, pending: 0, missing: 1 });
  });

  it('warns about out-of-order migrations', async () => {
    migration('1', 'one', { up: 'SELECT 1;' });
    migration('3', 'three', { up: 'SELECT 3;' });
    await cli(['migrate', 'apply']);
    migration('2', 'two', { up: '   \n' });
    const r = await cli(['migrate', 'apply', '-o', 'json']);
    expect(r.code).toBe(0);
    expect(r.json.warnings).toEqual([{ code: 'migration-out-of-order', message: 'applying out-of-order migration 2' }]);
    expect(r.err).toBe('warning: applying out-of-order migration 2\nApplied 2_two (up).\nApplied 1 migration(s).\n');
    expect(await stateRows()).toEqual(['1:one', '2:two', '3:three']);
  });

  it('a migration without up.sql, or with an empty one, only records its state', async () => {
    migration('5', 'metadata_only', {});
    migration('6', 'empty', { up: '' });
    const r = await cli(['migrate', 'apply', '-o', 'json']);
    expect(r.json.migrations.map((m: { file: string | null }) => m.file)).toEqual([null, 'migrations/6_empty/up.sql']);
    expect(await stateRows()).toEqual(['5:metadata_only', '6:empty']);
  });

  it('version 1 leftovers and repeated versions are migration-invalid; other entries are skipped with a warning', async () => {
    migration('1', 'ok', { up: 'SELECT 1;' });
    writeFileSync(join(migrationsDir(), 'README.md'), 'notes\n');
    writeFileSync(join(migrationsDir(), '.gitkeep'), '');
    const skipped = await cli(['migrate', 'status']);
    expect(skipped.code).toBe(0);
    expect(skipped.err).toBe('warning: migrations/README.md: not a migration directory (expected <version>_<name>/ with up.sql and down.sql); skipped\n');

    const yaml = join(migration('2', 'old', {}), 'up.yaml');
    writeFileSync(yaml, '- type: run_sql\n');
    const y = await cli(['migrate', 'apply']);
    // Entries are read in name order and the first invalid one stops the read (2_old comes before README.md).
    expect([y.code, y.err]).toEqual([1,
      "error: migrations/2_old/up.yaml: config version 2 migrations cannot contain up.yaml or down.yaml\nhint: run 'engine migrate config'\n"]);
    rmSync(join(migrationsDir(), '2_old'), { recursive: true });
    rmSync(join(migrationsDir(), 'README.md'));

    writeFileSync(join(migrationsDir(), '7_flat.up.sql'), 'SELECT 1;');
    const flat = await cli(['migrate', 'status', '-o', 'json']);
    expect(flat.code).toBe(1);
    expect(flat.json.error).toMatchObject({ code: 'migration-invalid', message: 'migrations/7_flat.up.sql: flat migration files are not supported' });
    rmSync(join(migrationsDir(), '7_flat.up.sql'));

    migration('0001', 'again', { up: 'SELECT 1;' });
    const dup = await cli(['migrate', 'apply']);
    expect([dup.code, dup.err]).toEqual([1, 'error: migrations/1_ok: duplicate migration version 1\n']);
    expect(await stateRows()).toEqual([]);
  });

  it('a missing state table reads as empty; apply creates it', async () => {
    await e.db.runScript('DROP TABLE engine_catalog.schema_migrations');
    migration('1', 'one', { up: 'CREATE TABLE one (id int);', down: 'DROP TABLE one;' });
    const s = await cli(['migrate', 'status', '-o', 'json']);
    expect(s.json.summary).toEqual({ applied: 0, pending: 1, missing: 0 });
    const r = await cli(['migrate', 'apply']);
    expect(r.code).toBe(0);
    expect(await stateRows()).toEqual(['1:one']);
  });

  it('status with no migrations', async () => {
    const r = await cli(['migrate', 'status']);
    expect(r).toMatchObject({ code: 0, out: '', err: 'No migrations.\n' });
  });
});
