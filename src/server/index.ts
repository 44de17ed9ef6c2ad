import { resolve as resolvePath } from 'node:path';
import { CliError } from '../errors.js';
import { maskUrl, pgErrorInfo, type Database, type Queryable } from '../db/database.js';
import { acquireDataDirLock } from '../db/lock-file.js';
import { PgliteWorkerDatabase } from '../db/pglite-remote.js';
import { DEFAULT_DATA_DIR } from '../db/pglite-prestart.js';
import { silentLogger, type Logger } from '../logger.js';
import { Authenticator } from './auth/index.js';
import { ensureCatalog, SETUP_KEY } from './catalog.js';
import type { OpenedDatabase, RunningServer, ServeOptions } from './serve-types.js';
import { DEFAULT_QUERY_TIMEOUT_MS } from './serve-types.js';

export type { OpenedDatabase, RunningServer, ServeOptions } from './serve-types.js';

function reason(e: unknown): string {
  const info = pgErrorInfo(e);
  if (info) return info.message;
  return e instanceof Error ? e.message : String(e);
}

/**
 * A new embedded data directory starts with the engine's catalog and pgcrypto: it is a copy of a template that ran the
 * catalog's DDL once (a third of a first start otherwise), kept per catalog revision.
 */
const WITH_CATALOG = { key: SETUP_KEY, run: (tx: Queryable) => ensureCatalog(tx) };

/** Opens the database named by the options: the start-up errors of cli.md §5.17 come from here. */
export async function openDatabase(opts: Pick<ServeOptions, 'databaseUrl' | 'dataDir' | 'queryTimeoutMs' | 'pool' | 'readReplicaUrls'>, logger: Logger): Promise<OpenedDatabase> {
  if (opts.databaseUrl) {
    // pg only with a database URL: the embedded engine does not import it.
    const { PostgresDatabase } = await import('../db/postgres.js');
    // GraphQL work on a connection runs under statement_timeout, the request's time limit (issue 28).
    const limit = opts.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
    const settings = { ...opts.pool, statementTimeoutMs: limit > 0 ? limit : null };
    const connect = async (url: string, what: string): Promise<Database> => {
      try {
        return await PostgresDatabase.connect(url, settings);
      } catch (e) {
        throw new CliError('database-connect-failed', `cannot connect to ${what} at ${maskUrl(url)}: ${reason(e)}`, 1);
      }
    };
    const db = await connect(opts.databaseUrl, 'the database');
    const urls = opts.readReplicaUrls ?? [];
    if (urls.length === 0) return { db, release: () => {}, dataDir: null };
    const opened = await Promise.allSettled(urls.map((u) => connect(u, 'the read replica')));
    const failed = opened.find((o) => o.status === 'rejected');
    if (failed) {
      await Promise.all([db, ...opened.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []))].map((d) => d.close().catch(() => {})));
      throw failed.reason;
    }
    const { ReplicaSet } = await import('../db/replicas.js');
    const replicas = new ReplicaSet(opened.map((o) => (o as PromiseFulfilledResult<Database>).value));
    return { db, replicas, release: () => {}, dataDir: null };
  }
  if ((opts.readReplicaUrls ?? []).length > 0) {
    throw new CliError('config-invalid', 'read replicas need an external primary: --read-replica-urls is given without --database-url', 1, { hint: 'set --database-url (env ENGINE_GRAPHQL_DATABASE_URL) to the primary' });
  }
  const shown = opts.dataDir ?? DEFAULT_DATA_DIR;
  const dir = resolvePath(shown);
  const release = await acquireDataDirLock(dir, shown, logger);
  try {
    // The first start on a machine builds the template (seconds of initdb): said, so a silent wait is explained.
    const onBuild = (at: string) => logger.info(`First start on this machine: building the data-directory template in ${at} (once; later starts copy it)…`);
    return { db: await PgliteWorkerDatabase.open(dir, { ...WITH_CATALOG, onBuild }), release, dataDir: dir };
  } catch (e) {
    release();
    throw new CliError('database-start-failed', `cannot start the embedded database in ${shown}: ${reason(e)}`, 1);
  }
}

/**
 * `engine serve` without the process concerns: open the database, start the engine, listen. The engine's modules
 * (GraphQL, the operations, the workers) are imported while the database starts: PGlite compiles its WebAssembly and
 * the template is copied off the main thread, and both are needed before the first request.
 */
export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  const logger = opts.logger ?? silentLogger;
  // While the event loop has nothing of its own to wait for (PGlite's WebAssembly compiling, a file read by the module
  // loader), Node blocks until every background task of V8 is done, optimising compiles of PostgreSQL's code included:
  // 50–150 ms of a restart on two cores, and again at the first request. A pending timer keeps the loop waiting instead.
  const keep = setInterval(() => {}, 60_000);
  try {
    return await start(opts, logger);
  } finally {
    clearInterval(keep);
  }
}

async function start(opts: ServeOptions, logger: Logger): Promise<RunningServer> {
  // Before the database: a bad authentication setting stops start-up at once, and a JWKS is fetched before listening.
  const auth = await Authenticator.create(opts, logger);
  const t0 = performance.now();
  const since = (): string => `${(performance.now() - t0).toFixed(0)} ms`;
  const [opened, running] = await Promise.allSettled([
    openDatabase(opts, logger).finally(() => logger.debug(`start-up: database open after ${since()}`)),
    import('./running.js').finally(() => logger.debug(`start-up: engine modules loaded after ${since()}`)),
  ]);
  if (opened.status === 'rejected') throw opened.reason;
  if (running.status === 'rejected') {
    await opened.value.db.close().catch(() => {});
    await opened.value.replicas?.close().catch(() => {});
    opened.value.release();
    throw running.reason;
  }
  return running.value.runEngine(opened.value, auth, opts, logger, since);
}
