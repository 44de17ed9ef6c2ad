// Every contrib extension PGlite ships, made available to CREATE EXTENSION lazily. PGlite unpacks every extension
// passed to PGlite.create at start-up (about 1 s for all of them), so none is passed: a bundle is unpacked into the
// running instance's file system when a script asks for it, and at start for the extensions the database has.
// test/integration/pglite-extensions.test.ts fails when a PGlite upgrade ships a bundle this list does not name.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Extension, PGlite } from '@electric-sql/pglite';
import { Parser } from 'tar';
import { amcheck } from '@electric-sql/pglite/contrib/amcheck';
import { auto_explain } from '@electric-sql/pglite/contrib/auto_explain';
import { bloom } from '@electric-sql/pglite/contrib/bloom';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { citext } from '@electric-sql/pglite/contrib/citext';
import { cube } from '@electric-sql/pglite/contrib/cube';
import { dict_int } from '@electric-sql/pglite/contrib/dict_int';
import { dict_xsyn } from '@electric-sql/pglite/contrib/dict_xsyn';
import { earthdistance } from '@electric-sql/pglite/contrib/earthdistance';
import { file_fdw } from '@electric-sql/pglite/contrib/file_fdw';
import { fuzzystrmatch } from '@electric-sql/pglite/contrib/fuzzystrmatch';
import { hstore } from '@electric-sql/pglite/contrib/hstore';
import { intarray } from '@electric-sql/pglite/contrib/intarray';
import { isn } from '@electric-sql/pglite/contrib/isn';
import { lo } from '@electric-sql/pglite/contrib/lo';
import { ltree } from '@electric-sql/pglite/contrib/ltree';
import { moddatetime } from '@electric-sql/pglite/contrib/moddatetime';
import { pageinspect } from '@electric-sql/pglite/contrib/pageinspect';
import { pg_buffercache } from '@electric-sql/pglite/contrib/pg_buffercache';
import { pg_freespacemap } from '@electric-sql/pglite/contrib/pg_freespacemap';
import { pg_stat_statements } from '@electric-sql/pglite/contrib/pg_stat_statements';
import { pg_surgery } from '@electric-sql/pglite/contrib/pg_surgery';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { pg_visibility } from '@electric-sql/pglite/contrib/pg_visibility';
import { pg_walinspect } from '@electric-sql/pglite/contrib/pg_walinspect';
import { pgcrypto } from '@electric-sql/pglite/contrib/pgcrypto';
import { seg } from '@electric-sql/pglite/contrib/seg';
import { tablefunc } from '@electric-sql/pglite/contrib/tablefunc';
import { tcn } from '@electric-sql/pglite/contrib/tcn';
import { tsm_system_rows } from '@electric-sql/pglite/contrib/tsm_system_rows';
import { tsm_system_time } from '@electric-sql/pglite/contrib/tsm_system_time';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import { uuid_ossp } from '@electric-sql/pglite/contrib/uuid_ossp';

const ALL: Extension[] = [
  amcheck, auto_explain, bloom, btree_gin, btree_gist, citext, cube, dict_int, dict_xsyn, earthdistance, file_fdw,
  fuzzystrmatch, hstore, intarray, isn, lo, ltree, moddatetime, pageinspect, pg_buffercache, pg_freespacemap,
  pg_stat_statements, pg_surgery, pg_trgm, pg_visibility, pg_walinspect, pgcrypto, seg, tablefunc, tcn,
  tsm_system_rows, tsm_system_time, unaccent, uuid_ossp,
];

/** Every extension the embedded engine can create, by its SQL name (`uuid-ossp`, `pgcrypto`, …). */
export const EMBEDDED_EXTENSIONS: ReadonlyMap<string, Extension> = new Map(ALL.map((e) => [e.name, e]));

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

  /** Makes available every shipped extension the database has installed (their libraries are loaded on use). */
  async loadInstalled(): Promise<void> {
    const rows = await this.db.query<{ extname: string }>('SELECT extname FROM pg_extension');
    await this.load(rows.rows.map((r) => r.extname));
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
      const files = await unpack(ext, this.db);
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
  const bytes = await readFile(fileURLToPath(bundlePath));
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
