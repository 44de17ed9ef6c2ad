/**
 * End-to-end: `engine serve` with the real bin — the embedded database, restarts, the data directory lock, ports,
 * settings and connection errors, and an external PostgreSQL when ENGINE_TEST_DATABASE_URL is set. The version and
 * help commands are in version.test.ts.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EXTERNAL_URL, post } from '../helpers/engine.js';
import { openDatabase } from '../../src/server/index.js';
import { silentLogger } from '../../src/logger.js';
import { tempDir } from './cli-helpers.js';
import { busyPort, externalDatabase, finished, run, stopAll, type Proc } from './process-helpers.js';

const PORT_REASON = 'expected an integer from 0 to 65535';

afterEach(stopAll);

// The banners below are those of a machine that has the data-directory template: built here when it has not (its
// own message is tested in serve-template.test.ts).
beforeAll(async () => {
  const opened = await openDatabase({ dataDir: join(await tempDir(), 'warm') }, silentLogger);
  await opened.db.close();
  opened.release();
}, 120_000);

/** Polls `probe` until it returns a value, failing at the deadline or when the process ends first. */
async function until<T>(p: Proc, probe: () => T | null | undefined, what: string, ms = 45_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== null && v !== undefined) return v;
    const dead = p.child.exitCode !== null || p.child.signalCode !== null;
    if (dead || Date.now() > deadline) {
      throw new Error(`${dead ? 'process ended' : 'timed out'} waiting for ${what}\nstdout: ${p.out()}\nstderr: ${p.err()}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Waits for the single JSON document of `-o json` (cli.md §3.4). */
function untilJson(p: Proc): Promise<{ url: string; warnings: unknown }> {
  return until(p, () => {
    try {
      return JSON.parse(p.out()) as { url: string; warnings: unknown };
    } catch {
      return null;
    }
  }, 'the JSON document');
}

const LISTENING = /^Engine listening on (http:\/\/127\.0\.0\.1:(\d+))$/m;
const READY = /^Ready in \d+\.\d s$/;

/** `engine serve --port 0 --data-dir <dataDir>` in text mode, resolved once it listens. */
async function serve(cwd: string, dataDir: string, extra: string[] = [], env: Record<string, string> = {}) {
  const p = run(['serve', '--port', '0', '--data-dir', dataDir, ...extra], cwd, env);
  const m = await until(p, () => LISTENING.exec(p.out()), 'the listening line');
  return { p, url: m[1] as string };
}

const q = (url: string, body: unknown, headers: Record<string, string> = {}) => post(`${url}/v1/query`, body, headers);

async function ok(url: string, body: unknown, headers: Record<string, string> = {}) {
  const r = await q(url, body, headers);
  expect(r.status, r.text).toBe(200);
  return r;
}

const noSecretWarning = (url: string) => `warning: no admin secret is set; anyone who can reach ${url} has admin access`;

describe('engine serve: embedded database', { timeout: 120_000 }, () => {
  it('text mode: banner lines, pid file, healthz and version; SIGINT stops cleanly', async () => {
    const cwd = await tempDir();
    const dataDir = join(cwd, 'data');
    const { p, url } = await serve(cwd, dataDir);
    expect(p.out()).toBe(`Engine listening on ${url}\n`);
    expect(p.lines()).toEqual([`Starting embedded PostgreSQL in ${dataDir}…`, expect.stringMatching(READY), noSecretWarning(url)]);
    expect(readFileSync(join(dataDir, 'engine.pid'), 'utf8').trim()).toBe(String(p.child.pid));
    const health = await fetch(`${url}/healthz`);
    expect([health.status, await health.text()]).toEqual([200, 'OK']);
    // No admin secret: requests without the header are admin.
    const sel = await ok(url, { type: 'run_sql', args: { sql: 'select 1 as one' } });
    expect(sel.body).toEqual({ result_type: 'TuplesOk', result: [['one'], ['1']] });

    const v = run(['version', '--endpoint', url], cwd);
    expect(await finished(v)).toBe(0);
    expect(v.out()).toBe(`cli: 0.1.0\nserver: 0.1.0 (${url})\n`);

    p.child.kill('SIGINT');
    expect(await finished(p)).toBe(0);
    expect(p.lines()).toEqual([`Starting embedded PostgreSQL in ${dataDir}…`, expect.stringMatching(READY), noSecretWarning(url), 'Engine stopped.']);
    expect(p.out()).toBe(`Engine listening on ${url}\n`);
    expect(existsSync(join(dataDir, 'engine.pid'))).toBe(false);
  });

  it('-o json prints exactly one document once listening; warnings also on stderr; SIGTERM exits 0', async () => {
    const cwd = await tempDir();
    const dataDir = join(cwd, 'data');
    // --port wins over an invalid ENGINE_GRAPHQL_SERVER_PORT (flag > environment, cli.md §2.2).
    const p = run(['serve', '--port', '0', '--data-dir', dataDir, '-o', 'json'], cwd, { ENGINE_GRAPHQL_SERVER_PORT: 'nope' });
    const doc = await untilJson(p);
    expect(doc.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const message = `no admin secret is set; anyone who can reach ${doc.url} has admin access`;
    expect(doc).toEqual({ ok: true, url: doc.url, database: 'embedded', data_dir: dataDir, warnings: [{ code: expect.any(String), message }] });
    const expected = { ok: true, url: doc.url, database: 'embedded', data_dir: dataDir, warnings: doc.warnings };
    expect(p.out()).toBe(`${JSON.stringify(expected, null, 2)}\n`);
    expect(p.lines()).toContain(`warning: ${message}`);
    expect((await fetch(`${doc.url}/v1/version`)).status).toBe(200);

    p.child.kill('SIGTERM');
    expect(await finished(p)).toBe(0);
    expect(p.lines().at(-1)).toBe('Engine stopped.');
    expect(p.out()).toBe(`${JSON.stringify(expected, null, 2)}\n`);
    expect(existsSync(join(dataDir, 'engine.pid'))).toBe(false);
  });

  it('--admin-secret: no warning; requests without the header get 401', async () => {
    const cwd = await tempDir();
    const dataDir = join(cwd, 'data');
    const { p, url } = await serve(cwd, dataDir, ['--admin-secret', 's3cret']);
    expect(p.lines()).toEqual([`Starting embedded PostgreSQL in ${dataDir}…`, expect.stringMatching(READY)]);
    const body = { type: 'export_metadata', args: {} };
    const none = await q(url, body);
    expect(none.status).toBe(401);
    expect(none.text).toBe('{"path":"$","error":"x-engine-admin-secret required, but not found","code":"access-denied"}');
    const wrong = await q(url, body, { 'x-engine-admin-secret': 'nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toBe('{"path":"$","error":"invalid x-engine-admin-secret","code":"access-denied"}');
    const good = await ok(url, body, { 'x-engine-admin-secret': 's3cret' });
    expect(good.body).toEqual({ version: 2, tables: [] });
    p.child.kill('SIGTERM');
    expect(await finished(p)).toBe(0);
    expect(p.err()).not.toContain('s3cret');
  });


  it("the incumbent's HASURA_GRAPHQL_* variables (environment and .env) stand in for the engine's, listed once at start", async () => {
    const cwd = await tempDir();
    const dataDir = join(cwd, 'data');
    writeFileSync(join(cwd, '.env'), 'HASURA_GRAPHQL_ADMIN_SECRET=from-env-file\n');
    const p = run(['serve', '--port', '0'], cwd, { HASURA_GRAPHQL_DATA_DIR: dataDir, HASURA_GRAPHQL_UNAUTHORIZED_ROLE: 'anonymous' });
    const url = (await until(p, () => LISTENING.exec(p.out()), 'the listening line'))[1] as string;
    expect(p.lines()).toEqual([
      "Using the incumbent's variables: HASURA_GRAPHQL_DATA_DIR for ENGINE_GRAPHQL_DATA_DIR, HASURA_GRAPHQL_ADMIN_SECRET for " +
        'ENGINE_GRAPHQL_ADMIN_SECRET, HASURA_GRAPHQL_UNAUTHORIZED_ROLE for ENGINE_GRAPHQL_UNAUTHORIZED_ROLE',
      `Starting embedded PostgreSQL in ${dataDir}…`, expect.stringMatching(READY),
    ]);
    const body = { type: 'export_metadata', args: {} };
    // Without the secret a request is the unauthorized role's, which the metadata API refuses.
    const anonymous = await q(url, body);
    expect([anonymous.status, (anonymous.body as { code: string }).code]).toEqual([400, 'access-denied']);
    await ok(url, body, { 'x-engine-admin-secret': 'from-env-file' });
    p.child.kill('SIGTERM');
    expect(await finished(p)).toBe(0);
  });
  it('restart on the same data directory keeps metadata and data', async () => {
    const cwd = await tempDir();
    const dataDir = join(cwd, 'data');
    const first = await serve(cwd, dataDir);
    await ok(first.url, { type: 'run_sql', args: { sql: "create table note (id int primary key, body text); insert into note values (1, 'a'), (2, 'b')" } });
    await ok(first.url, { type: 'track_table', args: { table: 'note' } });
    const before = await ok(first.url, { type: 'export_metadata', args: {} });
    expect(before.body).toEqual({ version: 2, tables: [{ table: { schema: 'public', name: 'note' } }] });
    expect(before.headers.get('x-engine-resource-version')).toBe('2');
    first.p.child.kill('SIGTERM');
    expect(await finished(first.p)).toBe(0);
    expect(existsSync(join(dataDir, 'engine.pid'))).toBe(false);

    const second = await serve(cwd, dataDir);
    // A clean restart takes over no lock: no warning besides the admin-secret one.
    expect(second.p.lines()).toEqual([`Starting embedded PostgreSQL in ${dataDir}…`, expect.stringMatching(READY), noSecretWarning(second.url)]);
    const after = await ok(second.url, { type: 'export_metadata', args: {} });
    expect(after.text).toBe(before.text);
    expect(after.headers.get('x-engine-resource-version')).toBe('2');
    const rows = await ok(second.url, { type: 'run_sql', args: { sql: 'select id, body from note order by id' } });
    expect(rows.body).toEqual({ result_type: 'TuplesOk', result: [['id', 'body'], ['1', 'a'], ['2', 'b']] });
    second.p.child.kill('SIGTERM');
    expect(await finished(second.p)).toBe(0);
  });

  it('a second engine on a data directory in use fails with data-dir-locked; the first keeps running', async () => {
    const cwd = await tempDir();
    const dataDir = join(cwd, 'data');
    const first = await serve(cwd, dataDir);
    const second = run(['serve', '--port', '0', '--data-dir', dataDir], cwd);
    expect(await finished(second)).toBe(1);
    expect(second.out()).toBe('');
    expect(second.lines()).toContain(`error: data directory ${dataDir} is in use by another engine (pid ${first.p.child.pid})`);
    expect(second.err()).not.toContain('Engine listening');
    expect(readFileSync(join(dataDir, 'engine.pid'), 'utf8').trim()).toBe(String(first.p.child.pid));
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200);

    const json = run(['serve', '--port', '0', '--data-dir', dataDir, '-o', 'json'], cwd);
    expect(await finished(json)).toBe(1);
    expect(JSON.parse(json.out())).toEqual({
      ok: false,
      error: { code: 'data-dir-locked', message: `data directory ${dataDir} is in use by another engine (pid ${first.p.child.pid})` },
    });
    first.p.child.kill('SIGTERM');
    expect(await finished(first.p)).toBe(0);
  });

  it('a stale engine.pid (dead process) is taken over with a warning', async () => {
    const cwd = await tempDir();
    const dataDir = join(cwd, 'data');
    const dead = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    const deadPid = dead.pid as number;
    await new Promise<void>((resolve) => dead.on('close', () => resolve()));
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'engine.pid'), `${deadPid}\n`);
    // With an admin secret, the only warning left is the takeover.
    const { p, url } = await serve(cwd, dataDir, ['--admin-secret', 'x']);
    const warnings = p.lines().filter((l) => l.startsWith('warning: '));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(String(deadPid));
    expect(readFileSync(join(dataDir, 'engine.pid'), 'utf8').trim()).toBe(String(p.child.pid));
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    p.child.kill('SIGTERM');
    expect(await finished(p)).toBe(0);
    expect(existsSync(join(dataDir, 'engine.pid'))).toBe(false);
  });

  it('port in use: port-in-use with a hint, exit 1', async () => {
    const cwd = await tempDir();
    const port = await busyPort();
    const p = run(['serve', '--port', String(port), '--data-dir', join(cwd, 'data')], cwd);
    expect(await finished(p)).toBe(1);
    expect(p.out()).toBe('');
    const lines = p.lines();
    expect(lines.slice(-2)).toEqual([`error: cannot listen on 127.0.0.1:${port}: address already in use`, 'hint: choose another --port']);
    expect(p.err()).not.toContain('no admin secret');
  });
});

describe('engine serve: settings and connection errors', () => {
  it('--port abc is invalid-flag-value (exit 64), in text and JSON mode', async () => {
    const cwd = await tempDir();
    const message = `invalid value "abc" for --port: ${PORT_REASON}`;
    const p = run(['serve', '--port', 'abc', '--data-dir', join(cwd, 'data')], cwd);
    expect(await finished(p)).toBe(64);
    expect(p.err()).toBe(`error: ${message}\n`);
    expect(p.out()).toBe('');
    const j = run(['serve', '--port', '65536', '-o', 'json', '--data-dir', join(cwd, 'data')], cwd);
    expect(await finished(j)).toBe(64);
    expect(j.out()).toBe(`${JSON.stringify({ ok: false, error: { code: 'invalid-flag-value', message: `invalid value "65536" for --port: ${PORT_REASON}` } }, null, 2)}\n`);
    expect(existsSync(join(cwd, 'data'))).toBe(false);
  });

  it('an invalid ENGINE_GRAPHQL_SERVER_PORT (environment or .env) is config-invalid, exit 1', async () => {
    const cwd = await tempDir();
    const message = `error: invalid value for "port" from ENGINE_GRAPHQL_SERVER_PORT: ${PORT_REASON}\n`;
    const p = run(['serve', '--data-dir', join(cwd, 'data')], cwd, { ENGINE_GRAPHQL_SERVER_PORT: '70000' });
    expect(await finished(p)).toBe(1);
    expect(p.err()).toBe(message);
    writeFileSync(join(cwd, '.env'), 'ENGINE_GRAPHQL_SERVER_PORT=70000\n');
    const e = run(['serve', '--data-dir', join(cwd, 'data')], cwd);
    expect(await finished(e)).toBe(1);
    expect(e.err()).toBe(message);
    expect(existsSync(join(cwd, 'data'))).toBe(false);
  });

  it('an unreachable --database-url is database-connect-failed with the password masked', async () => {
    const cwd = await tempDir();
    const p = run(['serve', '--port', '0', '--database-url', 'postgres://postgres:pw@127.0.0.1:1/x'], cwd);
    expect(await finished(p)).toBe(1);
    expect(p.out()).toBe('');
    const last = p.lines().at(-1) ?? '';
    expect(last.startsWith('error: cannot connect to the database at postgres://postgres:***@127.0.0.1:1/x: ')).toBe(true);
    expect(last.length).toBeGreaterThan('error: cannot connect to the database at postgres://postgres:***@127.0.0.1:1/x: '.length);
    expect(p.err()).not.toContain(':pw@');
    // The embedded database is not used with a URL, nor said to be started.
    expect(existsSync(join(cwd, '.engine'))).toBe(false);
    expect(p.err()).not.toContain('embedded');
  });

  it('a password in the query string is masked too, in the log line and the error (issue 11 item 7)', async () => {
    const cwd = await tempDir();
    const url = 'postgres://postgres@127.0.0.1:1/x?sslmode=disable&password=Qu3ry-pw&sslpassword=K3y-pw';
    const p = run(['serve', '--port', '0', '--database-url', url], cwd);
    expect(await finished(p)).toBe(1);
    const shown = 'postgres://postgres@127.0.0.1:1/x?sslmode=disable&password=***&sslpassword=***';
    expect(p.err()).toContain(`Using PostgreSQL at ${shown}`);
    expect(p.lines().at(-1)).toMatch(new RegExp(`^error: cannot connect to the database at ${shown.replace(/[?*.]/g, '\\$&')}: .+`));
    expect(p.err()).not.toContain('Qu3ry-pw');
    expect(p.err()).not.toContain('K3y-pw');
  });

  it.skipIf(!EXTERNAL_URL)('--database-url to a real server: external database, -o json, SIGTERM', async () => {
    const dbUrl = await externalDatabase('engine_serve');
    const u = new URL(dbUrl);
    const masked = u.password ? dbUrl.replace(`:${u.password}@`, ':***@') : dbUrl;
    const cwd = await tempDir();
    const p = run(['serve', '--port', '0', '--database-url', dbUrl, '-o', 'json'], cwd);
    const doc = await untilJson(p);
    expect(doc).toEqual({
      ok: true, url: doc.url, database: 'external', data_dir: null,
      warnings: [{ code: expect.any(String), message: `no admin secret is set; anyone who can reach ${doc.url} has admin access` }],
    });
    expect(p.lines()[0]).toBe(`Using PostgreSQL at ${masked}`);
    await ok(doc.url, { type: 'run_sql', args: { sql: 'create table t (id int)' } });
    const tracked = await ok(doc.url, { type: 'track_table', args: 't' });
    expect(tracked.headers.get('x-engine-resource-version')).toBe('2');
    // The write reached the external database itself.
    const c = new pg.Client({ connectionString: dbUrl });
    await c.connect();
    const row = await c.query<{ resource_version: number }>('SELECT resource_version FROM engine_catalog.metadata');
    await c.end();
    expect(row.rows).toEqual([{ resource_version: 2 }]);
    p.child.kill('SIGTERM');
    expect(await finished(p)).toBe(0);
    expect(p.lines().at(-1)).toBe('Engine stopped.');
    expect(existsSync(join(cwd, '.engine'))).toBe(false);
  });
});
