import type { Server } from 'node:http';
import { resolve as resolvePath } from 'node:path';
import { CliError } from '../errors.js';
import { maskUrl, pgErrorInfo, type Database } from '../db/database.js';
import { acquireDataDirLock } from '../db/lock-file.js';
import { PgliteDatabase } from '../db/pglite.js';
import { PostgresDatabase } from '../db/postgres.js';
import { silentLogger, type Logger } from '../logger.js';
import { Authenticator } from './auth/index.js';
import { Engine } from './engine.js';
import { createHttpServer, listen } from './http.js';
import type { Clock } from './clock.js';
import { asyncTargets, type AsyncTarget } from './graphql/async-action.js';
import { GraphqlService } from './graphql/service.js';
import { ActionWorker } from './workers/action-worker.js';
import { EventProcessor } from './workers/event-processor.js';
import { ScheduledQueue } from './workers/scheduled-queue.js';

/** How stale another instance's metadata change may be when the processor picks a trigger's definition (or the action worker an action's). */
const TRIGGERS_MAX_AGE_MS = 100;

export interface ServeOptions {
  /** External PostgreSQL; when absent, the embedded one in `dataDir`. */
  databaseUrl?: string;
  dataDir?: string;
  port: number;
  host: string;
  adminSecret?: string;
  /** JWT mode: the JSON configuration of issue 17. */
  jwtSecret?: string;
  /** The role of a request without credentials. */
  unauthorizedRole?: string;
  /** Auth hook mode: the hook's URL and GET or POST. */
  authHook?: string;
  authHookMode?: string;
  logger?: Logger;
  /** Looks up the variables of webhook and action handler templates and headers at each call; default: the process environment. */
  variable?: (name: string) => string | undefined;
  /** The time scheduled events are judged by; default the system clock (tests move their own). */
  clock?: Clock;
  /** `--enable-allowlist`: non-admin GraphQL requests must send allow-listed documents. */
  enableAllowlist?: boolean;
}

export interface RunningServer {
  url: string;
  engine: Engine;
  database: 'embedded' | 'external';
  dataDir: string | null;
  /** Stops accepting, finishes in-flight requests, closes the database and releases the lock. */
  close(): Promise<void>;
}

function reason(e: unknown): string {
  const info = pgErrorInfo(e);
  if (info) return info.message;
  return e instanceof Error ? e.message : String(e);
}

/** Opens the database named by the options: the start-up errors of cli.md §5.17 come from here. */
export async function openDatabase(opts: Pick<ServeOptions, 'databaseUrl' | 'dataDir'>, logger: Logger): Promise<{ db: Database; release: () => void; dataDir: string | null }> {
  if (opts.databaseUrl) {
    try {
      return { db: await PostgresDatabase.connect(opts.databaseUrl), release: () => {}, dataDir: null };
    } catch (e) {
      throw new CliError('database-connect-failed', `cannot connect to the database at ${maskUrl(opts.databaseUrl)}: ${reason(e)}`, 1);
    }
  }
  const shown = opts.dataDir ?? '.engine/data';
  const dir = resolvePath(shown);
  const release = acquireDataDirLock(dir, shown, logger);
  try {
    return { db: await PgliteDatabase.open(dir), release, dataDir: dir };
  } catch (e) {
    release();
    throw new CliError('database-start-failed', `cannot start the embedded database in ${shown}: ${reason(e)}`, 1);
  }
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

/** `engine serve` without the process concerns: open the database, start the engine, listen. */
export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  const logger = opts.logger ?? silentLogger;
  // Before the database: a bad authentication setting stops start-up at once, and a JWKS is fetched before listening.
  const auth = await Authenticator.create(opts, logger);
  const { db, release, dataDir } = await openDatabase(opts, logger);
  let server: Server | undefined;
  let processor: EventProcessor | undefined;
  let scheduler: { stop(): Promise<void> } | undefined;
  let worker: ActionWorker | undefined;
  try {
    const engine = await Engine.start(db, logger, opts.clock);
    const lookup = opts.variable;
    // Read at each delivery: a variable set or changed later is used from then on.
    const env = lookup ? new Proxy({}, { get: (_, name) => (typeof name === 'string' ? lookup(name) : undefined) }) : undefined;
    processor = await EventProcessor.start(db, { triggers: () => engine.consistentEventTriggers(TRIGGERS_MAX_AGE_MS), logger, env });
    scheduler = await EventProcessor.startQueue(db, new ScheduledQueue(() => engine.cronTriggers(TRIGGERS_MAX_AGE_MS), opts.clock), { logger, env });
    const graphql = new GraphqlService(engine, env, opts.enableAllowlist ?? false);
    // The admin schema holds every consistent asynchronous action. It follows the stored metadata (§2.1): this
    // instance's changes at once, another instance's within TRIGGERS_MAX_AGE_MS (one statement fewer per claim).
    let known = { at: 0, version: -1, targets: new Map<string, AsyncTarget>() };
    const targets = async (): Promise<Map<string, AsyncTarget>> => {
      if (Date.now() - known.at < TRIGGERS_MAX_AGE_MS && known.version === engine.resourceVersion) return known.targets;
      // Without a consistent asynchronous action there is nothing to claim: a metadata change must not cost a whole
      // admin schema, built on the requests' thread, when nothing needs it (issue 18).
      const cache = engine.schemaCache;
      const wanted = [...cache.metadata.actions.values()].some((a) => a.definition.kind === 'asynchronous' && cache.consistentActions.has(a.name));
      const map = wanted ? asyncTargets(await graphql.schemaFor('admin')) : new Map<string, AsyncTarget>();
      known = { at: Date.now(), version: engine.resourceVersion, targets: map };
      return map;
    };
    worker = await ActionWorker.start(db, { targets, logger, env });
    server = createHttpServer(engine, { auth, logger, env, graphql });
    let address;
    try {
      address = await listen(server, opts.port, opts.host);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') {
        throw new CliError('port-in-use', `cannot listen on ${opts.host}:${opts.port}: address already in use`, 1, { hint: 'choose another --port' });
      }
      throw e;
    }
    const host = address.address.includes(':') ? `[${address.address}]` : address.address;
    const running = server;
    const events = processor;
    const scheduled = scheduler;
    const actions = worker;
    return {
      url: `http://${host}:${address.port}`,
      engine,
      database: db.kind,
      dataDir,
      async close() {
        // Deliveries and action calls finish (≤ 10 s) while requests drain; all before the database closes (cli.md §5.17).
        await Promise.all([closeServer(running), events.stop(), actions.stop(), scheduled.stop()]);
        await db.close();
        release();
      },
    };
  } catch (e) {
    if (server?.listening) await closeServer(server);
    await processor?.stop().catch(() => {});
    await scheduler?.stop().catch(() => {});
    await worker?.stop().catch(() => {});
    await db.close().catch(() => {});
    release();
    throw e;
  }
}
