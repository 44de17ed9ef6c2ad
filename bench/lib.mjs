// Shared benchmark plumbing: an engine on each database, timing, figures as rows {group, figure, database, value,
// goal, ratio, pass} and the table they are printed in.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { PgliteDatabase } from '../dist/db/pglite.js';
import { maskUrl } from '../dist/db/database.js';
import { PostgresDatabase } from '../dist/db/postgres.js';
import { Engine } from '../dist/server/engine.js';
import { createHttpServer, listen } from '../dist/server/http/index.js';
import { silentLogger } from '../dist/logger.js';

export const EXTERNAL_URL = process.env.ENGINE_TEST_DATABASE_URL || process.env.ENGINE_BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

/** A new database on the external PostgreSQL, with its URL and `drop` (which ends its connections). */
export async function createBenchDatabase() {
  const name = `engine_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: EXTERNAL_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const u = new URL(EXTERNAL_URL);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: EXTERNAL_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * The databases a benchmark runs on: 'pglite' is PGlite on a data directory, as `engine serve` runs it (issue 18);
 * 'pglite-memory' in memory, an extra column (`BENCH_PGLITE_MEMORY=1`); 'postgres' the external server.
 */
export const DATABASE_LABELS = { pglite: 'PGlite (data dir)', 'pglite-memory': 'PGlite (memory)', postgres: 'postgres' };

/**
 * Starts an engine over HTTP on the named database kind (see DATABASE_LABELS; PGlite in `opts.dataDir` when given,
 * else in a temporary data directory); `close` drops everything it created. `dbUrl` is the external database's URL
 * (for more connections to it).
 */
export async function benchEngine(kind, opts = {}) {
  let db;
  let drop = async () => {};
  let dbUrl = null;
  if (kind === 'pglite') {
    const dir = opts.dataDir ? null : mkdtempSync(join(tmpdir(), 'engine-bench-data-'));
    db = await PgliteDatabase.open(opts.dataDir ?? join(dir, 'data'));
    if (dir) drop = async () => rmSync(dir, { recursive: true, force: true });
  } else if (kind === 'pglite-memory') {
    db = await PgliteDatabase.open(undefined);
  } else {
    const fresh = await createBenchDatabase();
    dbUrl = fresh.url;
    db = await PostgresDatabase.connect(dbUrl);
    drop = fresh.drop;
  }
  const engine = await Engine.start(db, silentLogger);
  const server = createHttpServer(engine, { logger: silentLogger });
  const addr = await listen(server, 0, '127.0.0.1');
  const url = `http://127.0.0.1:${addr.port}/v1/query`;
  return {
    engine,
    db,
    dbUrl,
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

/** The median (the mean of the middle two for an even count). */
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
export const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
export const fmt = (ms) => `${ms.toFixed(ms < 10 ? 2 : ms < 100 ? 1 : 0)} ms`;
/** 1000 → "1,000". */
export const count = (n) => n.toLocaleString('en-US');

const started = process.hrtime.bigint();
/** Progress goes to stderr, so that stdout holds only the table. */
export function progress(msg) {
  const s = Number(process.hrtime.bigint() - started) / 1e9;
  process.stderr.write(`[bench ${s.toFixed(0).padStart(4)} s] ${msg}\n`);
}

/** Quick mode (`--quick` or BENCH_QUICK=1): smaller sizes and fewer runs, a smoke check of the benchmarks. */
export const QUICK = process.argv.includes('--quick') || ['1', 'true', 'yes'].includes(process.env.BENCH_QUICK ?? '');

const goalText = (ms) => (ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`);

/** A figure against its goal: ratio = value / goal (≤ 1 meets it). */
export function goalRow(group, figure, database, value, goalMs) {
  return { group, figure, database, value, goal: `≤ ${goalText(goalMs)}`, ratio: value / goalMs, pass: value <= goalMs };
}

/**
 * A comparison of `value` with `base` (the figure names them in that order): ratio = value / base. The goal says what
 * is judged (`pass`, or null when the comparison is information only).
 */
export function compareRow(group, figure, database, value, base, goal, pass) {
  return { group, figure, database, value, base, goal, ratio: value / base, pass, comparison: true };
}

/** Is the external PostgreSQL there? Unreachable is an error only when a URL was given explicitly. */
export async function externalDatabase() {
  const explicit = Boolean(process.env.ENGINE_TEST_DATABASE_URL || process.env.ENGINE_BENCH_DATABASE_URL);
  const u = maskUrl(EXTERNAL_URL);
  const c = new pg.Client({ connectionString: EXTERNAL_URL, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    const [{ server_version: version }] = (await c.query('SHOW server_version')).rows;
    return { ok: true, label: `${u} (PostgreSQL ${version})` };
  } catch (err) {
    if (explicit) throw new Error(`the external PostgreSQL ${u} is not reachable: ${err.message}`);
    return { ok: false, label: `${u} not reachable (${err.message}): PostgreSQL rows skipped` };
  } finally {
    await c.end().catch(() => {});
  }
}

/**
 * A rate against a minimum (events/s): ratio = goal / value, so that ≤ 1 meets it as for the other rows.
 */
export function rateRow(group, figure, database, perSecond, goalPerSecond) {
  const value = perSecond;
  return { group, figure, database, value, text: `${count(Math.round(perSecond))}/s`, goal: `≥ ${count(goalPerSecond)}/s`,
    ratio: goalPerSecond / perSecond, pass: perSecond >= goalPerSecond };
}

const cells = (r) => [
  r.figure,
  r.database,
  r.text ?? (r.unit === 'MB' ? `${r.value.toFixed(0)} MB` : r.comparison ? `${fmt(r.value).replace(' ms', '')} vs ${fmt(r.base)}` : fmt(r.value)),
  r.goal,
  r.ratio === null ? '—' : r.comparison ? `${r.ratio.toFixed(2)}×` : r.ratio.toFixed(2),
  r.pass === null ? '—' : r.pass ? 'ok' : 'OVER',
];

/** The rows as one aligned markdown table (value and ratio right-aligned). */
export function table(rows) {
  const head = ['benchmark', 'database', 'value', 'goal', 'ratio', 'ok'];
  const right = [false, false, true, false, true, false];
  const body = rows.map(cells);
  const width = head.map((h, i) => Math.max(h.length, 3, ...body.map((c) => c[i].length)));
  const line = (c) => `| ${c.map((x, i) => (right[i] ? x.padStart(width[i]) : x.padEnd(width[i]))).join(' | ')} |`;
  const rule = `|${width.map((w, i) => (right[i] ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [line(head), rule, ...body.map(line)].join('\n');
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
