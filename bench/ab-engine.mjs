// A/B of two builds of this engine (issues 28, 31, 36: "within N % of before, measured in one run"): the peer
// benchmark's data and queries, both engines running side by side on the same database, runs interleaved round by
// round (the order of the two sides alternating) so that the machine's drift falls on both alike; medians per side.
//   node bench/ab-engine.mjs <checkout A> <checkout B>     each a checkout with dist/ built (npm run build)
//   BENCH_ROUNDS=5 BENCH_SECONDS=5 BENCH_SEQUENTIAL=2000    rounds, seconds per run, sequential requests per round
// Only the bins are used (`node <checkout>/bin/engine.js serve`), so any two commits compare. Markdown on stdout.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { request as undiciRequest } from 'undici';
import { count, median, progress } from './lib.mjs';
import { applyMetadata, createDatabase, dropDatabase } from './peer/data.mjs';
import { load, request, sampleError } from './peer/load.mjs';
import { startEngine } from './peer/servers.mjs';
import { QUERIES } from './peer-postgraphile.mjs';

const num = (name, dflt) => (process.env[name] ? Number(process.env[name]) : dflt);
const ROUNDS = num('BENCH_ROUNDS', 5);
const SECONDS = num('BENCH_SECONDS', 5);
const SEQUENTIAL = num('BENCH_SEQUENTIAL', 2000);
const CONNECTIONS = num('BENCH_CONNECTIONS', 16);

/**
 * The CPU time (user + system, µs) the engine process spent between the call and the call of the function it returns:
 * per request it holds much better than throughput on a busy machine (the other processes take wall time, not its CPU).
 */
function cpuClock(pid) {
  const read = () => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * (1e6 / 100);
  };
  return () => {
    const t0 = read();
    return () => read() - t0;
  };
}

/** p50 of the HTTP round trip of `n` sequential requests (the plan-cache hit path seen from outside). */
async function sequential(url, q, n) {
  const ms = [];
  const rnd = q.random ?? (() => 1);
  for (let i = 0; i < n; i++) {
    const { body, headers } = request(q, rnd);
    const t = process.hrtime.bigint();
    const res = await undiciRequest(url, { method: 'POST', headers, body });
    await res.body.text();
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return median(ms);
}

async function main() {
  const [a, b] = process.argv.slice(2).map((d) => resolve(d));
  if (!a || !b) throw new Error('usage: node bench/ab-engine.mjs <checkout A> <checkout B>');
  const loadStart = loadavg()[0];
  progress('ab: creating the peer database');
  const db = await createDatabase();
  const sides = [];
  try {
    for (const [label, dir] of [['A', a], ['B', b]]) sides.push({ label, dir, ...(await startEngine(dir, db)) });
    await applyMetadata(sides[0].url);
    // B reads the metadata A stored; a request to B before its schema caught up would fail the sample check below.
    for (const s of sides) await fetch(`${s.url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"type":"reload_metadata","args":{}}' });
    const figures = Object.fromEntries(sides.map((s) => [s.label, { rps: {}, cpu: {}, seq: [] }]));
    for (const s of sides) {
      for (const q of QUERIES) {
        const e = await sampleError(`${s.url}/v1/graphql`, q.engine);
        if (e) throw new Error(`${s.label} (${s.dir}): ${q.label}: ${e}`);
      }
    }
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? [...sides].reverse() : sides;
      for (const q of QUERIES) {
        for (const s of order) {
          progress(`ab: round ${round + 1}/${ROUNDS} ${q.key} ${s.label}`);
          const m = await load(`${s.url}/v1/graphql`, q.engine, { seconds: SECONDS, warmup: 1, connections: CONNECTIONS, measured: cpuClock(s.pid) });
          (figures[s.label].rps[q.key] ??= []).push(m.rps);
          (figures[s.label].cpu[q.key] ??= []).push(m.cpuPerRequestUs);
        }
      }
      for (const s of order) figures[s.label].seq.push(await sequential(`${s.url}/v1/graphql`, QUERIES[0].engine, SEQUENTIAL));
    }
    const rows = QUERIES.map((q) => {
      const ra = median(figures.A.rps[q.key]);
      const rb = median(figures.B.rps[q.key]);
      const spread = (xs) => `${count(Math.round(Math.min(...xs)))}–${count(Math.round(Math.max(...xs)))}`;
      const ca = median(figures.A.cpu[q.key]);
      const cb = median(figures.B.cpu[q.key]);
      return `| ${q.label} | ${count(Math.round(ra))} (${spread(figures.A.rps[q.key])}) | ${count(Math.round(rb))} (${spread(figures.B.rps[q.key])}) | ${(rb / ra).toFixed(3)}× | ${Math.round(ca)} | ${Math.round(cb)} | ${(cb / ca).toFixed(3)}× |`;
    });
    const sa = median(figures.A.seq);
    const sb = median(figures.B.seq);
    console.log([
      `## A/B: ${b} (B) against ${a} (A)`,
      '',
      `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC; external PostgreSQL; ${ROUNDS} interleaved rounds of ${SECONDS} s per query and side at ${CONNECTIONS} connections` +
        ` (after 1 s warm-up each); load average ${loadStart.toFixed(2)} at start, ${loadavg()[0].toFixed(2)} at end.`,
      '',
      '| query | A req/s median (min–max) | B req/s median (min–max) | B / A | A engine CPU µs/request | B | B / A |',
      '|---|---:|---:|---:|---:|---:|---:|',
      ...rows,
      `| plan-cache hit path: HTTP round trip p50 of ${count(SEQUENTIAL)} sequential by-pk requests, median of rounds (lower is better) | ${sa.toFixed(3)} ms | ${sb.toFixed(3)} ms | ${(sb / sa).toFixed(3)}× | | | |`,
    ].join('\n'));
  } finally {
    for (const s of sides) await s.stop();
    await dropDatabase();
  }
}

await main();
