// Issue 32 at scale, the engine in its own process (`engine serve`), the fallback refetch off (--live-queries-refetch-interval 0):
//   1. 1,000 subscribers with 100 distinct variable sets: statements per refetch (the engine's counter of subscription
//      statements, and on PostgreSQL the database's committed transactions);
//   2. memory per idle subscriber: the engine's heap, memory outside the heap and RSS with N subscribers (C cohorts)
//      over sockets of 100, and with one socket per subscriber, minus those before, each read after a full GC;
//   3. an idle minute with those subscribers: engine CPU and database statements (subscriptions' and all), beside the
//      same engine idle with no subscriber first (its event, scheduled-event and action workers poll either way);
//   4. one write to one row → its cohort's subscribers updated (p50/p99 over repeated writes), and one write to every
//      row → all N subscribers updated (p50/p99).
// Usage: node bench/subscriptions-scale.mjs [postgres|pglite] [subscribers=10000] [cohorts=1000] [idleSeconds=60]
// (postgres: ENGINE_BENCH_DATABASE_URL or the local test server). Prints the load average with the figures.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import WebSocket from 'ws';
import pg from 'pg';
import { createClient } from 'graphql-ws';

const kind = process.argv[2] === 'pglite' ? 'pglite' : 'postgres';
const N = Number(process.argv[3] ?? 10_000);
const COHORTS = Number(process.argv[4] ?? 1000);
const IDLE_S = Number(process.argv[5] ?? 60);
const METRICS = 'bench-metrics';
process.env.ENGINE_GRAPHQL_METRICS_SECRET = METRICS;
// The engine's inspector, on a loopback port, for its heap after a full collection (memory per subscriber without the
// garbage RSS still holds): read once per figure, never attached otherwise.
const INSPECT = await new Promise((resolve) => { const s = createServer(); s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); }); });
process.env.BENCH_ENGINE_NODE_ARGS = `${process.env.BENCH_ENGINE_NODE_ARGS ?? ''} --inspect=127.0.0.1:${INSPECT}`;
const { SECRET, startEngineProcess } = await import('./engine-process.mjs');

const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
const now = () => Number(process.hrtime.bigint()) / 1e6;

console.log(`${kind}: ${N} subscribers, ${COHORTS} cohorts; load average at start ${load()}`);
const e = await startEngineProcess(kind, { args: ['--live-queries-refetch-interval', '0', '--max-subscriptions', String(Math.max(100_000, 2 * N))] });
const outside = e.databaseUrl ? new pg.Client({ connectionString: e.databaseUrl }) : null;
await outside?.connect();
const write = (sql) => (outside ? outside.query(sql) : e.query({ type: 'run_sql', args: { sql } }));

