/**
 * `engine dev` (issue 33 point 5) with the real bin on a copy of the example project: it serves the project (migrations,
 * metadata, seeds on its new data directory) and runs its tests; then each change is brought over — a metadata file
 * with an error is shown at file:line:col and the engine keeps the last good metadata, a fixed one is applied, a new
 * migration is applied, an applied migration that changed is reported with the way out, a failing migration is shown
 * at its position and applied once fixed, a test file change re-runs the cases. Only on the embedded database (the
 * example's own tests cover `engine test`).
 */
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { post } from '../helpers/engine.js';
import { eventually } from '../helpers/webhook.js';
import { cli, removeTempDirs, tempDir } from './cli-helpers.js';
import { finished, run, stopAll } from './process-helpers.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/quickstart', import.meta.url));
const SECRET = 'dev-secret';
const T = 300_000;

afterAll(removeTempDirs);
afterEach(stopAll);

describe('engine dev', () => {
  it('serves the project, then applies each change of metadata/ and migrations/ and re-runs tests/', async () => {
    const dir = join(await tempDir('engine-dev-e2e-'), 'project');
    cpSync(EXAMPLE, dir, { recursive: true, filter: (src) => !src.includes('.engine') });
    const p = run(['dev', '--port', '0'], dir, { ENGINE_ADMIN_SECRET: SECRET });
    const url = await eventually(async () => /Engine listening on (http:\/\/\S+)/.exec(p.out())?.[1], 120_000, 'the listening line');
    const first = await eventually(async () => (/(\d+) passed, (\d+) failed/.exec(p.out()) ? p.out() : undefined), 120_000, 'the first test run');
    expect(first).toMatch(/21 passed, 0 failed of 21 case\(s\)/);
    expect(p.err()).toContain('Applied migration(s) 1700000000000, 1700000000001');
    expect(p.err()).toMatch(/Applied \d+ seed file\(s\) to the new database\./);
    const gql = async (query: string) => (await post(`${url}/v1/graphql`, { query }, { 'x-engine-admin-secret': SECRET })).body as { data?: Record<string, unknown>; errors?: unknown[] };
    expect((await gql('{ author(limit: 1) { id } }')).data).toBeDefined();

    // A metadata file with an error: shown at its position; the engine keeps serving the last good metadata.
    const tables = join(dir, 'metadata/tables.yaml');
    const good = readFileSync(tables, 'utf8');
    const lineCount = good.split('\n').length;
    writeFileSync(tables, `${good}- table: {schema: public, name: nosuch\n`);
    await eventually(async () => (p.err().includes('the engine keeps the last good metadata') ? true : undefined), 60_000, 'the metadata error');
    // The unclosed flow map ends with the file: the parser names the line after the last.
    expect(p.err()).toContain(`metadata/tables.yaml:${lineCount + 1}:1: error: Flow map in block collection must be sufficiently indented and end with a } [yaml-parse-error]`);
    expect((await gql('{ author(limit: 1) { id } }')).data).toBeDefined();

    // A new migration and the metadata tracking its table, fixed: both applied; the table is served.
    mkdirSync(join(dir, 'migrations/1700000000002_tag'));
    writeFileSync(join(dir, 'migrations/1700000000002_tag/up.sql'), 'CREATE TABLE tag (id serial PRIMARY KEY, name text);\n');
    writeFileSync(tables, `${good}- table:\n    schema: public\n    name: tag\n`);
    await eventually(async () => ((await gql('{ tag { id name } }')).data ? true : undefined), 120_000, 'the tag table served');
    expect(p.err()).toContain('Applied migration(s) 1700000000002');

    // An applied migration changed: said, with the way out; nothing is run.
    writeFileSync(join(dir, 'migrations/1700000000002_tag/up.sql'), 'CREATE TABLE tag (id serial PRIMARY KEY, label text);\n');
    await eventually(async () => (p.err().includes('migration 1700000000002_tag was applied and its up.sql changed') ? true : undefined), 60_000, 'the changed migration');
    expect(p.err()).toContain("run 'engine db reset' to build it again");
    expect((await gql('{ tag { name } }')).data).toEqual({ tag: [] });

    // A migration that fails: printed at its file:line:col with its SQL line; nothing else stops; fixed, it applies.
    mkdirSync(join(dir, 'migrations/1700000000003_bad'));
    writeFileSync(join(dir, 'migrations/1700000000003_bad/up.sql'), 'SELECT nosuch;\n');
    await eventually(async () => (p.err().includes('The migrations are tried again at the next change.') ? true : undefined), 60_000, 'the failed migration');
    expect(p.err()).toContain('error: migrations/1700000000003_bad/up.sql:1:8: migration 1700000000003_bad failed: query execution failed: column "nosuch" does not exist [postgres-error]');
    expect(p.err()).toContain('    SELECT nosuch;');
    writeFileSync(join(dir, 'migrations/1700000000003_bad/up.sql'), 'SELECT 1;\n');
    await eventually(async () => (p.err().includes('Applied migration(s) 1700000000003') ? true : undefined), 60_000, 'the fixed migration');

    // A failing test case is added: the cases run again and it fails with its diff.
    const runs = (p.out().match(/passed, \d+ failed of/g) ?? []).length;
    writeFileSync(join(dir, 'tests/failing.test.yaml'), 'cases:\n  - name: nobody sees a tag\n    role: admin\n    query: "{ tag { id } }"\n    expect:\n      data: {tag: [{id: 1}]}\n');
    await eventually(async () => ((p.out().match(/passed, \d+ failed of/g) ?? []).length > runs && /21 passed, 1 failed of 22/.test(p.out()) ? true : undefined), 120_000, 'the re-run');
    expect(p.out()).toContain('✗ nobody sees a tag');

    p.child.kill('SIGINT');
    expect(await finished(p, 60_000), p.err().slice(-1500)).toBe(0);
  }, T);

  it('refuses an external database before starting anything: the embedded one is what dev serves', async () => {
    const dir = join(await tempDir('engine-dev-e2e-'), 'project');
    cpSync(EXAMPLE, dir, { recursive: true, filter: (src) => !src.includes('.engine') });
    const r = await cli(['dev', '--port', '0'], { cwd: dir, env: { ENGINE_ADMIN_SECRET: SECRET, ENGINE_GRAPHQL_DATABASE_URL: 'postgres://127.0.0.1:1/none' } });
    expect(r.code, r.stderr).toBe(64);
    expect(r.stderr).toContain('engine dev runs on the embedded database; unset ENGINE_GRAPHQL_DATABASE_URL or use engine serve');
    expect(existsSync(join(dir, '.engine'))).toBe(false);
  }, T);
});
