// Where a cheap request's time goes: one engine (this checkout's or another's) on the peer benchmark's data, run with
// `--cpu-prof` under load for one query, then the functions with the most self time. Proportions stay meaningful on a
// busy machine, where throughput figures do not, so it guides a change; ab-engine.mjs measures it.
//   node bench/profile-engine.mjs [checkout] [query key: pk | list | user | mutation]   (BENCH_SECONDS, BENCH_TOP)
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyMetadata, createDatabase, dropDatabase } from './peer/data.mjs';
import { load } from './peer/load.mjs';
import { startEngine } from './peer/servers.mjs';
import { QUERIES } from './peer-postgraphile.mjs';

const checkout = resolve(process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url)));
const key = process.argv[3] ?? 'pk';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const TOP = Number(process.env.BENCH_TOP ?? 40);
const q = QUERIES.find((x) => x.key === key);
if (!q) throw new Error(`no query ${key}: ${QUERIES.map((x) => x.key).join(', ')}`);

const db = await createDatabase();
const cwd = mkdtempSync(join(tmpdir(), 'engine-prof-'));
const engine = await startEngine(checkout, db, {}, ['--cpu-prof', '--cpu-prof-dir', cwd]);
const url = engine.url;
try {
  await applyMetadata(url);
  const m = await load(`${url}/v1/graphql`, q.engine, { seconds: SECONDS, warmup: 1, connections: 16 });
  console.log(`${q.label}: ${Math.round(m.rps)} req/s, ${m.failed} failed`);
} finally {
  await engine.stop();
  await dropDatabase();
}
const file = readdirSync(cwd).find((f) => f.endsWith('.cpuprofile'));
if (!file) throw new Error('no profile written');
const prof = JSON.parse(readFileSync(join(cwd, file), 'utf8'));
const self = new Map();
const dt = new Map();
for (let i = 0; i < prof.samples.length; i++) dt.set(prof.samples[i], (dt.get(prof.samples[i]) ?? 0) + (prof.timeDeltas[i] ?? 0));
let total = 0;
for (const n of prof.nodes) {
  const t = dt.get(n.id) ?? 0;
  total += t;
  const f = n.callFrame;
  const name = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${f.lineNumber + 1}`;
  self.set(name, (self.get(name) ?? 0) + t);
}
const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, TOP);
for (const [name, t] of rows) console.log(`${((100 * t) / total).toFixed(2).padStart(6)} %  ${name}`);
console.log(`profile: ${join(cwd, file)}`);
// BENCH_KEEP=1 keeps the profile (for comparing two builds' profiles request by request).
if (!process.env.BENCH_KEEP) rmSync(cwd, { recursive: true, force: true });
