/**
 * `engine test` and `engine metadata schema` (issue 33 points 1–4) with the real bin on a copy of the example project:
 * its tests pass on an ephemeral engine; a failing case shows its diff and exits 1; the JUnit and JSON reports; the
 * coverage matrix and --min-coverage; the role's SDL offline; `--endpoint` against a running engine (read-only
 * unless --allow-writes); a broken test file is refused at its position before any engine starts.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { EXTERNAL_URL } from '../helpers/engine.js';
import { cli, jsonDoc, lines, removeTempDirs, show, tempDir } from './cli-helpers.js';
import { externalDatabase, serve, stopAll } from './process-helpers.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/quickstart', import.meta.url));
const CASES = 21;
const ENV = { ENGINE_ADMIN_SECRET: 'e2e-secret' };
const T = 240_000;

const FAILING = `cases:
  - name: a user sees every draft
    role: user
    session: {x-engine-user-id: u1}
    query: "{ article(order_by: {id: asc}) { title } }"
    expect:
      data: {article: [{title: Hello}, {title: Draft by Ann}, {title: Draft by Bob}]}
`;

async function project(): Promise<string> {
  const dir = join(await tempDir('engine-test-e2e-'), 'project');
  cpSync(EXAMPLE, dir, { recursive: true, filter: (src) => !src.includes('.engine') });
  return dir;
}

afterAll(removeTempDirs);
afterEach(stopAll);

describe('engine test on an ephemeral engine', () => {
  it('passes the example project: one line per case, a summary, the JUnit file and the coverage matrix', async () => {
    const dir = await project();
    const r = await cli(['test', '--reporter', 'junit', '--output', 'report.xml', '--coverage'], { cwd: dir, env: ENV });
    expect(r.code, show(r)).toBe(0);
    const out = lines(r.stdout);
    expect(out.filter((l) => /^✓ .+ \(\d+ ms\)$/.test(l))).toHaveLength(CASES);
    expect(out).toContain(`${CASES} passed, 0 failed of ${CASES} case(s) in ${/in ([\d.]+) s/.exec(r.stdout)?.[1]} s`);
    expect(out).toContain('  public.article  AD      AD      AD      AD');
    expect(out).toContain('  public.author   AD      AD      AD      D*');
    expect(out).toContain('Permission coverage: 8/8 (100%)');
    const xml = readFileSync(join(dir, 'report.xml'), 'utf8');
    expect(xml).toContain(`<testsuites name="engine test" tests="${CASES}" failures="0" skipped="0"`);
    expect(xml).toContain('<testsuite name="tests/article.test.yaml" tests="10" failures="0"');
    expect(xml).toMatch(/<testcase name="update - not someone else&apos;s|<testcase name="update - not someone else's"/);
  }, T);

  it('a failing case: its diff, exit 1, the JUnit failure; then -o json with the mismatch and --min-coverage', async () => {
    const dir = await project();
    writeFileSync(join(dir, 'tests/failing.test.yaml'), FAILING);
    {
      const r = await cli(['test', 'tests/failing.test.yaml', '--report-file', 'fail.xml'], { cwd: dir, env: ENV });
      expect(r.code, show(r)).toBe(1);
      expect(lines(r.stdout)).toEqual([
        expect.stringMatching(/^✗ a user sees every draft \(\d+ ms\) tests\/failing\.test\.yaml:2$/),
        '    data differs (- expected, + actual):',
        '        {',
        '          "article": [',
        '            {',
        '              "title": "Hello"',
        '            },',
        '            {',
        '              "title": "Draft by Ann"',
        '      -     },',
        '      -     {',
        '      -       "title": "Draft by Bob"',
        '            }',
        '          ]',
        '        }',
        expect.stringMatching(/^0 passed, 1 failed of 1 case\(s\) in [\d.]+ s$/),
      ]);
      expect(readFileSync(join(dir, 'fail.xml'), 'utf8')).toContain('<failure message="data differs">');

      const j = await cli(['test', '-o', 'json', '--min-coverage', '90'], { cwd: dir, env: ENV });
      expect(j.code, show(j)).toBe(1);
      const doc = jsonDoc(j);
      expect(doc.ok).toBe(false);
      expect(doc.summary).toMatchObject({ passed: CASES, failed: 1, skipped: 0, total: CASES + 1 });
      expect(doc.cases.find((c: { status: string }) => c.status === 'failed')).toMatchObject({
        file: 'tests/failing.test.yaml', line: 2, name: 'a user sees every draft', role: 'user',
        mismatches: [{ message: 'data differs', actual: { article: [{ title: 'Hello' }, { title: 'Draft by Ann' }] } }],
      });
      expect(doc.coverage).toMatchObject({ covered: 8, total: 8, percent: 100 });
    }
  }, T);

  it('--min-coverage above what the cases reach fails with the matrix', async () => {
    const dir = await project();
    const r = await cli(['test', 'tests/author.test.yaml', '--min-coverage', '75'], { cwd: dir, env: ENV });
    expect(r.code, show(r)).toBe(1);
    expect(r.stdout).toContain('Permission coverage: 4/8 (50%)');
    expect(r.stderr).toContain('permission coverage 50% is below --min-coverage 75%');
  }, T);

  it('refuses a broken test file at its position, before any engine starts', async () => {
    const dir = await project();
    const broken = join(dir, 'broken.test.yaml');
    writeFileSync(broken, 'cases:\n  - name: x\n    role: user\n    query: "{ a }"\n    expect: {data: {}}\n    expected: 1\n');
    const before = readdirSync(dir).sort();
    const r = await cli(['test', 'broken.test.yaml', '-o', 'json'], { cwd: dir, env: ENV });
    expect(r.code, show(r)).toBe(1);
    expect(jsonDoc(r)).toMatchObject({ ok: false, error: { code: 'test-file-invalid', file: 'broken.test.yaml', line: 6, column: 5, path: '$.cases[0].expected' } });
    expect(jsonDoc(r).error.message).toContain('unknown key "expected"');
    expect(r.stderr).not.toContain('Starting an ephemeral engine');
    expect(readdirSync(dir).sort()).toEqual(before);
    const none = await cli(['test', 'nowhere'], { cwd: dir, env: ENV });
    expect(none.code, show(none)).toBe(1);
    expect(none.stderr).toContain('"nowhere" not found');
  }, T);
});

describe('engine metadata schema', () => {
  it("prints the role's SDL offline, and one file per role with --all-roles", async () => {
    const dir = await project();
    const r = await cli(['metadata', 'schema', '--role', 'user', '--session-var', 'x-engine-user-id=u1'], { cwd: dir, env: ENV });
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toContain('type author {\n  id: Int!\n  name: String!\n  created_at: timestamptz!\n');
    expect(r.stdout).not.toMatch(/^ {2}user_id\b/m);
    expect(r.stdout).not.toContain('delete_author');
    expect(r.stdout).toContain('  delete_article(where: article_bool_exp!): article_mutation_response\n');
    // The run above left the role's SDL, the migrated database and its catalog as the engine reads it in the machine's
    // cache: the SDL printed as saved, another role's built on the saved catalog (no database), unless --no-cache; the
    // same SDL.
    const warm = await cli(['--log-level', 'debug', 'metadata', 'schema', '--role', 'user'], { cwd: dir, env: ENV });
    expect(warm.code, show(warm)).toBe(0);
    expect(warm.stderr).toContain('the SDL of user loaded from the cache');
    expect(warm.stderr).not.toContain('migrated database');
    expect(warm.stdout).toBe(r.stdout);
    const other = await cli(['--log-level', 'debug', 'metadata', 'schema', '--role', 'nobody'], { cwd: dir, env: ENV });
    expect(other.code, show(other)).toBe(0);
    expect(other.stderr).toContain("built from the migrated database's recorded catalog");
    expect(other.stderr).not.toContain('migrated database loaded');
    expect(other.stdout).not.toContain('type author');
    const uncached = await cli(['--log-level', 'debug', 'metadata', 'schema', '--role', 'user', '--no-cache'], { cwd: dir, env: ENV });
    expect(uncached.code, show(uncached)).toBe(0);
    expect(uncached.stderr).not.toContain('from the cache');
    expect(uncached.stdout).toBe(r.stdout);
    const all = await cli(['metadata', 'schema', '--all-roles', '--output-dir', 'sdl'], { cwd: dir, env: ENV });
    expect(all.code, show(all)).toBe(0);
    expect(readdirSync(join(dir, 'sdl'))).toEqual(['user.graphql']);
    expect(readFileSync(join(dir, 'sdl/user.graphql'), 'utf8')).toBe(r.stdout);
    const bad = await cli(['metadata', 'schema', '--all-roles'], { cwd: dir, env: ENV });
    expect(bad.code, show(bad)).toBe(64);
    expect(bad.stderr).toContain('--all-roles needs --output-dir DIR');
  }, T);

  it('a migration that fails: the error of migrate apply, at its file, line and column; nothing written', async () => {
    // The ephemeral engine runs migrations straight on its database, not through run_sql: the error must not change.
    const dir = await project();
    const migration = join(dir, 'migrations', '1700000000009_broken');
    mkdirSync(migration);
    writeFileSync(join(migration, 'up.sql'), 'CREATE TABLE fine (id int);\nSELEC 1;\n');
    const before = readdirSync(dir).sort();
    const r = await cli(['metadata', 'schema', '--role', 'user', '-o', 'json'], { cwd: dir, env: ENV });
    expect(r.code, show(r)).toBe(1);
    expect(jsonDoc(r)).toEqual({
      ok: false,
      error: {
        code: 'migration-failed', path: '$.args[0].args', file: 'migrations/1700000000009_broken/up.sql', line: 2, column: 1,
        message: 'migration 1700000000009_broken failed: query execution failed: syntax error at or near "SELEC" [postgres-error]',
      },
    });
    expect(readdirSync(dir).sort()).toEqual(before);
  }, T);
});

describe('engine test --endpoint', () => {
  it('runs the read-only cases against a running engine, and the writing ones only with --allow-writes', async () => {
    const dir = await project();
    const db = EXTERNAL_URL ? ['--database-url', await externalDatabase('engine_test_endpoint')] : ['--data-dir', '.engine/data'];
    const { url } = await serve(dir, db, ENV);
    for (const args of [['deploy'], ['seed', 'apply']]) {
      const r = await cli([...args, '--endpoint', url], { cwd: dir, env: ENV });
      expect(r.code, show(r)).toBe(0);
    }
    const ro = await cli(['test', '--endpoint', url, '-o', 'json'], { cwd: dir, env: ENV });
    expect(ro.code, show(ro)).toBe(0);
    const doc = jsonDoc(ro);
    expect(doc.summary).toMatchObject({ failed: 0, skipped: 15, passed: CASES - 15 });
    expect(doc.cases.find((c: { name: string }) => c.name.startsWith('delete - an author'))).toMatchObject({ status: 'skipped', reason: expect.stringContaining('--allow-writes') });
    const rw = await cli(['test', 'tests/author.test.yaml', '--endpoint', url, '--allow-writes'], { cwd: dir, env: ENV });
    expect(rw.code, show(rw)).toBe(0);
    expect(rw.stdout).toContain('7 passed, 0 failed of 7 case(s)');
    expect(existsSync(join(dir, '.engine'))).toBe(!EXTERNAL_URL);
  }, T);
});


describe.skipIf(EXTERNAL_URL)('engine db reset (embedded dev database)', () => {
  const ok = async (url: string, body: unknown): Promise<{ result: string[][] }> => {
    const r = await fetch(`${url}/v1/query`, { method: 'POST', headers: { 'x-engine-admin-secret': ENV.ENGINE_ADMIN_SECRET }, body: JSON.stringify(body) });
    expect(r.status).toBe(200);
    return (await r.json()) as { result: string[][] };
  };
  const count = async (url: string): Promise<number> => {
    const r = await ok(url, { type: 'run_sql', args: { sql: 'SELECT count(*) FROM article' } });
    return Number(r.result[1]?.[0]);
  };

  it('rebuilds .engine/data from migrations, metadata and seeds; refuses without --yes and while an engine uses it', async () => {
    const dir = await project();
    const noYes = await cli(['db', 'reset', '-o', 'json'], { cwd: dir, env: ENV });
    expect(noYes.code, show(noYes)).toBe(64);
    expect(jsonDoc(noYes).error).toMatchObject({ code: 'confirmation-required', message: 'refusing to reset .engine/data without confirmation; pass --yes' });
    expect(existsSync(join(dir, '.engine'))).toBe(false);

    const reset = await cli(['db', 'reset', '--yes'], { cwd: dir, env: ENV });
    expect(reset.code, show(reset)).toBe(0);
    expect(reset.stderr).toContain('Reset .engine/data (it did not exist).');
    const first = await serve(dir, ['--data-dir', '.engine/data'], ENV);
    expect(await count(first.url)).toBe(3);
    await ok(first.url, { type: 'run_sql', args: { sql: "INSERT INTO article (author_id, title) VALUES (1, 'extra')" } });
    const busy = await cli(['db', 'reset', '--yes', '-o', 'json'], { cwd: dir, env: ENV });
    expect(busy.code, show(busy)).toBe(1);
    expect(jsonDoc(busy).error).toMatchObject({ code: 'data-dir-locked', message: expect.stringContaining('data directory .engine/data is in use by another engine') });
    expect(await count(first.url)).toBe(4);
    first.p.child.kill('SIGTERM');
    await first.p.closed;

    const again = await cli(['db', 'reset', '--yes'], { cwd: dir, env: ENV });
    expect(again.code, show(again)).toBe(0);
    expect(again.stderr).toContain('Reset .engine/data.');
    const second = await serve(dir, ['--data-dir', '.engine/data'], ENV);
    expect(await count(second.url)).toBe(3);
  }, T);
});
