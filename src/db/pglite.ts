import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { PGlite, types, type postgresMod, type Transaction } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';
import { BatchError, ROW_COMMANDS, transactionSetup, type BatchOptions, type BatchStatement, type Database, type Queryable, type Row, type ScriptResult, type Session, type TransactionOptions } from './database.js';
import { probes } from '../probes.js';
import { EMBEDDED_EXTENSIONS, ExtensionLoader } from './pglite-extensions.js';
import { seedDataDir, template, type TemplateSetup } from './pglite-template.js';
import { withoutSpareWal } from './pglite-dump.js';
import { preloadPglite } from './pglite-preload.js';

type Parsers = Record<number, (x: string) => string>;
const identity = (x: string): string => x;


type PgliteLike = Pick<PGlite, 'query' | 'exec'> | Transaction;

/**
 * PostgreSQL's default 128 MB of shared buffers is zeroed at every start (a third of PGlite's start-up, and 100 MB
 * of resident memory); the pages it would hold are one read away in the operating system's cache.
 */
const START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB'];

/**
 * NodeFS, its directory mounted only in initialSyncFs, once `seeded` settles: PGlite's WebAssembly is instantiated and
 * its own files unpacked before that (most of its start), while the data directory's lock is taken and the template
 * copied into a new directory (pglite-template.ts). NodeFS itself makes its directory when constructed and mounts it
 * during instantiation: the embedded worker would touch the directory before the lock is held.
 */
class SeedingNodeFS extends NodeFS {
  constructor(dataDir: string, private readonly seeded: Promise<unknown>) {
    // NodeFS makes the directory it is given when missing: it is given one that exists, and mounts this one.
    super(tmpdir());
    this.rootDir = resolve(dataDir);
  }

  override init(pg: PGlite, emscriptenOpts: Partial<postgresMod.PostgresMod>): Promise<{ emscriptenOpts: Partial<postgresMod.PostgresMod> }> {
    this.pg = pg;
    return Promise.resolve({ emscriptenOpts });
  }

  override async initialSyncFs(): Promise<void> {
    await this.seeded;
    const { FS } = (this.pg as PGlite).Module;
    FS.mkdirTree(PGlite.paths.PGDATA);
    FS.mount(FS.filesystems.NODEFS, { root: this.rootDir }, PGlite.paths.PGDATA);
  }
}

/**
 * PostgreSQL's hint for an extension it lacks ("must first be installed on the system") cannot be followed for the
 * embedded engine; ours names what it has and the way out.
 */
function withExtensionHint(e: unknown): unknown {
  const err = e as { code?: unknown; message?: unknown; hint?: unknown };
  const m = typeof err?.message === 'string' ? /^extension "(.+)" is not available$/.exec(err.message) : null;
  if (err?.code === '0A000' && m) {
    err.hint = `the embedded engine (PGlite) does not ship extension "${m[1]}"; it has ${[...EMBEDDED_EXTENSIONS.keys()].sort().join(', ')}. ` +
      'Run the engine on a PostgreSQL server that has it: engine serve --database-url postgres://…';
  }
  return e;
}

/**
 * PGlite serializes a boolean parameter itself and throws a bare Error ("Invalid input for boolean type") on text it
 * does not know, where PostgreSQL answers its own data exception (`invalid input syntax for type boolean`): the
 * engine binds column values as text (a string for a Boolean column, issue 30), so text goes to the server as is.
 */
const QUERY_OPTIONS = { serializers: { 16: (v: unknown): string => (typeof v === 'boolean' ? (v ? 't' : 'f') : String(v)) } };

function queryable(q: PgliteLike, textParsers: () => Parsers, extensions: ExtensionLoader): Queryable {
  return {
    async query<T extends Row>(sql: string, params: unknown[] = []): Promise<T[]> {
      probes.statements?.(1);
      const r = await q.query<T>(sql, params, QUERY_OPTIONS).catch((e: unknown) => Promise.reject(withExtensionHint(e)));
      return r.rows;
    },
    async runScript(sql: string): Promise<ScriptResult> {
      await extensions.prepare(sql);
      const results = await q.exec(sql, { rowMode: 'array', parsers: textParsers() }).catch((e: unknown) => Promise.reject(withExtensionHint(e)));
      const last = results[results.length - 1] as (typeof results)[number] & { command?: string };
      const fields = last?.fields.map((f) => f.name) ?? [];
      const hasRows = fields.length > 0 || ROW_COMMANDS.has(last?.command ?? '');
      return { hasRows, fields, rows: (last?.rows ?? []) as (string | null)[][] };
    },
  };
}

/** What a new data directory starts with beyond initdb's catalog: run once (in a transaction) into a template per key. */
export interface DataDirSetup {
  key: string;
  run(q: Queryable): Promise<void>;
  /** Told when the template is built rather than found (the first start on a machine). */
  onBuild?: (dir: string) => void;
}

/** The template setup as PGlite runs it: in a transaction, with the engine's Queryable. */
export function templateSetup(setup: DataDirSetup | undefined): TemplateSetup | undefined {
  return setup && {
    key: setup.key,
    ...(setup.onBuild ? { onBuild: setup.onBuild } : {}),
    run: (t) => t.transaction((tx) => setup.run(queryable(tx, () => ({}), new ExtensionLoader(t)))),
  };
}

/**
 * A data directory seeded by someone else (the embedded worker's parent copies the template while the worker starts):
 * `seeded` settles when the copy is done.
 */
export interface Seeding {
  seeded: Promise<unknown>;
}

