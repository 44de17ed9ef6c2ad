// Issue 31 (benchmarks), the per-request cost of metrics and traces in isolation: the engine's own code in a loop, in
// this process, CPU time per iteration (process.cpuUsage), best of 7 runs: on a machine busy with other work a loop's
// best run is far steadier than a load test's throughput. Compare with the CPU a request takes in bench/observability.mjs.
//   node bench/observability-micro.mjs      (after npm run build)
import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { registerHttpLog } from '../dist/server/http/http-log.js';
import { jsonDestination, StructuredLog } from '../dist/server/http/logs.js';
import { loadMetrics, registerMetrics } from '../dist/server/http/metrics.js';
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

const stubDb = { kind: 'external', query: async () => [{ events: 0, cron: 0, one_off: 0 }] };
const metrics = await loadMetrics('s', { planHits: 0, stats: { prepared: 0, compiled: 0 } }, stubDb);
/** The response hooks a feature registers on the router, called as the router calls them once an answer is sent. */
const hooksOf = (register) => {
  const hooks = [];
  register({ onResponse: (h) => hooks.push(h), get() {} });
  return (request, reply) => { for (const h of hooks) h(request, reply); };
};
const metricsHook = hooksOf((app) => registerMetrics(app, metrics));
const nullFd = openSync('/dev/null', 'w');
const log = new StructuredLog({ format: 'json', stream: jsonDestination(nullFd) });
const logHook = hooksOf((app) => registerHttpLog(app, log));
// A cheap request as the router and the GraphQL service leave it: the operation reported, the answer sent.
const query = 'query AuthorByPk($id: Int!) { author_by_pk(id: $id) { id name bio } }';
const answered = {
  id: 'b0f4c6de-1d1c-4c55-9a39-8c1f0c7e1a11', ownId: true, path: '/v1/graphql', method: 'POST', raw: { url: '/v1/graphql', method: 'POST' }, role: 'user', errorCode: '',
  graphqlText: JSON.stringify({ query, variables: { id: 7 } }), graphqlOperation: { type: 'query', name: 'AuthorByPk', hash: 'a'.repeat(64) },
};
const reply = { statusCode: 200, elapsedTime: 0.734 };
const base = await measure(async () => {});
const m = await measure(() => {
  metricsHook(answered, reply);
  probes.statements?.(1);
});
metrics.detach();
// Flushed at the end of each run, so that the writes are counted in it.
const l = await measure(async (i) => {
  logHook(answered, reply);
  if (i === N - 1) await log.flush();
});

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
  `| metrics: the onResponse hook (request counter, latency histogram) and a statement count | ${f(m - base)} |`,
  `| http-log: the onResponse hook's JSON line, written (asynchronously, to /dev/null) | ${f(l - base)} |`,
  `| traces: server, parse, validate, plan, execute and one statement span, with their OTLP/JSON export (the OpenTelemetry SDK) | ${f(tr - base)} |`,
].join('\n'));