/** A figure of GET /v1/metrics (summed over labels). */
async function metric(name) {
  const res = await fetch(`${e.baseUrl}/v1/metrics`, { headers: { authorization: `Bearer ${METRICS}` } });
  const text = await res.text();
  let sum = 0;
  for (const line of text.split('\n')) if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) sum += Number(line.split(' ').pop());
  return sum;
}
/** The engine process's CPU time (user + system), ms. */
function cpuMs() {
  const stat = readFileSync(`/proc/${e.pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}
/**
 * After a full garbage collection (through the engine's inspector): its JS heap in use and its memory outside the heap
 * (Buffers, ArrayBuffers), KB, and then its RSS — read after the collection, so that the garbage of the connections'
 * handshakes is not counted as the subscribers'.
 */
async function memoryKb() {
  const [target] = await (await fetch(`http://127.0.0.1:${INSPECT}/json/list`)).json();
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  let id = 0;
  const call = (method, params = {}) => new Promise((resolve) => {
    const mine = ++id;
    const on = (d) => { const m = JSON.parse(String(d)); if (m.id === mine) { ws.off('message', on); resolve(m.result); } };
    ws.on('message', on);
    ws.send(JSON.stringify({ id: mine, method, params }));
  });
  await call('HeapProfiler.collectGarbage');
  const { usedSize } = await call('Runtime.getHeapUsage');
  const { result } = await call('Runtime.evaluate', { expression: 'process.memoryUsage().external', returnByValue: true });
  ws.close();
  return { heap: usedSize / 1024, external: Number(result?.value ?? NaN) / 1024, rss: rssKb() };
}
const rssKb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${e.pid}/status`, 'utf8'))[1]);
/** Committed transactions of the bench database (every statement outside a transaction is one), less this read. */
const commits = async () => (outside ? Number((await outside.query('SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()')).rows[0].xact_commit) : NaN);
async function until(check, what, ms = 120_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const QUERY = 'subscription($id: Int!) { bench_sub_by_pk(id: $id) { id v } }';
await e.query({ type: 'run_sql', args: { sql: `CREATE TABLE bench_sub (id int PRIMARY KEY, v int NOT NULL); INSERT INTO bench_sub SELECT g, 0 FROM generate_series(1, ${Math.max(COHORTS, 100)}) g;` } });
await e.query({ type: 'track_table', args: 'bench_sub' });

/** Subscribers of id (i % sets) + 1 over `perSocket` subscriptions per socket; `waits` wakes those waiting for a value. */
function subscribers(n, sets, perSocket) {
  const waits = new Map();
  const samples = [];
  let firsts = 0;
  const sockets = [];
  const subs = [];
  for (let i = 0; i < n; i++) {
    if (i % perSocket === 0) {
      sockets.push(createClient({ url: `${e.baseUrl.replace(/^http/, 'ws')}/v1/graphql`, webSocketImpl: WebSocket, connectionParams: { headers: { 'x-engine-admin-secret': SECRET } }, retryAttempts: 0 }));
    }
    const id = (i % sets) + 1;
    const s = { id, v: -1 };
    subs.push(s);
    sockets[sockets.length - 1].subscribe({ query: QUERY, variables: { id } }, {
      next: (r) => {
        const v = r.data.bench_sub_by_pk.v;
        if (s.v === -1) firsts++;
        s.v = v;
        const w = waits.get(id);
        if (w && v === w.v) {
          samples.push(now() - w.t0);
          if (--w.left === 0) { waits.delete(id); w.resolve(); }
        }
      },
      error: (err) => { console.error(err); process.exitCode = 1; },
      complete: () => {},
    });
  }
  return {
    subs, samples, ready: () => until(() => firsts >= n, 'every first result'),
    /** Resolves when every subscriber of `id` has `v`. */
    expect(id, v) { return new Promise((resolve) => waits.set(id, { v, t0: now(), left: subs.filter((x) => x.id === id).length, resolve })); },
    dispose: () => Promise.all(sockets.map((c) => c.dispose())),
  };
}
const cohortsGone = () => until(async () => (await metric('engine_subscription_cohorts')) === 0, 'no cohort left');

try {
  // 1. Statements per refetch: 1,000 subscribers, 100 variable sets, one commit changing every one of their rows.
  {
    const g = subscribers(1000, 100, 100);
    await g.ready();
    const [s0, r0] = [await metric('engine_subscription_statements_total'), await metric('engine_subscription_refetch_rounds_total')];
    const all = Array.from({ length: 100 }, (_, i) => g.expect(i + 1, 1));
    await write('UPDATE bench_sub SET v = 1 WHERE id <= 100');
    await Promise.all(all);
    const [s1, r1] = [await metric('engine_subscription_statements_total'), await metric('engine_subscription_refetch_rounds_total')];
    // (test/integration/subscriptions-scale.test.ts counts the same statements where they reach the database.)
    console.log(`1,000 subscribers / 100 variable sets, one commit changing all 100 rows: ${r1 - r0} refetch round(s), ${s1 - s0} subscription statement(s)`);
    await g.dispose();
    await cohortsGone();
    await write('UPDATE bench_sub SET v = 0');
  }

  // 3 (its baseline). The idle engine with no subscriber: what its workers' polling costs without subscriptions.
  await sleep(3000);
  const idleCpu0 = cpuMs();
  await sleep(IDLE_S * 1000);
  const idleBase = ((cpuMs() - idleCpu0) * 60) / IDLE_S;
  console.log(`idle ${IDLE_S} s with no subscriber: engine CPU ${idleBase.toFixed(0)} ms per minute`);

  // 2. Memory per idle subscriber, then 3. the idle minute, then 4. latency: N subscribers over sockets of 100.
  const m0 = await memoryKb();
  const g = subscribers(N, COHORTS, 100);
  const t0 = now();
  await g.ready();
  console.log(`${N} subscribers (${COHORTS} cohorts, ${Math.ceil(N / 100)} sockets) all served their first result in ${((now() - t0) / 1000).toFixed(1)} s`);
  await sleep(5000);
  const m1 = await memoryKb();
  const per1 = (k) => ((m1[k] - m0[k]) / N).toFixed(1);
  const mb = (k) => `${(m0[k] / 1024).toFixed(0)} → ${(m1[k] / 1024).toFixed(0)} MB`;
  console.log(`memory (sockets of 100), after a full GC: heap ${per1('heap')} KB per idle subscriber (${mb('heap')}), outside the heap ${per1('external')} KB; RSS ${per1('rss')} KB (${mb('rss')})`);

  // PostgreSQL's statistics reach pg_stat_database up to seconds late: the subscribing's transactions settle first.
  await sleep(15_000);
  const [cpu0, st0, cm0] = [cpuMs(), await metric('engine_subscription_statements_total'), await commits()];
  await sleep(IDLE_S * 1000);
  const [cpu1, st1, cm1] = [cpuMs(), await metric('engine_subscription_statements_total'), await commits()];
  const perMin = 60 / IDLE_S;
  console.log(`idle ${IDLE_S} s with ${N} subscribers: engine CPU ${((cpu1 - cpu0) * perMin).toFixed(0)} ms per minute, subscription statements ${((st1 - st0) * perMin).toFixed(0)} per minute`
    + (outside ? `, database transactions ${((cm1 - cm0 - 1) * perMin).toFixed(0)} per minute (all of the engine's: its event, scheduled-event and action workers poll)` : '') + `; load ${load()}`);

  // 4a. One write to one row: its cohort's subscribers (N / COHORTS of them).
  const writes = 50;
  g.samples.length = 0;
  for (let i = 0; i < writes; i++) {
    const id = 1 + ((i * 7919) % COHORTS);
    const got = g.expect(id, i + 1);
    await write(`UPDATE bench_sub SET v = ${i + 1} WHERE id = ${id}`);
    await got;
  }
  console.log(`one write to one row, ${writes} writes: commit → each of its ${N / COHORTS} subscribers p50 ${pct(g.samples, 0.5).toFixed(1)} ms, p99 ${pct(g.samples, 0.99).toFixed(1)} ms, max ${Math.max(...g.samples).toFixed(1)} ms (every cohort refetched: one table)`);

  // 4b. One write to every row: every subscriber.
  for (const round of [1, 2, 3]) {
    g.samples.length = 0;
    const all = Array.from({ length: COHORTS }, (_, i) => g.expect(i + 1, 1000 + round));
    await write(`UPDATE bench_sub SET v = ${1000 + round} WHERE id <= ${COHORTS}`);
    await Promise.all(all);
    console.log(`one write to every row (round ${round}): commit → all ${N} subscribers p50 ${pct(g.samples, 0.5).toFixed(1)} ms, p99 ${pct(g.samples, 0.99).toFixed(1)} ms, max ${Math.max(...g.samples).toFixed(1)} ms`);
  }
  await g.dispose();
  await cohortsGone();

  // 2b. Memory with one socket per subscriber (as browsers connect).
  const M = Math.min(N, 2000);
  await sleep(3000);
  const m2 = await memoryKb();
  const h = subscribers(M, COHORTS, 1);
  await h.ready();
  await sleep(5000);
  const m3 = await memoryKb();
  const per = (k) => ((m3[k] - m2[k]) / M).toFixed(1);
  console.log(`memory (${M} sockets of one subscriber each, its socket included), after a full GC: heap ${per('heap')} KB per idle subscriber, outside the heap ${per('external')} KB; RSS ${per('rss')} KB`);
  await h.dispose();
  console.log(`load average at end ${load()}`);
} finally {
  await outside?.end();
  await e.close();
}
