// Issue 18: `engine serve` start-up as users run it — a separate process on a data directory, timed from spawn to
// its "Engine listening" line (it listens once the database is open and the catalog loaded). A fresh directory is
// filled from the template cached per machine (built here first, as the first start on a machine would), a restart
// opens an existing one. Goals: fresh ≤ 1 s, restart ≤ 0.5 s.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { goalRow, p50, progress } from './lib.mjs';

const BIN = fileURLToPath(new URL('../bin/engine.js', import.meta.url));
export const RUNS = { quick: 2, full: 5 };

/** Spawns `engine serve` on `dataDir`; resolves with the ms from spawn to the listening line, after stopping it. */
function startOnce(dataDir) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data-dir', dataDir, '--admin-secret', 'bench'], {
      stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' },
    });
    let out = '';
    let err = '';
    let ms = null;
    child.stdout.setEncoding('utf8').on('data', (d) => {
      out += d;
      if (ms === null && /Engine listening on /.test(out)) {
        ms = performance.now() - started;
        child.kill('SIGTERM');
      }
    });
    child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
    child.on('exit', (code) => (ms === null ? reject(new Error(`engine serve exited (${code}) before listening: ${err}`)) : resolve(ms)));
  });
}

export async function run({ quick, add }) {
  const runs = quick ? RUNS.quick : RUNS.full;
  const root = mkdtempSync(join(tmpdir(), 'engine-bench-startup-'));
  try {
    // The first start on a machine builds the template; it is not what the goal is about.
    await startOnce(join(root, 'warm'));
    const fresh = [];
    const restart = [];
    for (let i = 0; i < runs; i++) {
      const dir = join(root, `d${i}`);
      fresh.push(await startOnce(dir));
      restart.push(await startOnce(dir));
      progress(`  start-up run ${i + 1}/${runs}: fresh ${fresh[i].toFixed(0)} ms, restart ${restart[i].toFixed(0)} ms`);
    }
    add(goalRow('start-up (issue 18)', 'engine serve, fresh data directory: spawn → listening', 'PGlite (data dir)', p50(fresh), 1000));
    add(goalRow('start-up (issue 18)', 'engine serve, restart on its data directory: spawn → listening', 'PGlite (data dir)', p50(restart), 500));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
