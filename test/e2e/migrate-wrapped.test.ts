import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { relationExists } from '../helpers/assertions.js';
import { BIN, tempDir, useTestEngine } from './cli-helpers.js';

// Issue 12 item 2: migrations as the incumbent's users write them, wrapped in their own BEGIN; … COMMIT;, and using
// extensions; any other transaction control is refused at its file, line and column before anything runs.

const e = useTestEngine();
let project: string;

beforeEach(async () => {
  project = await tempDir('engine-migrate-wrapped-');
  writeFileSync(join(project, 'config.yaml'), `version: 2\nendpoint: ${e.url}\n`);
});

function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('ENGINE_GRAPHQL_')) env[k] = v;
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: project, env: { ...env, NO_COLOR: '1' } }, (error, out, err) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out, err });
    }).stdin?.end('');
  });
}

function migration(version: string, name: string, up: string, down = ''): void {
  const dir = join(project, 'migrations', `${version}_${name}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'up.sql'), up);
  writeFileSync(join(dir, 'down.sql'), down);
}

const applied = async (): Promise<string[]> =>
  (await e.db.query<{ v: string }>('SELECT version::text AS v FROM engine_catalog.schema_migrations ORDER BY version')).map((r) => r.v);

describe('migrations wrapped in BEGIN/COMMIT (issue 12 item 2)', () => {
  it('runs wrapped files, extensions included, up and down', async () => {
    migration('1', 'extensions', 'BEGIN;\nCREATE EXTENSION IF NOT EXISTS pgcrypto;\nCREATE EXTENSION IF NOT EXISTS citext;\nCREATE EXTENSION IF NOT EXISTS pg_trgm;\nCREATE EXTENSION IF NOT EXISTS "uuid-ossp";\nCOMMIT;\n');
    migration('2', 'users', '-- users\nBEGIN TRANSACTION;\nCREATE TABLE users (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), email citext UNIQUE NOT NULL);\nCREATE INDEX users_email_trgm ON users USING gin ((email::text) gin_trgm_ops);\nEND;',
      'begin;\nDROP TABLE users;\ncommit;\n');
    migration('3', 'seed', "start transaction;\nINSERT INTO users (email) VALUES ('Ada@Example.org');\ncommit");
    const up = await cli(['migrate', 'apply']);
    expect({ code: up.code, err: up.err }).toEqual({ code: 0, err: 'Applied 1_extensions (up).\nApplied 2_users (up).\nApplied 3_seed (up).\nApplied 3 migration(s).\n' });
    expect(await e.db.query("SELECT count(*)::int AS n FROM users WHERE email = 'ada@example.ORG'")).toEqual([{ n: 1 }]);
    expect(await applied()).toEqual(['1', '2', '3']);
    const down = await cli(['migrate', 'apply', '--version', '2', '--type', 'down']);
    expect(down.code).toBe(0);
    expect(await relationExists(e, 'public.users')).toBe(false);
  });

  const OWN = 'each migration runs in its own transaction';
  it.each([
    ['ROLLBACK at the end', 'BEGIN;\nCREATE TABLE a (id int);\nROLLBACK;\n', 3, 1, `ROLLBACK is not allowed in a migration: ${OWN}`],
    ['ABORT', 'BEGIN;\nCREATE TABLE a (id int);\nabort;\n', 3, 1, `ROLLBACK is not allowed in a migration: ${OWN}`],
    ['BEGIN without COMMIT', 'CREATE TABLE a (id int);\n  BEGIN;\n', 2, 3,
      `BEGIN without COMMIT is not allowed in a migration: the transaction block is never closed; ${OWN}`],
    ['a second block left open', 'BEGIN;\nSELECT 1;\nCOMMIT;\nSTART TRANSACTION;\nSELECT 2;\n', 4, 1,
      `START TRANSACTION without COMMIT is not allowed in a migration: the transaction block is never closed; ${OWN}`],
    ['a BEGIN inside a block', 'BEGIN;\nCREATE TABLE a (id int);\n BEGIN WORK;\nCOMMIT;\nCOMMIT;\n', 3, 2,
      'BEGIN is not allowed in a migration: a transaction block is already open (line 1)'],
    ['a SAVEPOINT never released', 'BEGIN;\nSAVEPOINT s;\nCREATE TABLE a (id int);\nCOMMIT;\n', 2, 1,
      'SAVEPOINT "s" without RELEASE SAVEPOINT is not allowed in a migration: only a savepoint released in the same block can run inside the migration\'s transaction'],
    ['a RELEASE without its SAVEPOINT', 'SAVEPOINT s;\nBEGIN;\nRELEASE SAVEPOINT s;\nCOMMIT;\nRELEASE s;\n', 3, 1,
      'RELEASE SAVEPOINT "s" is not allowed in a migration: no SAVEPOINT "s" is set before it in its transaction block'],
    ['ROLLBACK TO SAVEPOINT', 'SAVEPOINT s;\nCREATE TABLE a (id int);\nROLLBACK TO SAVEPOINT s;\nRELEASE s;\n', 3, 1,
      `ROLLBACK TO SAVEPOINT is not allowed in a migration: ${OWN}`],
    ['PREPARE TRANSACTION', "BEGIN;\nCREATE TABLE a (id int);\nPREPARE TRANSACTION 'x';\n", 3, 1, `PREPARE TRANSACTION is not allowed in a migration: ${OWN}`],
    ['COMMIT AND CHAIN', 'BEGIN;\nCREATE TABLE a (id int);\nCOMMIT AND CHAIN;\nCOMMIT;\n', 3, 1, `COMMIT AND CHAIN is not allowed in a migration: ${OWN}`],
    ['COMMIT alone', "CREATE TABLE a (id int);\nselect 'x;'; COMMIT;", 2, 14,
      `COMMIT without BEGIN is not allowed in a migration: it would commit the migration half-way; ${OWN}`],
    ['END after its block', 'BEGIN;\nSELECT 1;\nCOMMIT;\nSELECT 2;\nEND;\n', 5, 1,
      `COMMIT without BEGIN is not allowed in a migration: it would commit the migration half-way; ${OWN}`],
  ])('refuses %s at its file, line and column, and applies nothing', async (_what, up, line, column, message) => {
    migration('1', 'ok', 'CREATE TABLE first_one (id int);');
    migration('2', 'bad', up);
    const before = await e.state();
    const r = await cli(['migrate', 'apply']);
    expect(r.code).toBe(1);
    expect(r.err).toBe(`error: migrations/2_bad/up.sql:${line}:${column}: ${message}\n` +
      `    ${up.split('\n')[line - 1] ?? ''}\n    ${' '.repeat(column - 1)}^\n` +
      "hint: remove it; BEGIN; … COMMIT; blocks and released savepoints run as part of the migration's own transaction\n");
    expect(await e.state()).toEqual(before);
    const dry = await cli(['migrate', 'apply', '--dry-run']);
    expect(dry.code).toBe(1);
  });
});

describe('squashed migrations of the incumbent (issue 27 item 7)', () => {
  const rows = async (sql: string) => e.db.query(sql);

  it('runs inner BEGIN … COMMIT blocks anywhere in a file, in every spelling, as part of the one migration', async () => {
    migration('1700000000001', 'squashed', [
      '-- from 1_a',
      'CREATE TABLE a (id int PRIMARY KEY);',
      'BEGIN TRANSACTION;',
      'INSERT INTO a VALUES (1);',
      'COMMIT TRANSACTION;',
      '-- from 2_b',
      'begin work; CREATE TABLE b (id int REFERENCES a); end;',
      'CREATE TABLE c (id int);',
      'START TRANSACTION;',
      'SAVEPOINT sp;',
      'INSERT INTO b VALUES (1);',
      'RELEASE SAVEPOINT sp;',
      'Commit Work;',
      'BEGIN; INSERT INTO c VALUES (3); COMMIT;',
      '',
    ].join('\n'), 'BEGIN;\nDROP TABLE c;\nCOMMIT;\nBEGIN;\nDROP TABLE b;\nDROP TABLE a;\nCOMMIT;\n');
    const up = await cli(['migrate', 'apply']);
    expect({ code: up.code, err: up.err }).toEqual({ code: 0, err: 'Applied 1700000000001_squashed (up).\nApplied 1 migration(s).\n' });
    expect(await rows('SELECT (SELECT count(*) FROM a)::int AS a, (SELECT count(*) FROM b)::int AS b, (SELECT count(*) FROM c)::int AS c'))
      .toEqual([{ a: 1, b: 1, c: 1 }]);
    expect(await applied()).toEqual(['1700000000001']);
    const down = await cli(['migrate', 'apply', '--down', '1']);
    expect({ code: down.code, err: down.err }).toEqual({ code: 0, err: 'Applied 1700000000001_squashed (down).\nApplied 1 migration(s).\n' });
    expect(await relationExists(e, 'public.a')).toBe(false);
    expect(await applied()).toEqual([]);
  });

  it('is atomic: a failure in a later block leaves nothing of the earlier ones, at the failing line and column', async () => {
    const up = 'BEGIN;\nCREATE TABLE a (id int);\nCOMMIT;\nBEGIN;\nINSERT INTO a VALUES (1);\nSELECT nope FROM a;\nCOMMIT;\n';
    migration('1', 'squashed', up);
    const before = await e.state();
    const r = await cli(['migrate', 'apply']);
    expect(r.code).toBe(1);
    expect(r.err.split('\n').slice(0, 3)).toEqual([
      'error: migrations/1_squashed/up.sql:6:8: migration 1_squashed failed: query execution failed: column "nope" does not exist [postgres-error]',
      '    SELECT nope FROM a;', '           ^',
    ]);
    expect(await relationExists(e, 'public.a')).toBe(false);
    expect(await e.state()).toEqual(before);
  });

  it('accepts a block followed by statements outside it (refused before issue 27)', async () => {
    migration('1', 'mixed', 'BEGIN;\nCREATE TABLE a (id int);\nCOMMIT;\nCREATE TABLE b (id int);\n');
    const r = await cli(['migrate', 'apply']);
    expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: 'Applied 1_mixed (up).\nApplied 1 migration(s).\n' });
    expect([await relationExists(e, 'public.a'), await relationExists(e, 'public.b')]).toEqual([true, true]);
  });
});

describe('migration directories of any name (issue 27 item 6)', () => {
  it('a <version>_<name> directory is a migration whatever its name holds; the name is recorded as written', async () => {
    const odd = 'it\'s "odd" \\ 10% $$ é';
    migration('1700000000000', 'user prefs or default', 'CREATE TABLE prefs (id int);', 'DROP TABLE prefs;');
    migration('1700000000001', odd, 'CREATE TABLE odd (id int);', 'DROP TABLE odd;');
    const status = await cli(['migrate', 'status']);
    expect({ code: status.code, err: status.err }).toEqual({ code: 0, err: '' });
    expect(status.out).toContain('1700000000000  user prefs or default');
    const up = await cli(['migrate', 'apply']);
    expect({ code: up.code, err: up.err }).toEqual({
      code: 0, err: `Applied 1700000000000_user prefs or default (up).\nApplied 1700000000001_${odd} (up).\nApplied 2 migration(s).\n`,
    });
    expect(await relationExists(e, 'public.prefs')).toBe(true);
    expect(await e.db.query('SELECT version::text AS v, name FROM engine_catalog.schema_migrations ORDER BY version')).toEqual([
      { v: '1700000000000', name: 'user prefs or default' }, { v: '1700000000001', name: odd },
    ]);
    const down = await cli(['migrate', 'apply', '--version', '1700000000000', '--type', 'down']);
    expect(down.code).toBe(0);
    expect(await relationExists(e, 'public.prefs')).toBe(false);
    expect(await applied()).toEqual(['1700000000001']);
  });
});

describe('a failing migration at its line and column (issue 19 item 2)', () => {
  it.each([
    ['plain', '-- users\nCREATE TABLE users (id int);\nINSERT INTO users VALUES (1);\nSELECT nope FROM users;\n', 4, 8],
    // The wrapper is blanked in place and non-ASCII characters count as one: the cursor still points into the file.
    ['wrapped, after non-ASCII text', "BEGIN;\n-- café ☕ 𝄞\nCREATE TABLE users (id int, name text DEFAULT 'Zoë');\n  SELECT 'é😀', nope FROM users;\nCOMMIT;\n", 4, 16],
  ])('%s: PostgreSQL\'s position as file:line:col, with the SQL line and a caret; nothing applied', async (_what, up, line, column) => {
    migration('1', 'bad', up);
    const before = await e.state();
    const r = await cli(['migrate', 'apply']);
    expect(r.code).toBe(1);
    const text = up.split('\n')[line - 1] ?? '';
    // Then PostgreSQL's own hint, if it has one.
    expect(r.err.split('\n').slice(0, 3)).toEqual([
      `error: migrations/1_bad/up.sql:${line}:${column}: migration 1_bad failed: query execution failed: column "nope" does not exist [postgres-error]`,
      `    ${text}`, `    ${' '.repeat(column - 1)}^`,
    ]);
    expect([...text][column - 1]).toBe('n');
    expect(await e.state()).toEqual(before);
    const j = await cli(['migrate', 'apply', '-o', 'json']);
    expect(JSON.parse(j.out).error).toMatchObject({ code: 'migration-failed', file: 'migrations/1_bad/up.sql', line, column });
  });
});
