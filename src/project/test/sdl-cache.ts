import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheRoot } from '../../db/pglite-template.js';
import { isObject, type JsonObject } from '../../metadata/json.js';
import { VERSION } from '../../version.js';
import type { Step } from '../migrations/migrations.js';
import { cacheKey, readCached, writeCached } from './migrated-cache.js';

/**
 * A role's SDL (`engine metadata schema`, issue 33), cached by everything it is made of: a warm run prints it without
 * starting PostgreSQL. The inputs: the engine's code, PGlite's version (the PostgreSQL whose catalog is read), the
 * engine catalog's set-up, every migration (version, name, SQL as written), the built metadata document and the role.
 * Seeds are not applied by the command, and session variables do not shape a schema. Remote schemas do, from a service
 * read at run time: a metadata with any is never cached. In `<cache root>/sdl/`, beside the migrated databases
 * (docs/decisions.md).
 */
export const sdlCacheDirectory = (): string => join(cacheRoot(), 'sdl');

let build: string | undefined;

/**
 * The engine's code: its version and, since a build of the repository keeps its version across edits, the size and
 * time of every file of the build it runs from (the bundle's directory, else the compiled tree; a few ms).
 */
export function engineBuild(): string {
  if (build !== undefined) return build;
  const here = dirname(fileURLToPath(import.meta.url));
  const root = basename(here) === 'bundle' ? here : join(here, '..', '..');
  const h = createHash('sha256').update(VERSION);
  const files: string[] = [];
  for (const e of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (e.isFile() && /\.[cm]?[jt]s$/.test(e.name)) files.push(join(e.parentPath, e.name));
  }
  for (const f of files.sort()) {
    const s = statSync(f);
    h.update(`${f}\0${s.size}\0${s.mtimeMs}\0`);
  }
  build = h.digest('hex');
  return build;
}

/** False when the schema depends on more than the project's files (remote schemas, introspected when the engine starts). */
export function sdlCacheable(document: JsonObject): boolean {
  const remotes = document['remote_schemas'];
  return !(Array.isArray(remotes) && remotes.length > 0) && !isObject(remotes);
}

/** The key of each role's SDL (see above), from the project's migrations as read from its files (migrationSteps). */
export function sdlKeys(setupKey: string, steps: Step[], document: JsonObject, roles: string[]): Map<string, string> {
  // The migrated database's key already covers PGlite's version, the catalog's set-up and every migration.
  const h = createHash('sha256').update(`engine ${engineBuild()}\0migrated ${cacheKey(setupKey, steps)}\0`);
  h.update(`\0metadata ${JSON.stringify(document)}\0role `);
  return new Map(roles.map((r) => [r, h.copy().update(r).digest('hex').slice(0, 32)]));
}

export function readSdl(dir: string, key: string): string | null {
  const bytes = readCached(dir, key, 'graphql');
  return bytes === null ? null : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

export const writeSdl = (dir: string, key: string, sdl: string): void => writeCached(dir, key, Buffer.from(sdl, 'utf8'), 'graphql');
