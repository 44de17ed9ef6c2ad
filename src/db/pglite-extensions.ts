// Every contrib extension PGlite ships, made available to CREATE EXTENSION lazily. PGlite unpacks every extension
// passed to PGlite.create at start-up (about 1 s for all of them), so none is passed: a bundle is unpacked into the
// running instance's file system when a script asks for it, and at start for the extensions the database has.
// test/integration/pglite-extensions.test.ts fails when a PGlite upgrade ships a bundle this list does not name.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Extension, PGlite } from '@electric-sql/pglite';

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
      const files = await unpack(await ext(), this.db);
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
