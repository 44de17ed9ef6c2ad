// Issue 15: event delivery, with `engine serve` in its own process as users run it (PGlite on a data directory; the
// external PostgreSQL) and the webhook, a node:http server on 127.0.0.1 answering 200 at once, in this process.
// Commit → webhook latency p50 (goal ≤ 50 ms; p99 shown) over single-row `insert_item_one` GraphQL mutations, timed
// from sending the request, so the mutation's own round trip is included. Events/s for 10,000 events from one
// statement (run_sql), until all are recorded delivered, with one and (PostgreSQL) two engine processes on one
// database; a data directory belongs to one process, so PGlite has one. Goals ≥ 2,000/s on PostgreSQL, ≥ 500/s on
// PGlite. Standalone: `node bench/events.mjs [--quick] [--pglite-only|--postgres-only]` (after `npm run build`).
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { count, goalRow, p50, progress, QUICK, rateRow, table } from './lib.mjs';
import { startEngineProcess } from './engine-process.mjs';

const GROUP = 'event delivery';
export const SIZES = { full: { commits: 200, events: 10_000 }, quick: { commits: 40, events: 2_000 } };
const RATE_GOAL = { postgres: 2000, pglite: 500 };
const LABEL = { postgres: 'postgres', pglite: 'PGlite (data dir)' };

/** A webhook counting distinct rows; `waitFor(id)` resolves when that row's event arrives, `all(n)` at n rows. */
async function webhook() {
  const seen = new Set();
  const waiting = new Map();
  let target = Infinity;
  let reached = () => {};
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const key = body.event.data.new.id;
      seen.add(key);
      waiting.get(key)?.(performance.now());
      if (seen.size >= target) reached();
      res.end('ok');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    seen,
    waitFor: (key) => new Promise((resolve) => waiting.set(key, resolve)),
    all: (n) => new Promise((resolve) => {
      target = n;
      reached = resolve;
      if (seen.size >= n) resolve();
    }),
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }),
  };
}

/** One engine process (two on PostgreSQL when `instances` is 2) with table `item` and its insert trigger. */
async function withEngines(kind, instances, fn) {
  const hook = await webhook();
  const engines = [await startEngineProcess(kind)];
  try {
    for (let i = 1; i < instances; i++) engines.push(await startEngineProcess(kind, { databaseUrl: engines[0].databaseUrl }));
    const [e] = engines;
    await e.query({ type: 'run_sql', args: { sql: 'CREATE TABLE item (id integer PRIMARY KEY, name text)' } });
    await e.query({ type: 'track_table', args: 'item' });
    await e.query({ type: 'create_event_trigger', args: { name: 'items', table: 'item', webhook: hook.url, insert: { columns: '*' } } });
    return await fn(e, hook);
  } finally {
    for (const e of engines.reverse()) await e.close();
    await hook.close();
  }
}

const delivered = async (e) => {
  const { result } = JSON.parse((await e.query({ type: 'run_sql', args: { sql: 'SELECT count(*) FROM engine_catalog.event_log WHERE delivered' } })).text);
  return Number(result[1][0]);
};

export async function latency(kind, commits) {
  progress(`${GROUP}: ${kind}, commit → webhook over ${commits} single-row mutations`);
  return withEngines(kind, 1, async (e, hook) => {
    const mutation = 'mutation ($id: Int!) { insert_item_one(object: {id: $id, name: "x"}) { id } }';
    const ms = [];
    // The first 10 warm the engine's plans and connections.
    for (let i = 1; i <= commits + 10; i++) {
      const arrived = hook.waitFor(i);
      const t0 = performance.now();
      await e.graphql({ query: mutation, variables: { id: i } });
      const t = (await arrived) - t0;
      if (i > 10) ms.push(t);
    }
    ms.sort((a, b) => a - b);
    return { p50: p50(ms), p99: ms[Math.min(ms.length - 1, Math.ceil(ms.length * 0.99) - 1)] };
  });
}

export async function throughput(kind, events, instances) {
  progress(`${GROUP}: ${kind}, ${count(events)} events, ${instances} engine process(es)`);
  return withEngines(kind, instances, async (e, hook) => {
    const all = hook.all(events);
    const t0 = performance.now();
    await e.query({ type: 'run_sql', args: { sql: `INSERT INTO item SELECT g, 'x' FROM generate_series(1, ${Number(events)}) g` } });
    await all;
    // Every event reached the webhook; the figure counts until the last result is recorded.
    while ((await delivered(e)) < events) await new Promise((r) => setTimeout(r, 5));
    const seconds = (performance.now() - t0) / 1000;
    if (hook.seen.size !== events) throw new Error(`the webhook saw ${hook.seen.size} of ${events} events`);
    return events / seconds;
  });
}

/** Adds its rows through `add`; `kinds` are the databases to run on ('pglite', 'postgres'). */
export async function run({ quick = false, kinds = ['pglite', 'postgres'], add }) {
  const { commits, events } = quick ? SIZES.quick : SIZES.full;
  for (const kind of kinds) {
    const db = LABEL[kind];
    const l = await latency(kind, commits);
    add(goalRow(GROUP, 'commit → webhook, p50', db, l.p50, 50));
    add({ ...goalRow(GROUP, 'commit → webhook, p99', db, l.p99, 50), goal: '—', ratio: null, pass: null });
    add(rateRow(GROUP, `${count(events)} events, 1 instance`, db, await throughput(kind, events, 1), RATE_GOAL[kind]));
    if (kind === 'postgres') add(rateRow(GROUP, `${count(events)} events, 2 instances`, db, await throughput(kind, events, 2), RATE_GOAL[kind]));
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = [];
  const only = ['pglite', 'postgres'].filter((k) => process.argv.includes(`--${k}-only`));
  await run({ quick: QUICK, kinds: only.length ? only : ['pglite', 'postgres'], add: (r) => rows.push(r) });
  console.log(table(rows));
}
