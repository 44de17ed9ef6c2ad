import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { CliError } from '../../errors.js';
import { EngineClient } from '../../client/engine-client.js';
import { pgErrorInfo, type Database, type Queryable } from '../../db/database.js';
import { silentLogger, type Logger } from '../../logger.js';
import type { JsonObject } from '../../metadata/json.js';
import type { RunningServer, ServeOptions } from '../../server/serve-types.js';
import { VERSION } from '../../version.js';
import { CREATE_STATE_TABLE, migrationFailed, plan, readMigrations, readState, runStep, STATE_QUERY, stateInsert, type AppliedMigration, type Step } from '../migrations/migrations.js';
import { unwrapTransactions } from '../migrations/sql.js';
import { applySeeds, seedFiles, seedsDirectory } from '../migrations/seeds.js';
import { applyMetadata } from '../metadata-dir/apply.js';
import type { BuildResult } from '../metadata-dir/build.js';
import { redirectCalls, startRecorder, type CallRecorder } from './calls.js';
import { cacheDirectory, cacheKey, readCached, writeCached } from './migrated-cache.js';

/** What an ephemeral engine is built from: the project's migrations, its built metadata and its seeds. */
export interface ProjectSources {
  projectDir: string;
  migrationsDirectory: string;
  built: BuildResult & { document: JsonObject };
  /** The variables of handler templates (`{{NAME}}`) the engine reads when it calls out. */
  variable?: (name: string) => string | undefined;
  /** Seeds run after migrations and metadata (default true). */
  seeds?: boolean;
  /** A data directory that outlives the engine (`engine db reset`); default: a temporary one, removed by close(). */
  dataDir?: string;
  logger?: Logger;
  /**
   * Action handlers and event webhooks point at a recorder of the run instead of the project's services (`engine
   * test`); not for `engine db reset`, whose database keeps the project's metadata as written.
   */
  recordCalls?: boolean;
  /**
   * Where the database as the migrations left it is cached (migrated-cache.ts), for an in-memory engine; default the
   * machine's cache, null: no cache (`--no-cache`).
   */
  cacheDir?: string | null;
}

/** An engine that lives for one command: an embedded database in a temporary directory, removed by close(). */
export interface EphemeralEngine {
  url: string;
  adminSecret: string;
  client: EngineClient;
  /**
   * Runs SQL on the engine's database directly, in one transaction: test data (seeds, the snapshot's restore) that
   * `run_sql` would follow with a catalog introspection and a new schema cache — every GraphQL schema built again.
   */
  sql(script: string): Promise<void>;
  /** One parameterised statement on the engine's database, its rows. */
  rows<T extends Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** The recorder of the action calls, when the sources asked for it (recordCalls). */
  calls: CallRecorder | null;
  /** A role's GraphQL schema (RunningServer.schemaFor). */
  schemaFor: RunningServer['schemaFor'];
  /** The migrated database came from the cache (migrated-cache.ts) rather than from running the migrations. */
  fromCache: boolean;
  close(): Promise<void>;
}

const asDebug = (l: Logger): Logger => ({ debug: (m) => l.debug(m), info: (m) => l.debug(m), warn: (m) => l.debug(m), error: (m) => l.debug(m) });

/**
 * Starts the project's engine offline (issue 33): embedded PostgreSQL in memory (a copy of the machine's catalog
 * template, so no initdb; `dataDir` given: in that directory, kept), listening on a loopback port of its own, then
 * migrations (straight on its new database, see migrateDatabase), metadata and seeds through the same library calls
 * as `engine deploy` and `engine seed apply`. Requests reach it over HTTP like any engine's: the cases of `engine test`
 * run the same way here and against `--endpoint`.
 */
