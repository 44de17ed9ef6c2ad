// Issue 28 (the collector's share of a request): how much of what requests allocate outlives the young generation.
// Each checkout's `engine serve` runs on the peer benchmark's data under V8's --trace-gc-nvp; after a warm-up, N
// requests of one query (C connections) and the scavenges meanwhile: bytes promoted per scavenge (what survived two
// scavenges) and per request, scavenges and full collections. Unlike throughput, these barely move on a busy machine
// (±15 % between two runs of one build), so builds compare in one run.
//   node bench/gc-promotion.mjs <checkout>... [--query pk|list|user|mutation]   (BENCH_REQUESTS=10000 BENCH_CONNECTIONS=4)
//   BENCH_NODE_ARGS: more node flags (e.g. "--expose-gc --require <file>" to force full collections)
// Session 14 found: right after a full collection the first scavenge still keeps ~2 MB of young objects that no full
// collection finds reachable; 1ac0fcc and fe54973 promote ~285 KB per scavenge, 69aa880 ~650 KB, main ~1.3–1.5 MB.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { progress } from './lib.mjs';
import { applyMetadata, createDatabase, dropDatabase } from './peer/data.mjs';
import { request } from './peer/load.mjs';
import { freePort } from './peer/servers.mjs';
import { QUERIES } from './peer-postgraphile.mjs';

const args = process.argv.slice(2);
const qi = args.indexOf('--query');
const key = qi >= 0 ? args[qi + 1] : 'pk';
const checkouts = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--query').map((c) => resolve(c));
const N = Number(process.env.BENCH_REQUESTS ?? 10_000);
const C = Number(process.env.BENCH_CONNECTIONS ?? 4);
const EXTRA = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
const q = QUERIES.find((x) => x.key === key);
if (!q || checkouts.length === 0) throw new Error('usage: node bench/gc-promotion.mjs <checkout>... [--query pk|list|user|mutation]');

async function measure(checkout, db, first) {
  const cwd = mkdtempSync(join(tmpdir(), 'engine-gc-'));
  const port = await freePort();
  const child = spawn(process.execPath, ['--trace-gc-nvp', ...EXTRA, join(checkout, 'bin', 'engine.js'), 'serve', '--database-url', db, '--port', String(port), '--log-level', 'warn'],
    { cwd, env: { ...process.env, ENGINE_GRAPHQL_ENABLED_LOG_TYPES: 'startup' }, stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d) => { out += d; });
  const url = `http://127.0.0.1:${port}`;
  try {
    for (const deadline = Date.now() + 60_000; ;) {
      if (child.exitCode !== null) throw new Error(`engine (${checkout}) exited ${child.exitCode}`);
      if (Date.now() > deadline) throw new Error(`engine (${checkout}) did not answer /healthz`);
      if (await fetch(`${url}/healthz`).then((r) => r.status === 200, () => false)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    // The metadata is kept in the database: the first engine applies it, the others read it.
    if (first) await applyMetadata(url);
    let n = 0;
    const one = async () => {
      const { body, headers } = request(q.engine, () => 1 + (n++ % 1000));
      const res = await fetch(`${url}/v1/graphql`, { method: 'POST', headers, body });
      const text = await res.text();
      if (res.status !== 200 || text.includes('"errors":[')) throw new Error(`HTTP ${res.status}: ${text.slice(0, 200)}`);
    };
    for (let i = 0; i < 3000; i++) await one();
    const mark = out.length;
    let left = N;
    await Promise.all(Array.from({ length: C }, async () => { while (left-- > 0) await one(); }));
    const lines = out.slice(mark).split('\n');
    const field = (l, k) => Number(new RegExp(` ${k}=([0-9.]+)`).exec(l)?.[1] ?? 0);
    const scavenges = lines.filter((l) => l.includes(' gc=s '));
    const full = lines.filter((l) => l.includes(' gc=mc ')).length;
    const promoted = scavenges.reduce((a, l) => a + field(l, 'promoted'), 0);
    const survived = scavenges.reduce((a, l) => a + field(l, 'new_space_survived'), 0);
    return { scavenges: scavenges.length, full, perScavenge: promoted / Math.max(1, scavenges.length) / 1024, perRequest: promoted / N / 1024, survived: survived / Math.max(1, scavenges.length) / 1024 };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
    rmSync(cwd, { recursive: true, force: true });
  }
}

const db = await createDatabase('bench_gc_promotion');
try {
  console.log(`## Promotion per request (issue 28): ${q.label}, ${N.toLocaleString('en-US')} requests over ${C} connections after 3,000 of warm-up\n`);
  console.log('| build | scavenges | full collections | survived per scavenge | promoted per scavenge | promoted per request |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const [i, c] of checkouts.entries()) {
    progress(`gc-promotion: ${c}`);
    const r = await measure(c, db, i === 0);
    console.log(`| ${c} | ${r.scavenges} | ${r.full} | ${r.survived.toFixed(0)} KB | ${r.perScavenge.toFixed(0)} KB | ${r.perRequest.toFixed(2)} KB |`);
  }
} finally {
  await dropDatabase('bench_gc_promotion');
}
