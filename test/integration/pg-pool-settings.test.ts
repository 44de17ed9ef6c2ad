import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import type { PoolSettings } from '../../src/db/postgres-config.js';
import { EXTERNAL_URL } from '../helpers/engine.js';

/**
 * Issue 31 point 7: the pool of an external PostgreSQL (size, acquire timeout, idle timeout, lifetime), seen from the
 * server's pg_stat_activity. A database of its own on the shared server; none of the server's settings is changed.
 */

const SERVER = EXTERNAL_URL ?? '';
if (!EXTERNAL_URL) console.log('pool settings tests skipped: they need an external PostgreSQL (ENGINE_TEST_DATABASE_URL)');
const name = `engine_pool_${randomBytes(5).toString('hex')}`;
const url = (() => {
  if (!SERVER) return '';
  const u = new URL(SERVER);
  u.pathname = `/${name}`;
  return u.toString();
})();

let admin: pg.Client;
let server: RunningServer | undefined;

async function until(what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Connections of the test database whose last statement mentions `marker`, and how many of them are running it. */
async function backends(marker: string): Promise<{ all: number; active: number }> {
  const r = await admin.query<{ all: number; active: number }>(
    "SELECT count(*)::int AS all, (count(*) FILTER (WHERE state = 'active'))::int AS active FROM pg_stat_activity WHERE datname = $1 AND query LIKE $2 AND pid <> pg_backend_pid()",
    [name, `%${marker}%`]);
  return r.rows[0] as { all: number; active: number };
}

async function post(path: string, body: unknown): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await fetch(`${server?.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

async function serve(pool: PoolSettings): Promise<void> {
  server = await startServer({ databaseUrl: url, pool, port: 0, host: '127.0.0.1', logger: silentLogger });
}

describe.skipIf(!EXTERNAL_URL)('the pool settings of an external PostgreSQL', () => {
  beforeAll(async () => {
    admin = new pg.Client({ connectionString: SERVER });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query('CREATE VIEW slow_marker AS SELECT pg_sleep(0.3)::text AS s; CREATE VIEW busy_marker AS SELECT 1 AS one; CREATE TABLE busy_item (id serial PRIMARY KEY); CREATE VIEW idle_marker AS SELECT 1 AS one; CREATE VIEW old_marker AS SELECT 2 AS two');
    await c.end();
  });

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  afterAll(async () => {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  });

  const track = (table: string) => post('/v1/query', { type: 'track_table', args: { table } });

  it('opens at most --pg-connections connections for concurrent requests', async () => {
    await serve({ max: 2 });
    expect((await track('slow_marker')).status).toBe(200);
    let most = 0;
    const requests = Promise.all([1, 2, 3, 4, 5, 6].map(() => post('/v1/graphql', { query: '{ slow_marker { s } }' })));
    let done = false;
    void requests.finally(() => {
      done = true;
    });
    while (!done) {
      most = Math.max(most, (await backends('slow_marker')).active);
    }
    for (const r of await requests) expect(r.body.errors).toBeUndefined();
    expect(most).toBe(2);
  });

  it('answers database-busy when no connection is free within --pg-pool-timeout, and nothing ran', async () => {
    await serve({ max: 1, acquireTimeoutMs: 1000 });
    expect((await track('busy_marker')).status).toBe(200);
    expect((await track('busy_item')).status).toBe(200);
    // The pool's one connection waits for a lock the test holds (advisory locks are per database).
    const locker = new pg.Client({ connectionString: url });
    await locker.connect();
    await locker.query('SELECT pg_advisory_lock(8131)');
    let held: Promise<unknown> | undefined;
    try {
      const waiting = post('/v1/query', { type: 'run_sql', args: { sql: 'SELECT pg_advisory_lock(8131), pg_advisory_unlock(8131), 8131 AS held_marker' } });
      held = waiting;
      await until('the pool\'s connection waits for the lock', async () => (await backends('held_marker')).active === 1);
      const q = await post('/v1/graphql', { query: '{ busy_marker { one } }' });
      expect(q).toEqual({ status: 200, body: { errors: [{ message: 'no database connection was free within the pool timeout of 1 s', extensions: { path: '$', code: 'database-busy' } }] } });
      const m = await post('/v1/graphql', { query: 'mutation { insert_busy_item_one(object: {}) { id } }' });
      expect(m.body.errors).toEqual([{ message: 'no database connection was free within the pool timeout of 1 s', extensions: { path: '$', code: 'database-busy' } }]);
      // The metadata API answers the same error in its envelope, HTTP 503 (issue 31), not an internal error.
      const md = await post('/v1/query', { type: 'export_metadata', args: {} });
      expect(md).toEqual({ status: 503, body: { path: '$', error: 'no database connection was free within the pool timeout of 1 s', code: 'database-busy' } });
    } finally {
      await locker.end();
    }
    expect((await held)).toMatchObject({ status: 200 });
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    expect((await c.query('SELECT count(*)::int AS n FROM busy_item')).rows).toEqual([{ n: 0 }]);
    await c.end();
  });

  /** The pool's connections now: the database's backends but the workers' sessions (which LISTEN). */
  const pooled = async (): Promise<number[]> => (await admin.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend' AND query NOT LIKE 'LISTEN%'", [name])).rows.map((r) => r.pid);
  const gone = async (pids: number[]): Promise<boolean> => (await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = ANY($1)', [pids])).rows.length === 0;

  it('closes a connection idle for --pg-timeout', async () => {
    await serve({ idleTimeoutMs: 200, lifetimeMs: 0 });
    expect((await track('idle_marker')).status).toBe(200);
    expect((await post('/v1/graphql', { query: '{ idle_marker { one } }' })).body.errors).toBeUndefined();
    const pids = await pooled();
    expect(pids.length).toBeGreaterThan(0);
    await until('the idle connections are closed', () => gone(pids));
  });

  it('closes a connection older than --pg-conn-lifetime, even when it is never idle for long', async () => {
    await serve({ idleTimeoutMs: 0, lifetimeMs: 1000 });
    expect((await track('old_marker')).status).toBe(200);
    expect((await post('/v1/graphql', { query: '{ old_marker { two } }' })).body.errors).toBeUndefined();
    const pids = await pooled();
    expect(pids.length).toBeGreaterThan(0);
    await until('the old connections are closed', () => gone(pids));
  });
});
