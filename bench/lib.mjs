// Shared benchmark plumbing: an engine on each database, timing, and figures printed as ratios.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PgliteDatabase } from '../dist/db/pglite.js';
import { PostgresDatabase } from '../dist/db/postgres.js';
import { Engine } from '../dist/server/engine.js';
import { createHttpServer, listen } from '../dist/server/http.js';
import { silentLogger } from '../dist/logger.js';

export const EXTERNAL_URL = process.env.ENGINE_TEST_DATABASE_URL || process.env.ENGINE_BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

/** Starts an engine over HTTP on the named database kind; `close` drops everything it created. */
export async function benchEngine(kind) {
  let db;
  let drop = async () => {};
  if (kind === 'pglite') {
    db = await PgliteDatabase.open(undefined);
  } else {
    const name = `engine_bench_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: EXTERNAL_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    const u = new URL(EXTERNAL_URL);
    u.pathname = `/${name}`;
    db = await PostgresDatabase.connect(u.toString());
    drop = async () => {
      const c = new pg.Client({ connectionString: EXTERNAL_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    };
  }
  const engine = await Engine.start(db, silentLogger);
  const server = createHttpServer(engine, { logger: silentLogger });
  const addr = await listen(server, 0, '127.0.0.1');
  const url = `http://127.0.0.1:${addr.port}/v1/query`;
  return {
    engine,
    db,
    /** The engine's base URL (what a project's config.yaml names as `endpoint`). */
    baseUrl: `http://127.0.0.1:${addr.port}`,
    async query(body) {
      const res = await fetch(url, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body) });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${text.slice(0, 300)}`);
      return { text, version: res.headers.get('x-engine-resource-version') };
    },
    async close() {
      await new Promise((r) => server.close(() => r()));
      server.closeAllConnections();
      await db.close();
      await drop();
    },
  };
}

export async function time(fn) {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

export const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
export const fmt = (ms) => `${ms.toFixed(ms < 10 ? 2 : 0)} ms`;

/** One result line: the figure, its goal, and their ratio (≤ 1.00 meets the goal). */
export function report(label, ms, goalMs) {
  const ratio = ms / goalMs;
  console.log(`${label.padEnd(52)} p50 ${fmt(ms).padStart(10)}   goal ${fmt(goalMs).padStart(8)}   ratio ${ratio.toFixed(2)} ${ratio <= 1 ? 'ok' : 'OVER'}`);
  return ratio;
}

/** n tables t0…t(n-1), each with parent_id referencing the previous one (cyclically). */
export function schemaSql(n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(`CREATE TABLE t${i} (id integer PRIMARY KEY, parent_id integer, name text)`);
  for (let i = 0; i < n; i++) out.push(`ALTER TABLE t${i} ADD FOREIGN KEY (parent_id) REFERENCES t${(i + n - 1) % n}(id)`);
  return out.join(';\n');
}

/** The metadata of schemaSql(n): every table with an object relationship "parent" and an array one "children". */
export function metadataDoc(n) {
  const q = (i) => ({ schema: 'public', name: `t${i}` });
  return {
    version: 2,
    tables: Array.from({ length: n }, (_, i) => ({
      table: q(i),
      object_relationships: [{ name: 'parent', using: { foreign_key_constraint_on: 'parent_id' } }],
      array_relationships: [{ name: 'children', using: { foreign_key_constraint_on: { table: q((i + 1) % n), column: 'parent_id' } } }],
    })),
  };
}
