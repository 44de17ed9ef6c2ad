import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheRoot, pgliteVersion } from '../../db/pglite-template.js';
import type { Step } from '../migrations/migrations.js';

/**
 * The ephemeral engine's database once the project's migrations ran (issue 33): creating 1,000 tables is seconds of
 * PostgreSQL's CPU, loading their saved data directory a fraction of it. One gzipped dump (PgliteDatabase.dump:
 * checkpointed, without spare WAL) per key — PGlite's version, the engine catalog's set-up and the SQL of every
 * migration run, in order — in `<cache root>/migrated/` next to the catalog templates (docs/decisions.md). A file is written under a temporary name and renamed, and carries the
 * SHA-256 of its dump: a half-written or damaged file is never loaded, only replaced.
 */
export const cacheDirectory = (): string => join(cacheRoot(), 'migrated');

export function cacheKey(setupKey: string, steps: Step[]): string {
  const h = createHash('sha256').update(`pglite ${pgliteVersion()}\0catalog ${setupKey}\0`);
  for (const s of steps) h.update(`${s.migration.version}\0${s.migration.name}\0${s.sql ?? ''}\0`);
  return h.digest('hex').slice(0, 32);
}

const DIGEST = 32;
const fileOf = (dir: string, key: string, ext: string): string => join(dir, `${key}.${ext}`);

/** The bytes saved under `key` (a dump; `ext`: another kind of file), or null: none, or not the bytes that were saved. */
export function readCached(dir: string, key: string, ext = 'dump'): Uint8Array | null {
  let file: Buffer;
  try {
    file = readFileSync(fileOf(dir, key, ext));
  } catch {
    return null;
  }
  if (file.length <= DIGEST) return null;
  const dump = file.subarray(DIGEST);
  if (!createHash('sha256').update(dump).digest().equals(file.subarray(0, DIGEST))) return null;
  try {
    // Used: not stale (removeStale goes by the time of the file).
    const now = new Date();
    utimesSync(fileOf(dir, key, ext), now, now);
  } catch {
    // Read-only cache: still usable.
  }
  return dump;
}

/** Saves a dump (or a file of `ext`) under `key`; best effort (a cache that cannot be written only costs the next run its time). */
export function writeCached(dir: string, key: string, dump: Uint8Array, ext = 'dump'): void {
  const tmp = `${fileOf(dir, key, ext)}.tmp-${randomBytes(4).toString('hex')}`;
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(tmp, Buffer.concat([createHash('sha256').update(dump).digest(), dump]));
    renameSync(tmp, fileOf(dir, key, ext));
    removeStale(dir, `${key}.${ext}`);
  } catch {
    rmSync(tmp, { force: true });
  }
}

/** A dump not used for a week is removed: every edit of a migration leaves one behind. */
const STALE_MS = 7 * 24 * 3600 * 1000;

function removeStale(dir: string, keep: string): void {
  for (const n of readdirSync(dir)) {
    if (n === keep) continue;
    try {
      if (Date.now() - statSync(join(dir, n)).mtimeMs > STALE_MS) rmSync(join(dir, n), { force: true });
    } catch {
      // Another process may be removing it too.
    }
  }
}
