import type { Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { PgliteWorkerDatabase } from '../../src/db/pglite-remote.js';
import { silentLogger } from '../../src/logger.js';
import { Engine } from '../../src/server/engine.js';
import { createHttpServer, listen } from '../../src/server/http/index.js';
import { GraphqlService } from '../../src/server/graphql/service.js';
import { createTestDatabase, EXTERNAL_URL, post } from '../helpers/engine.js';
import { eventually } from '../helpers/webhook.js';

// Issue 28: a GraphQL request has a time limit; its statement is cancelled when the limit passes or the client goes
// away, and the engine answers other requests meanwhile. On PGlite the engine's database runs in a worker thread
// (src/db/pglite-remote.ts, which needs `npm run build`: the worker is dist/db/pglite-worker.js).

const LIMIT_S = 5;
const SLEEP_S = 60;

describe(`a GraphQL request's time limit (${EXTERNAL_URL ? 'PostgreSQL' : 'PGlite in a worker'})`, () => {
  let db: Database;
  let drop: () => Promise<void> = async () => {};
  let dir: string | null = null;
  const servers: Server[] = [];
  /** With the time limit, and without any (only a disconnect cancels there). */
  let limited: string;
  let unlimited: string;

  beforeAll(async () => {
    if (EXTERNAL_URL) {
      const t = await createTestDatabase();
      db = t.db;
      drop = t.drop;
    } else {
      dir = mkdtempSync(join(tmpdir(), 'engine-timeout-'));
      db = await PgliteWorkerDatabase.open(join(dir, 'data'));
    }
    const engine = await Engine.start(db, silentLogger);
    const logger = { ...silentLogger, error: (m: string) => console.error(m) };
    for (const ms of [LIMIT_S * 1000, 0]) {
      const server = createHttpServer(engine, { logger, graphql: new GraphqlService(engine, process.env, false, undefined, undefined, ms) });
      servers.push(server);
      const addr = await listen(server, 0, '127.0.0.1');
      if (ms > 0) limited = `http://127.0.0.1:${addr.port}`;
      else unlimited = `http://127.0.0.1:${addr.port}`;
    }
    const sql = (s: string) => post(`${limited}/v1/query`, { type: 'run_sql', args: { sql: s } });
    await sql(`CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1);
      CREATE VIEW slow AS SELECT 1 AS id FROM pg_sleep(${SLEEP_S});
      CREATE TABLE w (id int PRIMARY KEY);
      CREATE FUNCTION w_slow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(${SLEEP_S}); RETURN NEW; END $$;
      CREATE TRIGGER w_slow BEFORE INSERT ON w FOR EACH ROW EXECUTE FUNCTION w_slow();`);
    for (const table of ['t', 'slow', 'w']) {
      const r = await post(`${limited}/v1/query`, { type: 'track_table', args: { table } });
      expect(r.status, r.text).toBe(200);
    }
  }, 120_000);

  afterAll(async () => {
    for (const s of servers) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
    await db?.close();
    await drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const gql = (url: string, query: string, signal?: AbortSignal) =>
    fetch(`${url}/v1/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }), signal });

  /** Statements running pg_sleep on the server, other than the asking one (PostgreSQL only). */
  const sleeping = async () => (await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'PgSleep'",
  ))[0]?.n ?? 0;

  it('a query over the limit answers a timeout error (HTTP 200); /healthz and /v1/version are answered meanwhile', async () => {
    let settled = false;
    const slow = gql(limited, '{ slow { id } }').then(async (r) => {
      settled = true;
      return { status: r.status, body: await r.json() };
    });
    const health = await eventually(async () => {
      const r = await fetch(`${limited}/healthz`);
      return r.status === 200 ? r.text() : undefined;
    }, 30_000, '/healthz');
    const version = await fetch(`${limited}/v1/version`);
    expect(health).toBe('OK');
    expect(version.status).toBe(200);
    // Both answered while the long statement still ran.
    expect(settled).toBe(false);
    const r = await slow;
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      errors: [{ message: `the operation took longer than the time limit of ${LIMIT_S} s and was cancelled`, extensions: { path: '$', code: 'timeout' } }],
    });
    // The engine answers from the database at once after it.
    const next = await gql(limited, '{ t { id } }');
    expect(await next.json()).toEqual({ data: { t: [{ id: 1 }] } });
    if (EXTERNAL_URL) expect(await sleeping()).toBe(0);
  }, 120_000);

  it('a mutation over the limit answers a timeout error and writes nothing', async () => {
    const r = await gql(limited, 'mutation { insert_w_one(object: {id: 1}) { id } }');
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({
      errors: [{ message: `the operation took longer than the time limit of ${LIMIT_S} s and was cancelled`, extensions: { path: '$', code: 'timeout' } }],
    });
    expect(await db.query('SELECT id FROM w')).toEqual([]);
    if (EXTERNAL_URL) expect(await sleeping()).toBe(0);
  }, 120_000);

  it('a client that goes away cancels its statement', async () => {
    const gone = new AbortController();
    const slow = gql(unlimited, '{ slow { id } }', gone.signal).catch((e: unknown) => e);
    // The statement runs: on PostgreSQL it is in pg_stat_activity; the embedded worker is busy with it.
    await eventually(async () => (EXTERNAL_URL ? (await sleeping()) > 0 : (db as PgliteWorkerDatabase).running), 30_000, 'the statement to run');
    gone.abort();
    expect(await slow).toBeInstanceOf(Error);
    if (EXTERNAL_URL) {
      await eventually(async () => (await sleeping()) === 0, (SLEEP_S / 2) * 1000, 'the statement to be cancelled');
    } else {
      // Well before the statement would have ended, the database answers again.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('the database still runs the cancelled statement')), (SLEEP_S / 2) * 1000);
      });
      try {
        expect(await Promise.race([db.query('SELECT 1 AS one'), late])).toEqual([{ one: 1 }]);
      } finally {
        clearTimeout(timer);
      }
    }
    const next = await gql(unlimited, '{ t { id } }');
    expect(await next.json()).toEqual({ data: { t: [{ id: 1 }] } });
  }, 120_000);
});
