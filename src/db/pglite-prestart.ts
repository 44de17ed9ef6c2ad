import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { PACKAGE_ROOT } from '../package-root.js';
import type { WorkerData } from './pglite-protocol.js';

// The embedded database's thread started before anything else of `engine serve` loads (issue 28: start-up). This
// module imports nothing heavy, so that the CLI can call it before its own modules load: PGlite's compile and the
// thread's start are most of a restart, and they run on the other core meanwhile.

/** Where `engine serve` keeps the embedded database unless told otherwise (relative to its working directory). */
export const DEFAULT_DATA_DIR = '.engine/data';

/**
 * The worker's script beside this module (dist/db/, or dist/bundle/ where the bundle has it as an entry); the tests run
 * this module from src/, where the built one in dist/db/ serves.
 */
export function workerFile(): string {
  const here = fileURLToPath(new URL('./pglite-worker.js', import.meta.url));
  return existsSync(here) ? here : join(PACKAGE_ROOT, 'dist', 'db', 'pglite-worker.js');
}

/**
 * Set before the database's thread starts, so that its isolate is made with them. V8 optimises a WebAssembly function
 * once it has run ~1.8 MB worth of code: PostgreSQL's start runs enough of its code to set off a second of optimising
 * compiles, which on two busy cores doubled the time to the first answer. Ten times the budget halves that work. The
 * compiles that remain run one at a time: V8 gives them every background thread it has (four), which on two cores took
 * half the CPU from the thread running PostgreSQL while it started (a restart ~20 % longer). What runs hot is optimised
 * all the same, one thread keeping up (bench/embedded-warmup.mjs: the same speed from the first seconds of load).
 */
export function setWasmTiering(): void {
  setFlagsFromString('--wasm-tiering-budget=18000000');
  setFlagsFromString('--wasm-num-compilation-tasks=1');
}

/** A worker started before its database is opened (prestartPgliteWorker), PGlite started there. */
let prestarted: { worker: Worker; dataDir: string; failed: boolean } | null = null;

/**
 * Starts the embedded database's worker thread for `dataDir` now: the thread, its modules and PGlite's start run on the
 * other core while this one loads the engine's (issue 28: start-up). PGlite mounts the directory only once open() says
 * that its lock is held and its template copied (SeedingNodeFS), so nothing reads it before; unless opened, the thread
 * keeps no process alive. A second call while one waits does nothing: open() replaces a worker started for another
 * directory.
 */
export function prestartPgliteWorker(dataDir = DEFAULT_DATA_DIR): void {
  if (prestarted) return;
  setWasmTiering();
  const data: WorkerData = { dataDir: resolve(dataDir) };
  const p = { worker: new Worker(workerFile(), { workerData: data }), dataDir: data.dataDir, failed: false };
  p.worker.unref();
  const failed = (): void => void (p.failed = true);
  p.worker.once('error', failed).once('exit', failed);
  prestarted = p;
}

/** The prestarted worker when it serves `dataDir` and is alive (it is then taken), else null (any other is stopped). */
export function takePrestartedWorker(dataDir: string): Worker | null {
  const p = prestarted;
  prestarted = null;
  if (p && !p.failed && p.dataDir === resolve(dataDir)) {
    p.worker.removeAllListeners();
    p.worker.ref();
    return p.worker;
  }
  if (p) void p.worker.terminate();
  return null;
}

/** The engine runs on an external PostgreSQL after all: a worker started on a guess is stopped (settles once it has). */
export async function discardPrestartedWorker(): Promise<void> {
  const p = prestarted;
  prestarted = null;
  await p?.worker.terminate();
}
