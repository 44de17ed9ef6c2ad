// Issues 28 and 31 (benchmark method): the engine's instructions per request on the peer benchmark's queries, counted
// by valgrind's callgrind over windows of a fixed number of requests after a warm-up. Throughput on this 2-core machine
// differs by 7–14 % between two identical engines (bench/observability.mjs, side off2), which hides a 3 % or 5 % goal;
// a count of executed instructions does not depend on the machine's load or on which core ran it. It counts the engine
// process only (every thread); PostgreSQL's own work is the same for every side. The garbage collector's and the
// optimizing compiler's parts are taken out (callgrind_annotate's inclusive counts) and the collector's shown apart.
//   BENCH_CONNECTIONS=1 BENCH_NODE_ARGS=--predictable node bench/instructions.mjs
//   BENCH_SIDES=off,metrics,logs+m  BENCH_ROUNDS=2 BENCH_WARMUP=3000 BENCH_WINDOWS=4 BENCH_REQUESTS=1000 BENCH_KEEP=<dir>
// A side is a label of the table below (the engine's environment), optionally `@<checkout>` for another build (its
// own database; e.g. `off@/work/wt/b-1ac0fcc` for the engine before issue 28). Every round starts new processes, all
// sides at once. Needs valgrind (Debian's package) and the external PostgreSQL. Markdown on stdout.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, progress } from './lib.mjs';
import { applyMetadata, createDatabase, dropDatabase } from './peer/data.mjs';
import { request, sampleError } from './peer/load.mjs';
import { startEngine, THIS_CHECKOUT } from './peer/servers.mjs';
import { QUERIES } from './peer-postgraphile.mjs';

const num = (name, dflt) => (process.env[name] ? Number(process.env[name]) : dflt);
const ROUNDS = num('BENCH_ROUNDS', 2);
const WARMUP = num('BENCH_WARMUP', 3000);
const REQUESTS = num('BENCH_REQUESTS', 1000);
// Measured windows of REQUESTS each, one after the other in the same process: a window's count is that window's; the
// median of the windows leaves out the rare window that held a full garbage collection or a late compile.
const WINDOWS = num('BENCH_WINDOWS', 4);
const CONNECTIONS = num('BENCH_CONNECTIONS', 4);
const ONLY = process.env.BENCH_QUERIES?.split(',');
// Node flags of the measured engines (e.g. --predictable: no concurrent compilation or GC, so fewer chance costs).
const KEEP = process.env.BENCH_KEEP;
const NODE_ARGS = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
const quiet = { ENGINE_GRAPHQL_ENABLED_LOG_TYPES: 'startup' };
const ENVS = {
  off: quiet,
  metrics: { ...quiet, ENGINE_GRAPHQL_METRICS_SECRET: 'bench-metrics-secret' },
  'logs+m': { ENGINE_GRAPHQL_LOG_FORMAT: 'json', ENGINE_GRAPHQL_METRICS_SECRET: 'bench-metrics-secret' },
  logs: { ENGINE_GRAPHQL_LOG_FORMAT: 'json' },
};

/** Sends `n` requests of `q` (request i's row chosen from i, the same for every side), `CONNECTIONS` at a time. */
async function send(url, q, n, offset) {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      // Spread over the rows deterministically: every side gets the same sequence.
      const { body, headers } = request(q, () => 1 + (((offset + i) * 7919) % 9973));
      const res = await fetch(url, { method: 'POST', headers, body });
      const text = await res.text();
      if (res.status !== 200 || text.includes('"errors":[')) throw new Error(`HTTP ${res.status}: ${text.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
}

function control(pid, ...args) {
  const r = spawnSync('callgrind_control', [...args, String(pid)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`callgrind_control ${args.join(' ')} ${pid}: ${r.stderr || r.stdout}`);
}

// The collector's and the optimizing compiler's entry points: their inclusive counts are taken out of a window's total.
// Both come by chance (a scavenge's cost depends on what survives at that moment; compiles go on for thousands of
// requests), so that two identical engines' totals differed by 10–20 %, while the rest (the engine's own work, "mutator")
// agrees within about 1 %. The collector's share is shown apart.
const GC = /^\s*([\d,]+) .*v8::internal::(Heap::CollectGarbage\(|IncrementalMarking::AdvanceOnAllocation\(|IncrementalMarkingJob::Task::RunInternal\()/;
const COMPILE = /^\s*([\d,]+) .*v8::internal::(Compiler::CompileOptimized\(|OptimizingCompileDispatcher::InstallOptimizedFunctions\(|maglev::MaglevCompiler::Compile\()/;

/** The instructions counted since the last zeroing (dumped, then read): total, collector and compiler parts. */
function dumpCounts(dir, pid, keepAs) {
  const before = new Set(readdirSync(dir));
  control(pid, '-d');
  const fresh = readdirSync(dir).filter((f) => !before.has(f));
  if (fresh.length !== 1) throw new Error(`expected one new callgrind dump in ${dir}, found ${fresh.length}`);
  const file = join(dir, fresh[0]);
  const m = /^(?:totals|summary):\s+(\d+)/m.exec(readFileSync(file, 'utf8'));
  if (!m) throw new Error(`no totals in ${fresh[0]}`);
  const r = spawnSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', file], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`callgrind_annotate ${file}: ${r.stderr}`);
  let gc = 0;
  let compile = 0;
  for (const line of r.stdout.split('\n')) {
    const g = GC.exec(line);
    if (g) gc += Number(g[1].replaceAll(',', ''));
    const c = COMPILE.exec(line);
    if (c) compile += Number(c[1].replaceAll(',', ''));
  }
  // BENCH_KEEP=<dir>: each window's dump kept there (side, query, window) for a per-function comparison with
  // callgrind_annotate; otherwise removed.
  if (KEEP && keepAs) copyFileSync(file, join(KEEP, keepAs));
  rmSync(file);
  return { total: Number(m[1]), gc, compile };
}

function parseSides() {
  const spec = (process.env.BENCH_SIDES ?? 'off,metrics,logs+m').split(',');
  return spec.map((s) => {
    const [tag, checkout = THIS_CHECKOUT] = s.split('@');
    // `off#2`: a second side alike (how far two identical engines differ).
    const label = tag.split('#')[0];
    if (!ENVS[label]) throw new Error(`unknown side ${label} (one of ${Object.keys(ENVS).join(', ')})`);
    return { name: s, env: ENVS[label], checkout };
  });
}

