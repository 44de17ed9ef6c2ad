import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresDatabase } from '../../src/db/postgres.js';
import { silentLogger } from '../../src/logger.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { EXTERNAL_URL } from '../helpers/engine.js';
import { freePort, postgresDir } from '../helpers/pg-cluster.js';

/**
 * Issue 31 point 7: `--no-prepared-statements` behind a real PgBouncer in transaction mode, in front of the shared
 * server at 127.0.0.1:5432 (a database of its own, no setting of the server changed). The pooler has ONE server
 * connection for all of the engine's: a named statement prepared by one engine connection is seen by the others, and a
 * session setting outlives the transaction that made it.
 */

const PGBOUNCER = '/usr/sbin/pgbouncer';
const SERVER = EXTERNAL_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const missing = !existsSync(PGBOUNCER) ? `${PGBOUNCER} is missing (apt-get install -y pgbouncer)`
  : process.getuid?.() !== 0 ? 'PgBouncer is started as the postgres user: the test must run as root' : null;
if (missing) console.log(`PgBouncer tests skipped: ${missing}`);

/** Resolves once something accepts connections on the port, or rejects after the deadline. */
async function waitForPort(port: number, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1', () => {
        s.end();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`PgBouncer did not start: ${log()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(missing !== null)('the engine behind PgBouncer in transaction mode', () => {
  const name = `engine_pgb_${randomBytes(5).toString('hex')}`;
  let dir: string;
  let bouncer: ChildProcess;
  let bouncerUrl: string;
  let server: RunningServer | undefined;
  let stderr = '';

  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: SERVER });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    dir = postgresDir('engine-pgbouncer-');
    const port = await freePort();
    const server = new URL(SERVER);
    writeFileSync(join(dir, 'userlist.txt'), '"postgres" ""\n');
    writeFileSync(join(dir, 'pgbouncer.ini'), [
      '[databases]', `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]', 'listen_addr = 127.0.0.1', `listen_port = ${port}`, "unix_socket_dir = ''",
      'auth_type = trust', `auth_file = ${join(dir, 'userlist.txt')}`, `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      'pool_mode = transaction', 'default_pool_size = 1', 'max_client_conn = 100', 'ignore_startup_parameters = extra_float_digits,options',
    ].join('\n'));
    bouncer = spawn('runuser', ['-u', 'postgres', '--', PGBOUNCER, join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'ignore', 'pipe'] });
    bouncer.stderr?.on('data', (d: Buffer) => void (stderr += d.toString()));
    await waitForPort(port, bouncer, () => stderr);
    bouncerUrl = `postgres://postgres@127.0.0.1:${port}/${name}`;
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    if (!dir) return;
    const pidFile = join(dir, 'pgbouncer.pid');
    if (existsSync(pidFile)) {
      try {
        process.kill(Number(readFileSync(pidFile, 'utf8').trim()), 'SIGTERM');
      } catch {
        // Gone already.
      }
    }
    if (bouncer && bouncer.exitCode === null) await new Promise((r) => bouncer.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
    const admin = new pg.Client({ connectionString: SERVER });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  });

  /** The same named statement from four connections at once, as GraphQL requests of one document send it. */
  const fourAtOnce = (db: PostgresDatabase) => Promise.allSettled([1, 2, 3, 4].map((i) =>
    db.batch([{ sql: 'SELECT $1::int AS v', params: [i], name: 'engine_pgbouncer_probe' }], { utc: true, commitWith: true })));

  it('fails with prepared statements (the control): the pooler hands another connection\'s statement to the next', async () => {
    const db = await PostgresDatabase.connect(bouncerUrl, { max: 4 });
    try {
      const results = await fourAtOnce(db);
      const reasons = results.flatMap((r) => (r.status === 'rejected' ? [String((r.reason as Error).message)] : []));
      expect(reasons.length).toBeGreaterThan(0);
      expect(reasons[0]).toMatch(/prepared statement "engine_pgbouncer_probe" (already exists|does not exist)/);
    } finally {
      await db.close();
    }
  });

  it('works without them, and leaves no session setting behind', async () => {
    const db = await PostgresDatabase.connect(bouncerUrl, { max: 4, preparedStatements: false, statementTimeoutMs: 45_000 });
    try {
      const results = await fourAtOnce(db);
      expect(results.map((r) => (r.status === 'fulfilled' ? r.value : String(r.reason)))).toEqual([1, 2, 3, 4].map((v) => [[{ v }]]));
      // The one server session the pooler has: GraphQL work's time zone and time limit were the transactions' own.
      expect(await db.query('SHOW statement_timeout')).toEqual([{ statement_timeout: '0' }]);
    } finally {
      await db.close();
    }
  });

  it('serves GraphQL queries and mutations through it with --no-prepared-statements', async () => {
    server = await startServer({ databaseUrl: bouncerUrl, pool: { max: 4, preparedStatements: false }, port: 0, host: '127.0.0.1', logger: silentLogger });
    const post = async (path: string, body: unknown): Promise<any> => { // eslint-disable-line @typescript-eslint/no-explicit-any
      const res = await fetch(`${server?.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status).toBe(200);
      return res.json();
    };
    await post('/v1/query', { type: 'bulk', args: [
      { type: 'run_sql', args: { sql: "CREATE TABLE item (id serial PRIMARY KEY, at timestamptz NOT NULL DEFAULT '2024-01-02 03:04:05+02')" } },
      { type: 'track_table', args: { table: 'item' } },
    ] });
    const inserts = await Promise.all([1, 2, 3, 4, 5, 6].map(() => post('/v1/graphql', { query: 'mutation { insert_item_one(object: {}) { id } }' })));
    expect(inserts.every((r) => r.errors === undefined)).toBe(true);
    const reads = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map(() => post('/v1/graphql', { query: '{ item(limit: 1) { at } item_aggregate { aggregate { count } } }' })));
    for (const r of reads) expect(r).toEqual({ data: { item: [{ at: '2024-01-02T01:04:05+00:00' }], item_aggregate: { aggregate: { count: 6 } } } });
    // No session setting of GraphQL work reached the server session that run_sql gets next.
    const shown = await post('/v1/query', { type: 'run_sql', args: { sql: 'SHOW statement_timeout' } });
    expect(shown.result).toEqual([['statement_timeout'], ['0']]);
  });
});
