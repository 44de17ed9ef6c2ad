import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { PGliteOptions } from '@electric-sql/pglite';

type WasmModule = NonNullable<PGliteOptions['pgliteWasmModule']>;
/** Node's global WebAssembly (our lib, ES2023 without the DOM, declares none). */
const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WasmModule> } }).WebAssembly;

/** PGlite's WebAssembly, compiled, and its file bundle: what `PGlite.create` would otherwise read and compile itself. */
export interface PgliteFiles {
  wasmModule: WasmModule;
  fsBundle: Blob;
}

let pending: Promise<PgliteFiles | null> | null = null;

/**
 * Starts reading and compiling PGlite's files once per process; null when they are not where this PGlite version keeps
 * them (PGlite then reads them itself). `engine serve` starts it before the CLI has loaded, so that the reads and the
 * compile (off the main thread) overlap the loading of our modules instead of following it.
 */
export function preloadPglite(): Promise<PgliteFiles | null> {
  pending ??= load().catch(() => null);
  return pending;
}

async function load(): Promise<PgliteFiles> {
  const dir = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  const [bytes, data] = await Promise.all([readFile(join(dir, 'pglite.wasm')), readFile(join(dir, 'pglite.data'))]);
  return { wasmModule: await wasm.compile(bytes), fsBundle: new Blob([data]) };
}
