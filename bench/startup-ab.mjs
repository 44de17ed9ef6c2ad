// Issue 28 (benchmarks): `engine serve` start-up of two builds in one run — a fresh data directory (filled from the
// machine's template, each build its own cache) and a restart on it, spawn → first healthy answer, the two builds
// interleaved round by round (the order alternating); medians of wall time and of the process's CPU time.
//   node bench/startup-ab.mjs <checkout A> <checkout B>     each with dist/ built;  BENCH_ROUNDS=9
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { p50, progress } from './lib.mjs';
import { startOnce } from './serve-startup.mjs';

const [a, b] = process.argv.slice(2).map((c) => resolve(c));
if (!a || !b) throw new Error('usage: node bench/startup-ab.mjs <checkout A> <checkout B>');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const root = mkdtempSync(join(tmpdir(), 'engine-bench-startup-ab-'));
const sides = [{ label: 'A', checkout: a }, { label: 'B', checkout: b }];
const got = Object.fromEntries(sides.map((s) => [s.label, { fresh: [], restart: [], freshCpu: [], restartCpu: [] }]));
const loadStart = loadavg()[0];
try {
  for (const s of sides) {
    // Each build's template cache made once before the rounds (the first start on a machine is not measured here).
    s.env = { ENGINE_CACHE_DIR: join(root, `cache-${s.label}`) };
    s.bin = join(s.checkout, 'bin', 'engine.js');
    await startOnce(join(root, `warm-${s.label}`), s.env, s.bin);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of round % 2 ? [...sides].reverse() : sides) {
      const dir = join(root, `${s.label}-${round}`);
      const f = await startOnce(dir, s.env, s.bin);
      const r = await startOnce(dir, s.env, s.bin);
      const g = got[s.label];
      g.fresh.push(f.ms);
      g.restart.push(r.ms);
      g.freshCpu.push(f.cpu?.all ?? NaN);
      g.restartCpu.push(r.cpu?.all ?? NaN);
      progress(`startup-ab: round ${round + 1}/${ROUNDS} ${s.label}: fresh ${f.ms.toFixed(0)} ms, restart ${r.ms.toFixed(0)} ms`);
    }
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
const row = (name, key) => {
  const x = p50(got.A[key]);
  const y = p50(got.B[key]);
  return `| ${name} | ${x.toFixed(0)} | ${y.toFixed(0)} | ${(y / x).toFixed(3)}× |`;
};
console.log(`A = ${a}\nB = ${b}\n${ROUNDS} rounds, load ${loadStart.toFixed(2)} → ${loadavg()[0].toFixed(2)}\n`);
console.log('| start-up (ms, median) | A | B | B ÷ A |\n|---|---:|---:|---:|');
console.log([row('fresh data directory: spawn → healthy', 'fresh'), row('restart: spawn → healthy', 'restart'),
  row('fresh: CPU of the process', 'freshCpu'), row('restart: CPU of the process', 'restartCpu')].join('\n'));