export async function startEphemeralEngine(src: ProjectSources): Promise<EphemeralEngine> {
  const logger = src.logger ?? silentLogger;
  const adminSecret = randomBytes(18).toString('base64url');
  const recorder = src.recordCalls ? await startRecorder() : null;
  const opts: ServeOptions = {
    // The engine's own logs (a delivery that failed, a slow start) are details of a test run: debug level.
    port: 0, host: '127.0.0.1', adminSecret, logger: asDebug(logger), shutdownGraceMs: 0,
    ...(src.variable ? { variable: src.variable } : {}),
  };
  let server: RunningServer;
  let fromCache = false;
  let saved = Promise.resolve();
  try {
    if (src.dataDir !== undefined) server = await (await import('../../server/index.js')).startServer({ ...opts, dataDir: src.dataDir });
    else {
      const cacheDir = src.cacheDir === undefined ? cacheDirectory() : src.cacheDir;
      ({ server, fromCache, saved } = await inMemory(opts, src.migrationsDirectory, cacheDir, logger));
    }
  } catch (e) {
    await recorder?.close();
    throw e;
  }
  const client = new EngineClient({ endpoint: server.url, adminSecret, timeoutSeconds: 60, logger, version: VERSION, retryDelaysMs: [] });
  const running = server;
  const close = async () => {
    await client.close();
    await running.close();
    await recorder?.close();
    await saved;
  };
  try {
    const built = recorder ? { ...src.built, document: redirectCalls(src.built.document, recorder.url, src.variable) } : src.built;
    await provision(client, server, { ...src, built }, src.dataDir !== undefined);
  } catch (e) {
    await close();
    throw e;
  }
  const db = server.engine.db;
  const sql = async (script: string): Promise<void> => {
    try {
      await db.transaction((tx) => tx.runScript(script));
    } catch (e) {
      const info = pgErrorInfo(e);
      throw new CliError('sql-failed', info ? info.message : e instanceof Error ? e.message : String(e), 1);
    }
  };
  const rows = <T extends Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> => db.query<T>(text, params);
  return { url: server.url, adminSecret, client, sql, rows, calls: recorder, schemaFor: (role) => running.schemaFor(role), fromCache, close };
}

/**
 * The engine on an in-memory embedded database (a copy of the catalog template, loaded from its dump): nothing is
 * written to disk, so nothing is deleted at the end — at 1,000 tables, writing and then unlinking the data directory's
 * thousands of files was a third of `metadata schema`. The migrations run before the engine starts, so that it reads
 * the migrated catalog once; their result is cached (`cacheDir`, null: not) and loaded instead the next time.
 */
async function inMemory(opts: ServeOptions, migrations: string, cacheDir: string | null, log: Logger): Promise<{ server: RunningServer; fromCache: boolean; saved: Promise<void> }> {
  // PGlite's module too, loaded alongside the engine's rather than after them.
  const [{ Authenticator }, { runEngine }] = await Promise.all([import('../../server/auth/index.js'), import('../../server/running.js'), import('../../db/pglite.js')]);
  const logger = opts.logger ?? silentLogger;
  const auth = await Authenticator.create(opts, logger);
  const t0 = performance.now();
  const { db, fromCache, saved } = await openMigrated(migrations, cacheDir, log);
  const server = await runEngine({ db, release: () => {}, dataDir: null }, auth, opts, logger, () => `${(performance.now() - t0).toFixed(0)} ms`);
  return { server, fromCache, saved };
}

export interface MigrationPlan {
  steps: Step[];
  /** The migrated database's key in the cache (migrated-cache.ts); null without a cache directory or migrations. */
  key: string | null;
}

/** The migrations of `dir` not in `applied`, in order, as read from its files (transactions not yet unwrapped). */
export function migrationSteps(dir: string, applied: AppliedMigration[] = []): Step[] {
  return plan(readMigrations(dir).migrations, applied, { kind: 'up', count: null }, dir);
}

/**
 * The project's migrations, to run on a new database, and the key of their result in `cacheDir` (null: no cache);
 * `read`: migrationSteps of the directory, when the caller has them already.
 */
export async function migrationPlan(migrations: string, cacheDir: string | null, read?: Step[]): Promise<MigrationPlan> {
  const { SETUP_KEY } = await import('../../server/catalog.js');
  const steps = await unwrapTransactions(read ?? migrationSteps(migrations));
  return { steps, key: cacheDir !== null && steps.length > 0 ? cacheKey(SETUP_KEY, steps) : null };
}

/** An in-memory database as the project's migrations leave it (see inMemory); `saved` settles once its dump is cached. */
export interface MigratedDatabase {
  db: Database & { close(): Promise<void> };
  fromCache: boolean;
  saved: Promise<void>;
}

/** The project's migrations on a new in-memory database, or their result loaded from the cache (`cacheDir`, null: none). */
export async function openMigrated(migrations: string, cacheDir: string | null, log: Logger, planned?: MigrationPlan): Promise<MigratedDatabase> {
  const [{ PgliteDatabase }, { ensureCatalog, SETUP_KEY }, { gzipDump }] = await Promise.all([
    import('../../db/pglite.js'), import('../../server/catalog.js'), import('../../db/pglite-dump.js'),
  ]);
  const setup = { key: SETUP_KEY, run: (tx: Queryable) => ensureCatalog(tx) };
  const { steps, key } = planned ?? await migrationPlan(migrations, cacheDir);
  const cached = key !== null ? readCached(cacheDir as string, key) : null;
  let db: Database & { close(): Promise<void>; dump(): Promise<Uint8Array> } | null = null;
  if (cached) {
    db = await PgliteDatabase.open(undefined, setup, undefined, cached).catch(() => null);
    // The saved copy must hold the migrations it was saved for; anything else is rebuilt.
    if (db && (await db.query(STATE_QUERY).then((r) => r.length, () => -1)) !== steps.length) {
      await db.close().catch(() => {});
      db = null;
    }
    log.debug(db ? `migrated database loaded from the cache (${cacheDir})` : `the cached migrated database (${cacheDir}) is unusable: migrating`);
  }
  const fromCache = db !== null;
  let saved = Promise.resolve();
  if (!db) {
    db = await PgliteDatabase.open(undefined, setup);
    try {
      for (const step of steps) await runDirect(db, step, migrations);
      // The dump is taken now, before the engine writes its metadata; compressed and written while the engine starts.
      if (key !== null) saved = gzipDump(await db.dump()).then((gz) => writeCached(cacheDir as string, key, gz), () => {});
    } catch (e) {
      await db.close();
      throw e;
    }
  }
  return { db, fromCache, saved };
}

