// Every contrib extension PGlite ships, made available to CREATE EXTENSION lazily. PGlite unpacks every extension
// passed to PGlite.create at start-up (about 1 s for all of them), so none is passed: a bundle is unpacked into the
// running instance's file system when a script asks for it, and at start for the extensions the database has.
// test/integration/pglite-extensions.test.ts fails when a PGlite upgrade ships a bundle this list does not name.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Extension, PGlite } from '@electric-sql/pglite';
import { cacheRoot, pgliteVersion } from './pglite-template.js';

/** Each bundle's module, imported when the extension is first wanted: importing all of them cost every start ~40 ms. */
const ALL: Record<string, () => Promise<Extension>> = {
  amcheck: async () => (await import('@electric-sql/pglite/contrib/amcheck')).amcheck,
  auto_explain: async () => (await import('@electric-sql/pglite/contrib/auto_explain')).auto_explain,
  bloom: async () => (await import('@electric-sql/pglite/contrib/bloom')).bloom,
  btree_gin: async () => (await import('@electric-sql/pglite/contrib/btree_gin')).btree_gin,
  btree_gist: async () => (await import('@electric-sql/pglite/contrib/btree_gist')).btree_gist,
  citext: async () => (await import('@electric-sql/pglite/contrib/citext')).citext,
  cube: async () => (await import('@electric-sql/pglite/contrib/cube')).cube,
  dict_int: async () => (await import('@electric-sql/pglite/contrib/dict_int')).dict_int,
  dict_xsyn: async () => (await import('@electric-sql/pglite/contrib/dict_xsyn')).dict_xsyn,
  earthdistance: async () => (await import('@electric-sql/pglite/contrib/earthdistance')).earthdistance,
  file_fdw: async () => (await import('@electric-sql/pglite/contrib/file_fdw')).file_fdw,
  fuzzystrmatch: async () => (await import('@electric-sql/pglite/contrib/fuzzystrmatch')).fuzzystrmatch,
  hstore: async () => (await import('@electric-sql/pglite/contrib/hstore')).hstore,
  intarray: async () => (await import('@electric-sql/pglite/contrib/intarray')).intarray,
  isn: async () => (await import('@electric-sql/pglite/contrib/isn')).isn,
  lo: async () => (await import('@electric-sql/pglite/contrib/lo')).lo,
  ltree: async () => (await import('@electric-sql/pglite/contrib/ltree')).ltree,
  moddatetime: async () => (await import('@electric-sql/pglite/contrib/moddatetime')).moddatetime,
  pageinspect: async () => (await import('@electric-sql/pglite/contrib/pageinspect')).pageinspect,
  pg_buffercache: async () => (await import('@electric-sql/pglite/contrib/pg_buffercache')).pg_buffercache,
  pg_freespacemap: async () => (await import('@electric-sql/pglite/contrib/pg_freespacemap')).pg_freespacemap,
  pg_stat_statements: async () => (await import('@electric-sql/pglite/contrib/pg_stat_statements')).pg_stat_statements,
  pg_surgery: async () => (await import('@electric-sql/pglite/contrib/pg_surgery')).pg_surgery,
  pg_trgm: async () => (await import('@electric-sql/pglite/contrib/pg_trgm')).pg_trgm,
  pg_visibility: async () => (await import('@electric-sql/pglite/contrib/pg_visibility')).pg_visibility,
  pg_walinspect: async () => (await import('@electric-sql/pglite/contrib/pg_walinspect')).pg_walinspect,
  pgcrypto: async () => (await import('@electric-sql/pglite/contrib/pgcrypto')).pgcrypto,
  seg: async () => (await import('@electric-sql/pglite/contrib/seg')).seg,
  tablefunc: async () => (await import('@electric-sql/pglite/contrib/tablefunc')).tablefunc,
  tcn: async () => (await import('@electric-sql/pglite/contrib/tcn')).tcn,
  tsm_system_rows: async () => (await import('@electric-sql/pglite/contrib/tsm_system_rows')).tsm_system_rows,
  tsm_system_time: async () => (await import('@electric-sql/pglite/contrib/tsm_system_time')).tsm_system_time,
  unaccent: async () => (await import('@electric-sql/pglite/contrib/unaccent')).unaccent,
  'uuid-ossp': async () => (await import('@electric-sql/pglite/contrib/uuid_ossp')).uuid_ossp,
};

/** Every extension the embedded engine can create, by its SQL name (`uuid-ossp`, `pgcrypto`, …). */
export const EMBEDDED_EXTENSIONS: ReadonlyMap<string, () => Promise<Extension>> = new Map(Object.entries(ALL));

const CREATE_EXTENSION = /\bcreate\s+extension\b/i;

/** The part of PGlite's Emscripten module that extension files are written through (PGlite keeps it protected). */
interface WasmFs {
  WASM_PREFIX: string;
  FS: { analyzePath(p: string): { exists: boolean }; mkdirTree(p: string): void; writeFile(p: string, d: Uint8Array): void; readFile(p: string, o: { encoding: 'utf8' }): string };
}