async function main() {
  const sides = parseSides();
  const queries = QUERIES.filter((q) => !ONLY || ONLY.includes(q.key));
  const checkouts = [...new Set(sides.map((s) => s.checkout))];
  const dbs = new Map();
  for (const [i, c] of checkouts.entries()) {
    progress(`instructions: database ${i + 1} for ${c}`);
    const url = await createDatabase(`bench_instructions_${i}`);
    const first = await startEngine(c, url, quiet);
    await applyMetadata(first.url);
    await first.stop();
    dbs.set(c, { url, name: `bench_instructions_${i}` });
  }
  const counts = Object.fromEntries(sides.map((s) => [s.name, {}]));
  const gcs = Object.fromEntries(sides.map((s) => [s.name, {}]));
  const dir = mkdtempSync(join(tmpdir(), 'engine-callgrind-'));
  if (KEEP) mkdirSync(KEEP, { recursive: true });
  try {
    // The sides of a round run at the same time (a count does not depend on the neighbours): the wall time of a round
    // is one side's, on enough cores.
    for (let round = 0; round < ROUNDS; round++) {
      await Promise.all(sides.map(async (side) => {
        progress(`instructions: round ${round + 1}/${ROUNDS}, ${side.name}: starting under callgrind`);
        const e = await startEngine(side.checkout, dbs.get(side.checkout).url, side.env, NODE_ARGS, {
          prefix: ['valgrind', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${join(dir, 'cg.%p')}`],
          startTimeoutMs: 300_000,
        });
        try {
          const gql = `${e.url}/v1/graphql`;
          for (const q of queries) {
            const err = await sampleError(gql, q.engine);
            if (err) throw new Error(`${side.name}: ${q.label}: ${err}`);
            await send(gql, q.engine, WARMUP, 0);
            control(e.pid, '-i', 'on');
            const windows = [];
            for (let w = 0; w < WINDOWS; w++) {
              control(e.pid, '-z');
              await send(gql, q.engine, REQUESTS, WARMUP + w * REQUESTS);
              windows.push(dumpCounts(dir, e.pid, `${side.name.replace(/[^\w#+-]/g, '_')}.${q.key}.r${round + 1}.w${w + 1}`));
            }
            control(e.pid, '-i', 'off');
            const mutator = windows.map((c) => (c.total - c.gc - c.compile) / REQUESTS);
            (counts[side.name][q.key] ??= []).push(median(mutator));
            (gcs[side.name][q.key] ??= []).push(windows.reduce((a, c) => a + c.gc, 0) / (REQUESTS * WINDOWS));
            const k = (x) => Math.round(x / 1000);
            progress(`instructions:   ${side.name} ${q.key}: mutator ${mutator.map(k).join(', ')} k, collector ${windows.map((c) => k(c.gc / REQUESTS)).join(', ')} k, compiler ${windows.map((c) => k(c.compile / REQUESTS)).join(', ')} k per request`);
          }
        } finally {
          await e.stop();
        }
      }));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    for (const { name } of dbs.values()) await dropDatabase(name);
  }
  const base = sides[0].name;
  const k = (x) => `${(x / 1000).toFixed(0)} k`;
  const table = (title, of) => {
    console.log(`${title}\n`);
    console.log(`| query | ${sides.map((s) => s.name).join(' | ')} | ${sides.slice(1).map((s) => `${s.name} ÷ ${base}`).join(' | ')} |`);
    console.log(`|---|${sides.map(() => '---:').join('|')}|${sides.slice(1).map(() => '---:').join('|')}|`);
    for (const q of queries) {
      const cells = sides.map((s) => { const xs = of[s.name][q.key]; return `${k(median(xs))} (${k(Math.min(...xs))}–${k(Math.max(...xs))})`; });
      const ratios = sides.slice(1).map((s) => `${(median(of[s.name][q.key]) / median(of[base][q.key])).toFixed(3)}×`);
      console.log(`| ${q.key} | ${cells.join(' | ')} | ${ratios.join(' | ')} |`);
    }
    console.log('');
  };
  const how = `callgrind, engine process${NODE_ARGS.length ? ` with ${NODE_ARGS.join(' ')}` : ''}, ${WARMUP} requests of warm-up, then ${WINDOWS} windows of ${REQUESTS}; ${CONNECTIONS} connection(s); median of ${ROUNDS} new processes, spread = min–max`;
  table(`Instructions per request outside the garbage collector and the optimizing compiler (median of the windows; ${how})`, counts);
  table(`The garbage collector's instructions per request (mean of the windows; ${how})`, gcs);
}

await main();