/** Applies the migrations of `dir` the engine has not applied yet, in order; returns their versions. */
export async function applyPendingMigrations(client: EngineClient, dir: string): Promise<{ applied: bigint[]; fresh: boolean }> {
  const local = readMigrations(dir);
  const state = await readState(client);
  const pending = await unwrapTransactions(plan(local.migrations, state.applied, { kind: 'up', count: null }, dir));
  if (pending.length > 0 && !state.tableExists) await client.runSql(CREATE_STATE_TABLE);
  for (const step of pending) await runStep(client, step, dir);
  return { applied: pending.map((s) => s.migration.version), fresh: !state.tableExists };
}

/** `migrate`: the migrations still to run (an in-memory engine ran them before it started). */
async function provision(client: EngineClient, server: RunningServer, src: ProjectSources, migrate: boolean): Promise<void> {
  const migrated = migrate ? await migrateDatabase(server.engine.db, src.migrationsDirectory) : 0;
  const r = await applyMetadata(client, src.built, { dryRun: false, allowInconsistent: false, allowEmpty: true });
  if (r.inconsistent.length > 0) {
    throw new CliError('metadata-inconsistent', `the project's metadata is inconsistent on its own migrations: ${r.inconsistent.length} object(s)`, 1,
      { hint: "run 'engine deploy' on a local engine to see them" });
  }
  // Metadata applied, the engine read the migrated catalog; without any, it still holds the catalog of its start.
  if (migrated > 0 && !r.applied) await server.engine.refresh();
  if (src.seeds !== false) await applySeeds(client, seedFiles(seedsDirectory(src.projectDir)), () => {});
}

/**
 * The project's migrations straight on the new engine's database, each in its own transaction with its state row, as
 * `migrate apply` runs them through `run_sql`. Its metadata is still empty: run_sql's catalog reads before and after
 * each file (to reconcile tracked objects with what the SQL changed) have nothing to reconcile — at 1,000 tables,
 * seconds of `metadata schema`. Failures are the error `migrate apply` gives, with the path of the bulk it sends.
 * Resolves to the number of migrations run.
 */
async function migrateDatabase(db: Database, dir: string): Promise<number> {
  const rows = await db.query<{ version: string; name: string; applied_at: string | null }>(STATE_QUERY);
  const applied = rows.map((r) => ({ version: BigInt(r.version), name: r.name, appliedAt: r.applied_at }));
  const pending = await unwrapTransactions(migrationSteps(dir, applied));
  for (const step of pending) await runDirect(db, step, dir);
  return pending.length;
}

const TXID = 'SELECT txid_current()::text AS id';

async function runDirect(db: Database, step: Step, dir: string): Promise<void> {
  const { version, name } = step.migration;
  const script = step.sql !== null && step.sql.trim() !== '' ? step.sql : null;
  let index = 0;
  try {
    await db.transaction(async (tx) => {
      const before = (await tx.query<{ id: string }>(TXID))[0]?.id;
      if (script !== null) {
        await tx.runScript(script);
        // Fail closed as run_sql does: SQL the parser did not see as transaction control must not have ended the transaction.
        if ((await tx.query<{ id: string }>(TXID))[0]?.id !== before) {
          throw new CliError('migration-invalid', `migration ${version}_${name} ended its own transaction; each migration runs in its own transaction`, 1);
        }
        index = 1;
      }
      await tx.runScript(stateInsert(version, name));
    });
  } catch (e) {
    const info = pgErrorInfo(e) ?? pgErrorInfo((e as { cause?: unknown } | null)?.cause);
    if (!info) throw e;
    const pg = { message: info.message, ...(info.hint ? { hint: info.hint } : {}), ...(info.position !== null ? { position: info.position } : {}) };
    throw migrationFailed(step, dir, { error: 'query execution failed', code: 'postgres-error', path: `$.args[${index}].args` }, pg);
  }
}
