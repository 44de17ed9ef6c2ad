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

  it.each([
    ['COMMIT in the middle', 'BEGIN;\nCREATE TABLE a (id int);\nCOMMIT;\nCREATE TABLE b (id int);\n', 'COMMIT', 3, 1],
    ['ROLLBACK at the end', 'BEGIN;\nCREATE TABLE a (id int);\nROLLBACK;\n', 'ROLLBACK', 3, 1],
    ['BEGIN without COMMIT', 'CREATE TABLE a (id int);\n  BEGIN;\n', 'BEGIN', 2, 3],
    ['a SAVEPOINT inside the wrapper', 'BEGIN;\nSAVEPOINT s;\nCREATE TABLE a (id int);\nCOMMIT;\n', 'SAVEPOINT', 2, 1],
    ['COMMIT alone', "CREATE TABLE a (id int);\nselect 'x;'; COMMIT;", 'COMMIT', 2, 14],
  ])('refuses %s at its file, line and column, and applies nothing', async (_what, up, word, line, column) => {
    migration('1', 'ok', 'CREATE TABLE first_one (id int);');
    migration('2', 'bad', up);
    const before = await e.state();
    const r = await cli(['migrate', 'apply']);
    expect(r.code).toBe(1);
    expect(r.err).toBe(`error: migrations/2_bad/up.sql:${line}:${column}: ${word} is not allowed in a migration: each migration runs in its own transaction\n` +
      `    ${up.split('\n')[line - 1] ?? ''}\n    ${' '.repeat(column - 1)}^\n` +
      'hint: remove it; a file wrapped in exactly one BEGIN; … COMMIT; is accepted as it is\n');
    expect(await e.state()).toEqual(before);
    const dry = await cli(['migrate', 'apply', '--dry-run']);
    expect(dry.code).toBe(1);
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
