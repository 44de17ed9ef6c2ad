import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { PGliteOptions } from '@electric-sql/pglite';

/** PGlite's `dist/`, where it keeps its WebAssembly and file bundle (its package.json is one level up). */
export const PGLITE_DIST = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));

/** The options by which `PGlite.create` takes its WebAssembly, compiled, and its file bundle instead of reading them. */
export type PgliteFiles = Required<Pick<PGliteOptions, 'pgliteWasmModule' | 'fsBundle'>>;

/** Node's global WebAssembly (our lib, ES2023 without the DOM, declares none). */
const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<PgliteFiles['pgliteWasmModule']> } }).WebAssembly;

let pending: Promise<PgliteFiles | null> | null = null;

/**
 * Starts reading and compiling PGlite's files once per process; null when they are not where this PGlite version keeps
 * them (PGlite then reads them itself). `engine serve` starts it as soon as it knows the database is embedded, so that
 * the reads and the compile (off the main thread) overlap the loading of the engine's modules instead of following it.
 */
export function preloadPglite(): Promise<PgliteFiles | null> {
  pending ??= load().catch(() => null);
  return pending;
}

async function load(): Promise<PgliteFiles> {
  const [bytes, data] = await Promise.all([readFile(join(PGLITE_DIST, 'pglite.wasm')), readFile(join(PGLITE_DIST, 'pglite.data'))]);
  return { pgliteWasmModule: await wasm.compile(bytes), fsBundle: new Blob([data]) };
}