export class PgliteDatabase implements Database {
  readonly kind = 'embedded' as const;
  private readonly db: PGlite;
  private readonly q: Queryable;
  private readonly textParsers: Parsers;
  private readonly extensions: ExtensionLoader;

  private constructor(db: PGlite, textParsers: Parsers, extensions: ExtensionLoader) {
    this.db = db;
    this.textParsers = textParsers;
    this.extensions = extensions;
    this.q = queryable(db, () => this.textParsers, extensions);
  }

  /**
   * Opens (creating on first use) the embedded PostgreSQL stored in `dataDir`; in memory when undefined. A new database
   * is a copy of the template: with `setup`, of a template that has also run it; in memory with `load`, that dump
   * (PGlite's gzipped tarball of a data directory, see dump()) instead of the template.
   */
  static async open(dataDir: string | undefined, setup?: DataDirSetup, seeding?: Seeding, load?: Uint8Array): Promise<PgliteDatabase> {
    const files = preloadPglite();
    const raw = templateSetup(setup);
    let db: PGlite;
    if (dataDir !== undefined) {
      const seeded = seeding?.seeded ?? seedDataDir(dataDir, raw);
      // Awaited by PGlite (initialSyncFs) unless it fails first: then nobody else would hear of a failed copy.
      seeded.catch(() => {});
      // SeedingNodeFS: a worker started early (prestartPgliteWorker) starts PGlite at once; the directory is read once
      // its lock is held and its template copied (`seeded`).
      db = await PGlite.create({ fs: new SeedingNodeFS(dataDir, seeded), startParams: START_PARAMS, ...(await files) });
    } else if (load) {
      db = await PGlite.create({ loadDataDir: new Blob([load]), startParams: START_PARAMS, ...(await files) });
    } else {
      const [t, preloaded] = await Promise.all([template(raw), files]);
      db = await PGlite.create({ ...(t ? { loadDataDir: new Blob([readFileSync(t.tarball)]) } : {}), startParams: START_PARAMS, ...preloaded });
    }
    // PGlite parses every type it knows (arrays included) into JS values; run_sql wants PostgreSQL's text
    // output, so every known type gets the identity parser (types created later have no parser: text already).
    const known = await db.query<{ extensions: string[]; oids: number[] }>(
      'SELECT ARRAY(SELECT extname::text FROM pg_extension) AS extensions, ARRAY(SELECT oid::int FROM pg_type) AS oids',
    );
    const row = known.rows[0];
    const extensions = new ExtensionLoader(db);
    await extensions.loadInstalled(row?.extensions ?? []);
    const textParsers: Parsers = Object.fromEntries([...Object.keys(types.parsers).map(Number), ...(row?.oids ?? [])].map((o) => [o, identity]));
    return new PgliteDatabase(db, textParsers, extensions);
  }

  /** The PGlite instance itself, for tools that speak its wire protocol (pg_dump, src/db/dump.ts). */
  get instance(): PGlite {
    return this.db;
  }

  query<T extends Row = Row>(sql: string, params?: unknown[]): Promise<T[]> {
    return this.q.query<T>(sql, params);
  }

  runScript(sql: string): Promise<ScriptResult> {
    return this.q.runScript(sql);
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>, opts: TransactionOptions = {}): Promise<T> {
    return this.db.transaction(async (tx) => {
      const setup = transactionSetup(opts);
      if (setup.length > 0) await tx.exec(setup.join('; '));
      return fn(queryable(tx, () => this.textParsers, this.extensions));
    });
  }

  /** In process there is no round trip to save: the statements run one after the other. */
  batch(statements: BatchStatement[], opts: BatchOptions): Promise<Row[][]> {
    probes.statements?.(statements.length);
    return this.db.transaction(async (tx) => {
      const sql = transactionSetup(opts).join('; ');
      const setup = sql ? await tx.exec(sql) : [];
      opts.begun?.(opts.first ? ((setup[setup.length - 1]?.rows ?? []) as Row[]) : []);
      const q = queryable(tx, () => this.textParsers, this.extensions);
      const results: Row[][] = [];
      for (const [i, st] of statements.entries()) {
        try {
          results.push(await q.query(st.sql, st.params));
        } catch (e) {
          throw new BatchError(i, e);
        }
      }
      return results;
    });
  }

  /** PGlite has one connection, so the session is the database itself; its listeners end with the session. */
  async openSession(): Promise<Session> {
    const unlisten: (() => Promise<void>)[] = [];
    const db = this.db;
    return {
      query: (sql, params) => this.q.query(sql, params),
      runScript: (sql) => this.q.runScript(sql),
      async listen(channel, onNotify) {
        unlisten.push(await db.listen(channel, () => onNotify()));
      },
      onLost() {},
      async close() {
        for (const u of unlisten.splice(0)) await u().catch(() => {});
      },
    };
  }

  /**
   * The data directory as a tarball for open()'s `load` (which also takes it gzipped, see pglite-dump.ts): after a
   * checkpoint, so that a load replays no WAL, and without the spare WAL segments. Uncompressed: the caller compresses
   * it off the main thread.
   */
  async dump(): Promise<Uint8Array> {
    await this.db.exec('CHECKPOINT');
    const wal = await this.db.query<{ redo: string; last: string }>(
      'SELECT redo_wal_file AS redo, pg_walfile_name(pg_current_wal_insert_lsn()) AS last FROM pg_control_checkpoint()',
    );
    const tar = new Uint8Array(await (await this.db.dumpDataDir('none')).arrayBuffer());
    const w = wal.rows[0];
    return w ? withoutSpareWal(tar, w.redo, w.last) : tar;
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
