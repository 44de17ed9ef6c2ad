import type { Server } from 'node:http';
import { CliError } from '../errors.js';
import { probes } from '../probes.js';
import type { Logger } from '../logger.js';
import type { Authenticator } from './auth/index.js';
import { Engine } from './engine.js';
import { createHttpServer, listen, loadMetrics } from './http/index.js';
import { logWebhooks, StructuredLog } from './http/logs.js';
import { registerConsole } from './http/console.js';
import { asyncTargets, type AsyncTarget } from './graphql/actions/index.js';
import { GraphqlService } from './graphql/service.js';
import { DEFAULT_DOCUMENT_LIMITS } from './graphql/request/index.js';
import { ActionWorker } from './workers/action-worker.js';
import { EventProcessor } from './workers/event-processor.js';
import { ScheduledQueue } from './workers/scheduled-queue.js';
import { DEFAULT_QUERY_TIMEOUT_MS, DEFAULT_SHUTDOWN_GRACE_MS, type OpenedDatabase, type RunningServer, type ServeOptions } from './serve-types.js';

/** How stale another instance's metadata change may be when the processor picks a trigger's definition (or the action worker an action's). */
const TRIGGERS_MAX_AGE_MS = 100;

/** How long a cancelled request has to send its answer before a stop closes its connection. */
const CLOSE_AFTER_CANCEL_MS = 1000;

