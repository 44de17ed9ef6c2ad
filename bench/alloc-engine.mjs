// Where a cheap request's allocations go (issue 28: "+19 % bytes per request"): one engine (this checkout's or
// another's) on the peer benchmark's data, N sequential requests of one query under V8's sampling heap profiler
// (through the inspector, objects collected by either GC included), then bytes per request in all and by the
// function that allocated. Unlike throughput, bytes per request barely move on a busy machine, so two builds compare.
//   node bench/alloc-engine.mjs [checkout] [query key: pk | list | user | mutation]   (BENCH_REQUESTS, BENCH_TOP)
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { applyMetadata, createDatabase, dropDatabase } from './peer/data.mjs';
import { request } from './peer/load.mjs';
import { startEngine } from './peer/servers.mjs';
import { QUERIES } from './peer-postgraphile.mjs';

const checkout = resolve(process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url)));
const key = process.argv[3] ?? 'pk';
const N = Number(process.env.BENCH_REQUESTS ?? 5000);
const TOP = Number(process.env.BENCH_TOP ?? 30);
// BENCH_PROMOTED=1: only what outlived the young generation (alive at the end, or collected by a full collection):
// what makes scavenges copy and full collections run.
const PROMOTED = process.env.BENCH_PROMOTED === '1';
const q = QUERIES.find((x) => x.key === key);
if (!q) throw new Error(`no query ${key}: ${QUERIES.map((x) => x.key).join(', ')}`);

/** A minimal Chrome DevTools Protocol session over the inspector's WebSocket. */
async function inspector(wsUrl) {
  const ws = new WebSocket(wsUrl);
  await new Promise((r, j) => { ws.once('open', r); ws.once('error', j); });
  let id = 0;
  const waiting = new Map();
  ws.on('message', (data) => {
    const m = JSON.parse(String(data));
    const w = waiting.get(m.id);
    if (!w) return;
    waiting.delete(m.id);
    if (m.error) w.j(new Error(m.error.message));
    else w.r(m.result);
  });
  return {
    send: (method, params = {}) => new Promise((r, j) => { const i = ++id; waiting.set(i, { r, j }); ws.send(JSON.stringify({ id: i, method, params })); }),
    close: () => ws.close(),
  };
}

const db = await createDatabase();
const engine = await startEngine(checkout, db, {}, ['--inspect=127.0.0.1:0', ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)]);
const url = engine.url;
let rows;
let total = 0;
try {
  await applyMetadata(url);
  let n = 0;
  const one = async () => {
    const { body, headers } = request(q.engine, () => 1 + (n++ % 1000));
    const res = await fetch(`${url}/v1/graphql`, { method: 'POST', headers, body });
    const text = await res.text();
    if (res.status !== 200 || text.includes('"errors"')) throw new Error(`${res.status} ${text.slice(0, 200)}`);
  };
  // Warm: plans cached, code optimised.
  for (let i = 0; i < 2000; i++) await one();
  const wsUrl = /ws:\/\/\S+/.exec(engine.stderr())?.[0];
  if (!wsUrl) throw new Error(`no inspector address: ${engine.stderr().slice(-300)}`);
  const insp = await inspector(wsUrl);
  await insp.send('HeapProfiler.enable');
  await insp.send('HeapProfiler.collectGarbage');
  await insp.send('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: !PROMOTED });
  for (let i = 0; i < N; i++) await one();
  const { profile } = await insp.send('HeapProfiler.stopSampling');
  insp.close();
  const by = new Map();
  // BENCH_STACK=k: each allocating function with its k callers (the sites that allocate through a shared helper).
  const depth = Number(process.env.BENCH_STACK ?? 0);
  const frame = (f) => `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${f.lineNumber + 1}`;
  const walk = (node, callers) => {
    const here = frame(node.callFrame);
    const name = [here, ...callers.slice(-depth).reverse()].join(' < ');
    by.set(name, (by.get(name) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const c of node.children) walk(c, depth > 0 ? [...callers, here] : callers);
  };
  walk(profile.head, []);
  rows = [...by].sort((a, b) => b[1] - a[1]).slice(0, TOP);
} finally {
  await engine.stop();
  await dropDatabase();
}
console.log(`${q.label}: ${(total / N / 1024).toFixed(1)} KB ${PROMOTED ? 'outliving the young generation' : 'allocated'} per request (sampled, ${N} sequential requests, ${checkout})`);
for (const [name, b] of rows) console.log(`${(b / N).toFixed(0).padStart(7)} B  ${name}`);
