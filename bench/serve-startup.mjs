// Issue 18: `engine serve` start-up as users run it — a separate process on a data directory, timed from spawn to its
// first healthy answer (GET /healthz polled from the spawn on). A fresh directory is filled from the template cached
// per machine, a restart opens an existing one; the first start on a machine (initdb into an empty cache) is shown
// as information. Goals: fresh ≤ 1 s, restart ≤ 0.5 s, `npm run quickstart` ≤ 15 s after the build.
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { goalRow, p50, progress } from './lib.mjs';
import { freePort } from './peer/servers.mjs';

const BIN = fileURLToPath(new URL('../bin/engine.js', import.meta.url));
const QUICKSTART = fileURLToPath(new URL('../scripts/quickstart.mjs', import.meta.url));
export const RUNS = { quick: 2, full: 5 };
const QUICKSTART_RUNS = { quick: 1, full: 3 };

/** 200 from GET /healthz, or false (refused, not yet listening, or not healthy). */
const healthy = (port) => new Promise((resolve) => {
  const req = request({ host: '127.0.0.1', port, path: '/healthz', timeout: 10_000 }, (res) => {
    res.resume();
    resolve(res.statusCode === 200);
  });
  req.on('error', () => resolve(false));
  req.on('timeout', () => req.destroy());
  req.end();
});

/** CPU ms a process has used (all threads, and its main thread alone), where /proc tells; else null. */
function cpuOf(pid) {
  const ms = (file) => {
    const f = readFileSync(file, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  };
  try {
    return { all: ms(`/proc/${pid}/stat`), main: ms(`/proc/${pid}/task/${pid}/stat`) };
  } catch {
    return null;
  }
}

/**
 * Spawns `engine serve` (of `bin`, this checkout's by default) on `dataDir`; resolves with {ms, cpu} from spawn to the
 * first healthy answer, after stopping it.
 */
export async function startOnce(dataDir, env = {}, bin = BIN) {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [bin, 'serve', '--port', String(port), '--data-dir', dataDir, '--admin-secret', 'bench'], {
    stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1', ...env },
  });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  let gone = false;
  void exited.then(() => (gone = true));
  try {
    for (;;) {
      if (gone) throw new Error(`engine serve exited before it was healthy: ${err}`);
      if (performance.now() - started > 120_000) throw new Error(`engine serve was not healthy within 120 s: ${err}`);
      if (await healthy(port)) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    return { ms: performance.now() - started, cpu: cpuOf(child.pid) };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/**
 * The floor: a node process that only imports PGlite, opens the same data directory (PGlite's defaults) and answers
 * one query, timed from spawn to the answer (it prints the time itself: the process lives on to be measured).
 */
const FLOOR = `const t0 = Number(process.argv[2]);
const { PGlite } = await import('@electric-sql/pglite');
const db = await PGlite.create(process.argv[1]);
await db.query('SELECT 1');
process.stdout.write(String(performance.timeOrigin + performance.now() - t0));
await db.close();
await new Promise(() => {});`;

/** Resolves with {ms, cpu} once the floor process has answered (its CPU read then), after stopping it. */
function floorOnce(dataDir) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', FLOOR, dataDir, String(performance.timeOrigin + performance.now())], {
      cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    let result = null;
    child.stdout.setEncoding('utf8').on('data', (d) => {
      result = { ms: Number(d), cpu: cpuOf(child.pid) };
      child.kill('SIGTERM');
    });
    child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
    child.on('exit', (code) => (result ? resolve(result) : reject(new Error(`the PGlite floor exited ${code}: ${err}`))));
  });
}

/** `node scripts/quickstart.mjs` into a temporary directory: the whole newcomer's path, in ms. */
function quickstartOnce(dir) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [QUICKSTART, '--dir', dir], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
    child.on('exit', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`quickstart exited ${code}: ${err.slice(-1000)}`))));
  });
}

const cpuText = (r) => (r.cpu ? ` (cpu ${r.cpu.all} ms, main thread ${r.cpu.main} ms)` : '');

export async function run({ quick, add }) {
  const runs = quick ? RUNS.quick : RUNS.full;
  const root = mkdtempSync(join(tmpdir(), 'engine-bench-startup-'));
  const group = 'start-up (issue 18)';
  const db = 'PGlite (data dir)';
  try {
    // The first start on a machine runs initdb into an empty cache (information); then the user's cache, as it is.
    const first = await startOnce(join(root, 'first'), { ENGINE_CACHE_DIR: join(root, 'cache') });
    progress(`  first start on a machine (initdb into an empty cache): ${first.ms.toFixed(0)} ms${cpuText(first)}`);
    add({ ...goalRow(group, 'engine serve, first start on a machine (builds the template): spawn → healthy', db, first.ms, 1000), goal: 'information', ratio: null, pass: null });
    if (!existsSync(join(root, 'first', 'PG_VERSION'))) throw new Error('the first start left no data directory');
    await startOnce(join(root, 'warm'));
    const fresh = [];
    const restart = [];
    // The floor: what PGlite alone takes on the same directory, right after the restart (the same machine state);
    // the part of a restart no change of ours can remove.
    const floor = [];
    for (let i = 0; i < runs; i++) {
      const dir = join(root, `d${i}`);
      const f = await startOnce(dir);
      const r = await startOnce(dir);
      const b = await floorOnce(dir);
      fresh.push(f.ms);
      restart.push(r.ms);
      floor.push(b.ms);
      progress(`  start-up run ${i + 1}/${runs}: fresh ${f.ms.toFixed(0)} ms${cpuText(f)}, restart ${r.ms.toFixed(0)} ms${cpuText(r)}, ` +
        `floor ${b.ms.toFixed(0)} ms${cpuText(b)}`);
    }
    add(goalRow(group, 'engine serve, fresh data directory: spawn → healthy', db, p50(fresh), 1000));
    add(goalRow(group, 'engine serve, restart on its data directory: spawn → healthy', db, p50(restart), 500));
    add({ ...goalRow(group, 'floor: a process with bare PGlite.create on that directory, spawn → SELECT 1', db, p50(floor), 500), goal: 'information', ratio: null, pass: null });
    const qs = [];
    for (let i = 0; i < (quick ? QUICKSTART_RUNS.quick : QUICKSTART_RUNS.full); i++) {
      qs.push(await quickstartOnce(join(root, `quickstart${i}`)));
      progress(`  npm run quickstart (after the build) run ${i + 1}: ${(qs[i] / 1000).toFixed(1)} s`);
    }
    add(goalRow(group, 'npm run quickstart, after the build: whole run', db, p50(qs), 15_000));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
