import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import type { PGlite } from '@electric-sql/pglite';
import { PGLITE_DIST } from './pglite-preload.js';

/**
 * initdb is most of a first start of the embedded engine (4–7 s here, far more on a loaded machine). It runs once per
 * PGlite version and machine, into a cache: the initialised data directory and its tarball. A new data directory is
 * then a copy of the template, and an in-memory database (the tests) loads the tarball.
 */

export interface Template {
  /** A cleanly shut down data directory, fresh from initdb. */
  dir: string;
  /** The same directory as PGlite's gzipped dump, for in-memory databases. */
  tarball: string;
}

let version: string | undefined;

export function pgliteVersion(): string {
  if (version) return version;
  // The package exports no package.json: it is above its dist/.
  const pkg = JSON.parse(readFileSync(join(dirname(PGLITE_DIST), 'package.json'), 'utf8')) as { version: string };
  version = pkg.version;
  return version;
}

/** `$ENGINE_CACHE_DIR`, else `$XDG_CACHE_HOME/engine`, else `~/.cache/engine`. */
export function cacheRoot(): string {
  const env = process.env['ENGINE_CACHE_DIR'];
  if (env) return env;
  const xdg = process.env['XDG_CACHE_HOME'];
  return join(xdg || join(homedir() || tmpdir(), '.cache'), 'engine');
}

/**
 * What a template holds beyond initdb's catalog (the engine's own catalog): run once when the template is built.
 * Templates of different keys live side by side; building one removes those of other keys older than a week.
 */
export interface TemplateSetup {
  key: string;
  run(db: PGlite): Promise<void>;
  /** Told when this process builds the template (seconds, once per machine), with the directory it goes to. */
  onBuild?: (dir: string) => void;
}

/** Builds in flight, one per key: processes share the cache through rename, a process's own callers through this. */
const building = new Map<string, Promise<Template | null>>();

/** The template, built on first use; null when it cannot be built (the caller runs initdb itself). */
export function template(setup?: TemplateSetup): Promise<Template | null> {
  const key = setup?.key ?? '';
  let p = building.get(key);
  if (!p) {
    p = build(setup).catch(() => null).finally(() => building.delete(key));
    building.set(key, p);
  }
  return p;
}

async function build(setup: TemplateSetup | undefined): Promise<Template> {
  const base = `pglite-${pgliteVersion()}`;
  const name = setup ? `${base}-${createHash('sha256').update(setup.key).digest('hex').slice(0, 12)}` : base;
  const root = join(cacheRoot(), name);
  const found = { dir: join(root, 'data'), tarball: join(root, 'data.tar.gz') };
  if (existsSync(join(found.dir, 'PG_VERSION')) && existsSync(found.tarball)) return found;
  mkdirSync(cacheRoot(), { recursive: true });
  setup?.onBuild?.(root);
  // Built aside and renamed into place, so that processes starting together never see half a template.
  const tmp = `${root}.tmp-${randomBytes(4).toString('hex')}`;
  try {
    mkdirSync(tmp, { recursive: true });
    // Loaded only to build a template: `engine serve` runs PGlite in its worker thread (pglite-remote.ts).
    const { PGlite } = await import('@electric-sql/pglite');
    const db = await PGlite.create(join(tmp, 'data'));
    if (setup) await setup.run(db);
    const dump = await db.dumpDataDir('gzip');
    await db.close();
    writeFileSync(join(tmp, 'data.tar.gz'), Buffer.from(await dump.arrayBuffer()));
    try {
      renameSync(tmp, root);
    } catch (e) {
      // Another process won the race (or an incomplete template is there): use a complete one, else replace it.
      if (!existsSync(join(found.dir, 'PG_VERSION')) || !existsSync(found.tarball)) {
        rmSync(root, { recursive: true, force: true });
        renameSync(tmp, root);
      } else if ((e as NodeJS.ErrnoException).code !== 'ENOTEMPTY' && (e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    if (setup) removeOlder(base, name);
    return found;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** A template of another setup is removed once it is this old: 80 MB each, and a process of another version may still copy it. */
const STALE_MS = 7 * 24 * 3600 * 1000;

/** Templates of the same PGlite version and another setup, built more than a week ago. Best effort. */
function removeOlder(base: string, keep: string): void {
  try {
    for (const n of readdirSync(cacheRoot())) {
      if (!n.startsWith(`${base}-`) || n === keep || n.includes('.tmp-')) continue;
      if (Date.now() - statSync(join(cacheRoot(), n)).mtimeMs > STALE_MS) rmSync(join(cacheRoot(), n), { recursive: true, force: true });
    }
  } catch {
    // Another process may be removing them too.
  }
}

/** The file PostgreSQL (and PGlite) take as the sign of an initialised data directory. */
const MARKER = 'PG_VERSION';

/**
 * Copies the template's ~1,000 files with copyFile on libuv's thread pool: the main thread only issues them, so the
 * copy runs while PGlite compiles its WebAssembly (fs.cpSync spent as long as PGlite's whole start on the main
 * thread). PG_VERSION comes last: a copy cut short leaves no marker, and the next start copies again.
 */
async function copyTemplate(from: string, to: string): Promise<void> {
  const files: string[] = [];
  for (const e of readdirSync(from, { recursive: true, withFileTypes: true })) {
    const rel = relative(from, join(e.parentPath, e.name));
    if (e.isDirectory()) mkdirSync(join(to, rel), { recursive: true });
    else if (rel !== MARKER) files.push(rel);
  }
  await Promise.all(files.map((f) => copyFile(join(from, f), join(to, f))));
  await copyFile(join(from, MARKER), join(to, MARKER));
}

/** Fills a new data directory from the template; false when it has one already or there is no template (initdb runs). */
export async function seedDataDir(dataDir: string, setup?: TemplateSetup): Promise<boolean> {
  mkdirSync(dataDir, { recursive: true });
  if (existsSync(join(dataDir, MARKER))) return false;
  const t = await template(setup);
  if (!t) return false;
  await copyTemplate(t.dir, dataDir);
  return true;
}
