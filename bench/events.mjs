// Issue 15: event delivery. Commit → webhook latency (p50 goal ≤ 50 ms, p99 shown) over single-row autocommit INSERTs
// by a database client (timed from sending the statement, so the INSERT itself is included), and
// events/s for 10,000 events from one statement with one and two processor instances (goal ≥ 2,000/s on PostgreSQL,
// ≥ 500/s on PGlite). The webhook is a local HTTP server answering 200 at once; everything runs in this process.
// PGlite runs with a data directory on disk, one instance (a data directory belongs to one process).
// Standalone: `node bench/events.mjs [--quick]` (after `npm run build`).
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { PostgresDatabase } from '../dist/db/postgres.js';
import { EventProcessor } from '../dist/server/workers/event-processor.js';
import { benchEngine, count, goalRow, p50, progress, QUICK, rateRow, table } from './lib.mjs';

const GROUP = 'event delivery';
export const SIZES = { full: { commits: 200, events: 10_000 }, quick: { commits: 40, events: 2_000 } };
const RATE_GOAL = { postgres: 2000, pglite: 500, 'pglite-memory': 500 };

/** A webhook counting distinct event ids; `waitFor(id)` resolves when that event arrives. */
async function webhook() {
  const seen = new Set();
  const waiting = new Map();
  let last = 0;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const key = body.event.data.new?.id ?? body.id;
      seen.add(key);
      last = performance.now();
      waiting.get(key)?.(last);
      res.end('ok');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    seen,
    lastAt: () => last,
    waitFor: (key) => new Promise((resolve) => waiting.set(key, resolve)),
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }),
  };
}

async function setup(e, hookUrl) {
  await e.query({ type: 'run_sql', args: { sql: 'CREATE TABLE item (id integer PRIMARY KEY, name text)' } });
  await e.query({ type: 'track_table', args: 'item' });
  await e.query({ type: 'create_event_trigger', args: { name: 'items', table: 'item', webhook: hookUrl, insert: { columns: '*' } } });
}

const processor = (db, e) => EventProcessor.start(db, { triggers: () => e.engine.consistentEventTriggers(100) });

async function withEngine(kind, fn) {
  const e = await benchEngine(kind);
  const hook = await webhook();
  try {
    await setup(e, hook.url);
    return await fn(e, hook);
  } finally {
    await hook.close();
    await e.close();
  }
}

async function latency(kind, commits) {
  progress(`${GROUP}: ${kind}, commit → webhook over ${commits} commits`);
  return withEngine(kind, async (e, hook) => {
    const p = await processor(e.db, e);
    try {
      const ms = [];
      for (let i = 1; i <= commits; i++) {
        const arrived = hook.waitFor(i);
        const t0 = performance.now();
        // A client of the database writes the row (autocommit), as an application would.
        await e.db.query('INSERT INTO item VALUES ($1, $2)', [i, 'x']);
        ms.push((await arrived) - t0);
      }
      ms.sort((a, b) => a - b);
      return { p50: p50(ms), p99: ms[Math.min(ms.length - 1, Math.ceil(ms.length * 0.99) - 1)] };
    } finally {
      await p.stop();
    }
  });
}

async function throughput(kind, events, instances) {
  progress(`${GROUP}: ${kind}, ${count(events)} events, ${instances} instance(s)`);
  return withEngine(kind, async (e, hook) => {
    const extra = [];
    const procs = [await processor(e.db, e)];
    for (let i = 1; i < instances; i++) {
      const db = await PostgresDatabase.connect(e.dbUrl);
      extra.push(db);
      procs.push(await processor(db, e));
    }
    try {
      const t0 = performance.now();
      await e.query({ type: 'run_sql', args: { sql: `INSERT INTO item SELECT g, 'x' FROM generate_series(1, ${events}) g` } });
      for (;;) {
        const [{ n }] = await e.db.query('SELECT count(*)::int AS n FROM engine_catalog.event_log WHERE delivered');
        if (n >= events) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      const seconds = (performance.now() - t0) / 1000;
      if (hook.seen.size !== events) throw new Error(`the webhook saw ${hook.seen.size} of ${events} events`);
      return events / seconds;
    } finally {
      for (const p of procs) await p.stop();
      for (const db of extra) await db.close();
    }
  });
}

/** Adds its rows through `add`; `kinds` are the databases to run on ('pglite', 'postgres'). */
export async function run({ quick = false, kinds = ['pglite', 'postgres'], add }) {
  const { commits, events } = quick ? SIZES.quick : SIZES.full;
  for (const kind of kinds) {
    const l = await latency(kind, commits);
    add(goalRow(GROUP, 'commit → webhook, p50', kind, l.p50, 50));
    add({ ...goalRow(GROUP, 'commit → webhook, p99', kind, l.p99, 50), goal: '—', ratio: null, pass: null });
    add(rateRow(GROUP, `${count(events)} events, 1 instance`, kind, await throughput(kind, events, 1), RATE_GOAL[kind]));
    if (kind === 'postgres') add(rateRow(GROUP, `${count(events)} events, 2 instances`, kind, await throughput(kind, events, 2), RATE_GOAL[kind]));
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = [];
  const kinds = process.argv.includes('--pglite-only') ? ['pglite'] : ['pglite', 'postgres'];
  await run({ quick: QUICK, kinds, add: (r) => rows.push(r) });
  console.log(table(rows));
}
