// Issue 31 (benchmarks), the per-request cost of metrics and traces in isolation: the engine's own code in a loop, in
// this process, CPU time per iteration (process.cpuUsage), best of 7 runs: on a machine busy with other work a loop's
// best run is far steadier than a load test's throughput. Compare with the CPU a request takes in bench/observability.mjs.
//   node bench/observability-micro.mjs      (after npm run build)
import { spawn } from 'node:child_process';
import { loadMetrics } from '../dist/server/http/metrics.js';
import { probes } from '../dist/probes.js';
import { startTracing } from '../dist/server/tracing/index.js';

const N = 20_000;
const RUNS = 7;

/** CPU µs per call of `fn` (awaited), best of RUNS runs of N calls. */
async function measure(fn) {
  let best = Infinity;
  for (let r = 0; r < RUNS; r++) {
    const t = process.cpuUsage();
    for (let i = 0; i < N; i++) await fn(i);
    const d = process.cpuUsage(t);
    best = Math.min(best, (d.user + d.system) / N);
  }
  return best;
}

const body = JSON.stringify({ query: 'query ($id: Int!) { author_by_pk(id: $id) { id name bio } }', variables: { id: 7 } });
const stubDb = { kind: 'external', query: async () => [{ events: 0, cron: 0, one_off: 0 }] };
const metrics = await loadMetrics('s', { planHits: 0, stats: { prepared: 0, compiled: 0 } }, stubDb);
// What registerMetrics' hook does per answer: the body's operation type (JSON.parse) and the two series.
const perRequestMetrics = () => {
  const q = JSON.parse(body).query;
  metrics.observe('/v1/graphql', 200, q.startsWith('{') ? 'query' : 'query', 0.0012);
  probes.statements?.(1);
};
const base = await measure(async () => {});
const m = await measure(perRequestMetrics);
metrics.detach();

// Traces: a request's spans as the engine makes them (server, parse, validate, plan, execute, one statement), ALS
// included, exported to a receiver in another process (encoding and POST included; flushed within each run).
const sink = spawn(process.execPath, ['-e', "require('http').createServer((q, s) => q.resume().on('end', () => s.end('{}')))" +
  ".listen(0, '127.0.0.1', function () { console.log(this.address().port); })"], { stdio: ['ignore', 'pipe', 'inherit'] });
const port = await new Promise((r) => sink.stdout.setEncoding('utf8').once('data', (d) => r(Number(d.trim()))));
const tracing = startTracing({
  endpoint: `http://127.0.0.1:${port}/v1/traces`, headers: {}, resource: { 'service.name': 'bench' },
  ratio: 1, parentBased: true, delayMs: 1000, batch: 512, queue: 1_000_000, timeoutMs: 10_000,
}, { debug() {}, info() {}, warn: (x) => console.error(x), error: (x) => console.error(x) });
const t = tracing.tracer;
const request = () => t.span('POST /v1/graphql', 'server', { 'http.request.method': 'POST', 'url.path': '/v1/graphql' }, async (s) => {
  t.sync('graphql.parse', {}, () => 0);
  t.sync('graphql.validate', {}, () => 0);
  t.sync('graphql.plan', {}, (p) => p.set({ 'engine.plan_cache.hit': true }));
  t.annotate({ 'graphql.operation.type': 'query' });
  await t.span('graphql.execute', 'internal', {}, () => t.span('BATCH', 'client', { 'db.system.name': 'postgresql', 'db.query.text': 'SELECT 1' }, async () => 1, 'child'), 'child');
  s.set({ 'http.response.status_code': 200 });
}, 'root');
const tr = await measure(async (i) => {
  await request();
  if (i === N - 1) await tracing.flush();
});
await tracing.stop();
sink.kill();

const f = (x) => `${x.toFixed(2)} µs`;
console.log([
  '## Observability cost per request, in isolation (issue 31)',
  '',
  `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC; node ${process.version}; CPU per iteration, best of ${RUNS} runs of ${N.toLocaleString('en')}; an empty awaited call costs ${f(base)}.`,
  '',
  '| what | CPU per request |',
  '|---|---:|',
  `| metrics: the onResponse hook's work (operation type, request counter, latency histogram) and a statement count | ${f(m - base)} |`,
  `| traces: server, parse, validate, plan, execute and one statement span, with their OTLP/JSON export (the OpenTelemetry SDK) | ${f(tr - base)} |`,
].join('\n'));