/** A URL as the start-up line shows it: no user info, query or fragment (an endpoint may carry a key). */
function shownUrl(url: string): string {
  const u = new URL(url);
  return `${u.origin}${u.pathname}`;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

/** The engine on an open database: start it, listen, then start its workers. On failure the database is closed and released. */
export async function runEngine(
  { db, replicas, release, dataDir }: OpenedDatabase, auth: Authenticator, opts: ServeOptions, logger: Logger, since: () => string,
): Promise<RunningServer> {
  let server: Server | undefined;
  let processor: EventProcessor | undefined;
  let scheduler: { stop(): Promise<void> } | undefined;
  let worker: ActionWorker | undefined;
  let stopLogging = (): void => {};
  let tracing: { stop(): Promise<void> } | undefined;
  try {
    // Traces first: every statement of the engine goes through the traced database (its folder loaded only now).
    if (opts.traces) {
      const t = await import('./tracing/index.js');
      const started = t.startTracing(opts.traces, logger);
      tracing = started;
      db = t.tracedDatabase(db, started.tracer);
      if (replicas) replicas = t.tracedDatabase(replicas, started.tracer);
    }
    const engine = await Engine.start(db, logger, opts.clock);
    logger.debug(`start-up: catalog and schema cache ready after ${since()}`);
    const lookup = opts.variable;
    // Read at each delivery: a variable set or changed later is used from then on.
    const env = lookup ? new Proxy({}, { get: (_, name) => (typeof name === 'string' ? lookup(name) : undefined) }) : undefined;
    // Queries read from the replicas; mutations, metadata and the workers stay on the primary.
    const source = replicas ? { db, queryDb: replicas, freshCache: () => engine.freshCache(), heldCache: () => engine.heldCache() } : engine;
    const graphql = new GraphqlService(source, env, opts.enableAllowlist ?? false, {
      nodes: opts.nodeLimit ?? DEFAULT_DOCUMENT_LIMITS.nodes, aliases: opts.aliasLimit ?? DEFAULT_DOCUMENT_LIMITS.aliases,
    }, undefined, opts.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS);
    graphql.stringifyNumeric = opts.stringifyNumericTypes ?? false;
    if (opts.inferFunctionPermissions === false) graphql.setInferFunctionPermissions(false);
    // Listening first: the workers' sessions are not needed to answer, and their first claims wait for a poll anyway.
    const log = new StructuredLog({ format: opts.logFormat ?? 'text', ...(opts.logTypes ? { types: opts.logTypes } : {}), logger });
    const metrics = opts.metricsSecret ? await loadMetrics(opts.metricsSecret, graphql, db) : undefined;
    server = createHttpServer(engine, { auth, logger, env, graphql, log, ...(metrics ? { metrics } : {}), ...(opts.cors ? { cors: opts.cors } : {}),
      ...(opts.liveQueriesRefetchMs !== undefined ? { liveQueriesRefetchMs: opts.liveQueriesRefetchMs } : {}),
      ...(opts.subscriptions ? { subscriptions: opts.subscriptions } : {}), ...(opts.enableConsole ? { extraRoutes: registerConsole } : {}) });
    if (log.has('query-log')) probes.queryLog = (detail) => log.emit('info', 'query-log', detail);
    stopLogging = ((stopLog) => () => {
      stopLog();
      metrics?.detach();
      probes.queryLog = undefined;
    })(logWebhooks(log));
    let address;
    try {
      address = await listen(server, opts.port, opts.host);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') {
        throw new CliError('port-in-use', `cannot listen on ${opts.host}:${opts.port}: address already in use`, 1, { hint: 'choose another --port' });
      }
      throw e;
    }
    logger.debug(`start-up: listening after ${since()}`);
    log.emit('info', 'startup', {
      kind: 'server', address: address.address, port: address.port, database: db.kind, cors: opts.cors ?? { origins: '*' },
      enabled_log_types: opts.logTypes ?? null, allowlist: opts.enableAllowlist ?? false, metrics: opts.metricsSecret !== undefined,
      traces: opts.traces ? { endpoint: shownUrl(opts.traces.endpoint), service_name: opts.traces.resource['service.name'] ?? null } : null,
    });
    // Their first claims wait for the first poll (≤ 1 s): they would hold the database while the first requests come.
    const claimOnStart = false;
    processor = await EventProcessor.start(db, { triggers: () => engine.consistentEventTriggers(TRIGGERS_MAX_AGE_MS), logger, env, claimOnStart });
    scheduler = await EventProcessor.startQueue(db, new ScheduledQueue(() => engine.cronTriggers(TRIGGERS_MAX_AGE_MS), opts.clock), { logger, env, claimOnStart });
    // The admin schema holds every consistent asynchronous action. It follows the stored metadata (§2.1): this
    // instance's changes at once, another instance's within TRIGGERS_MAX_AGE_MS (one statement fewer per claim).
    let known = { at: 0, version: -1, targets: new Map<string, AsyncTarget>() };
    const targets = async (): Promise<Map<string, AsyncTarget>> => {
      if (Date.now() - known.at < TRIGGERS_MAX_AGE_MS && known.version === engine.resourceVersion) return known.targets;
      // Without asynchronous actions there is nothing to claim: no admin schema is built for it (at start-up, seconds
      // at thousands of tables).
      const { cache } = await engine.freshCache();
      const anyAsync = [...cache.metadata.actions.values()].some((a) => a.definition.kind === 'asynchronous');
      const map = anyAsync ? asyncTargets(await graphql.schemaFor('admin')) : new Map<string, AsyncTarget>();
      known = { at: Date.now(), version: engine.resourceVersion, targets: map };
      return map;
    };
    worker = await ActionWorker.start(db, { targets, logger, env, claimOnStart });
    logger.debug(`start-up: event processor, scheduled events and action worker started after ${since()}`);
    const host = address.address.includes(':') ? `[${address.address}]` : address.address;
    const running = server;
    const events = processor;
    const scheduled = scheduler;
    const actions = worker;
    const traces = tracing;
    return {
      url: `http://${host}:${address.port}`,
      engine,
      database: db.kind,
      dataDir,
      schemaFor: (role) => graphql.schemaFor(role),
      async close() {
        // Requests still running after the grace period are cancelled (they answer a `timeout` error), and so is any
        // other statement (run_sql); a connection still open a moment later is closed.
        const grace = opts.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
        let last: NodeJS.Timeout | undefined;
        const cancel = setTimeout(() => {
          graphql.cancelAll();
          void db.cancelRunning?.();
          void replicas?.cancelRunning?.();
          last = setTimeout(() => running.closeAllConnections(), CLOSE_AFTER_CANCEL_MS);
        }, grace);
        try {
          // Deliveries and action calls finish (≤ 10 s) while requests drain; all before the database closes (cli.md §5.17).
          await Promise.all([closeServer(running), events.stop(), actions.stop(), scheduled.stop()]);
        } finally {
          clearTimeout(cancel);
          clearTimeout(last);
        }
        stopLogging();
        await Promise.all([log.flush(), traces?.stop()]);
        await db.close();
        await replicas?.close();
        release();
      },
    };
  } catch (e) {
    if (server?.listening) await closeServer(server);
    await processor?.stop().catch(() => {});
    await scheduler?.stop().catch(() => {});
    await worker?.stop().catch(() => {});
    stopLogging();
    await tracing?.stop().catch(() => {});
    await db.close().catch(() => {});
    await replicas?.close().catch(() => {});
    release();
    throw e;
  }
}