/** Unpacks extension bundles into one PGlite instance, each at most once. */
export class ExtensionLoader {
  private readonly loaded = new Set<string>();
  private readonly db: PGlite;

  constructor(db: PGlite) {
    this.db = db;
  }

  /** Makes available every shipped extension the database has installed (`installed`: pg_extension's names). */
  async loadInstalled(installed: string[]): Promise<void> {
    await this.load(installed);
  }

  /**
   * Before a script runs: a script that creates extensions gets every shipped extension it names, so that
   * CREATE EXTENSION finds them. Naming one in a comment or string only unpacks a bundle needlessly.
   */
  async prepare(sql: string): Promise<void> {
    if (!CREATE_EXTENSION.test(sql)) return;
    const lower = sql.toLowerCase();
    await this.load([...EMBEDDED_EXTENSIONS.keys()].filter((n) => new RegExp(`(^|[^a-z0-9_$-])${n.replace('-', '\\-')}($|[^a-z0-9_$-])`).test(lower)));
  }

  private async load(names: string[]): Promise<void> {
    for (const name of names) {
      const ext = EMBEDDED_EXTENSIONS.get(name);
      if (!ext || this.loaded.has(name)) continue;
      this.loaded.add(name);
      const files = (await cachedFiles(name)) ?? (await cacheFiles(name, await unpack(await ext(), this.db)));
      const mod = (this.db as unknown as { mod: WasmFs }).mod;
      for (const [path, data] of files) {
        const full = `${mod.WASM_PREFIX}/${path}`;
        const dir = full.slice(0, full.lastIndexOf('/'));
        if (!mod.FS.analyzePath(dir).exists) mod.FS.mkdirTree(dir);
        mod.FS.writeFile(full, data);
      }
      // An extension that requires another (earthdistance → cube) needs that one's files too.
      const control = files.find(([p]) => p.endsWith(`/${name}.control`));
      const requires = control ? /^\s*requires\s*=\s*'([^']*)'/m.exec(Buffer.from(control[1]).toString('utf8'))?.[1] : undefined;
      if (requires) await this.load(requires.split(',').map((r) => r.trim()));
    }
  }
}

/**
 * An extension's files, unpacked once per PGlite version into the cache (one file: a JSON index, then the bytes): a
 * database that has pgcrypto (the engine's always do, issue 29) opens it at every start, and gunzipping and untarring its
 * 1.1 MB bundle cost more than the rest of a restart's JavaScript.
 */
const cacheFile = (name: string): string => join(cacheRoot(), `pglite-${pgliteVersion()}-extensions`, `${name}.bin`);

async function cachedFiles(name: string): Promise<[string, Uint8Array][] | null> {
  try {
    const buf = await readFile(cacheFile(name));
    const headerLength = buf.readUInt32LE(0);
    const index = JSON.parse(buf.subarray(4, 4 + headerLength).toString('utf8')) as [string, number][];
    let at = 4 + headerLength;
    const files = index.map(([path, size]): [string, Uint8Array] => {
      const data = buf.subarray(at, at + size);
      at += size;
      return [path, data];
    });
    return at === buf.length ? files : null;
  } catch {
    return null;
  }
}

/** Writes the cache file aside and renames it into place (processes may race); best effort. */
async function cacheFiles(name: string, files: [string, Uint8Array][]): Promise<[string, Uint8Array][]> {
  try {
    const header = Buffer.from(JSON.stringify(files.map(([p, d]) => [p, d.length])), 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32LE(header.length, 0);
    const path = cacheFile(name);
    await mkdir(join(path, '..'), { recursive: true });
    const tmp = `${path}.tmp-${randomBytes(4).toString('hex')}`;
    await writeFile(tmp, Buffer.concat([length, header, ...files.map(([, d]) => d)]));
    await rename(tmp, path);
  } catch {
    // Unpacked again next time.
  }
  return files;
}

async function unpack(ext: Extension, db: PGlite): Promise<[string, Uint8Array][]> {
  const { bundlePath } = await ext.setup(db, {});
  if (!bundlePath) return [];
  const [bytes, { Parser }] = await Promise.all([readFile(fileURLToPath(bundlePath)), import('tar')]);
  const files: [string, Uint8Array][] = [];
  await new Promise<void>((resolve, reject) => {
    const parser = new Parser({
      onReadEntry: (entry) => {
        const chunks: Buffer[] = [];
        entry.on('data', (c: Buffer) => chunks.push(c));
        entry.on('end', () => {
          if (entry.type === 'File' && !entry.path.startsWith('.')) files.push([entry.path, Buffer.concat(chunks)]);
        });
      },
    });
    parser.on('end', () => resolve());
    parser.on('error', reject);
    parser.end(bytes);
  });
  return files;
}
