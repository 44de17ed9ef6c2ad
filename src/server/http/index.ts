import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../logger.js';
import { probes } from '../../probes.js';
import { Authenticator } from '../auth/index.js';
import type { Engine } from '../engine.js';
import { GraphqlService } from '../graphql/service.js';
import type { DocumentLimits } from '../graphql/request/index.js';
import type { Env } from '../outbound/index.js';
import { VERSION } from '../../version.js';
import { corsStep, DEFAULT_CORS, type CorsSetting } from './cors.js';
import { INTERNAL, notFound, send, sendError } from './envelope.js';
import { registerHealth } from './health.js';
import { noStructuredLog, type StructuredLog } from './logs.js';
import { registerHttpLog } from './http-log.js';
import { registerMetrics, type Metrics } from './metrics.js';
import { registerRoutes } from './routes.js';
import { registerTracing } from './tracing.js';
import { attachWebSockets } from './websocket.js';
import { HttpApp } from './router.js';
import type { ServerLimits, SubscriptionSettings } from '../graphql/subscriptions/index.js';

export { MAX_BODY_BYTES, MAX_NESTING, readJson } from './body.js';
export { errorBody, sendError } from './envelope.js';
export { loadMetrics, type Metrics } from './metrics.js';
export { subscriptionsOf } from './websocket.js';

/**
 * The HTTP layer of engine-api.md §1 (issue 31.0): routes (router.ts), CORS, request ids, logs. Bodies are read by
 * body.ts, and the Node server is made here, so that its limits and timeouts stay ours.
 */

/**
 * Node's default of 16 KB would answer a long token with a bare 431; above the longest token the engine reads
 * (64 KB, auth/jwt.ts) such a token gets the invalid-jwt 401 of issue 17.
 */
export const MAX_HEADER_BYTES = 128 * 1024;

/**
 * Connection timeouts, in ms. keepAlive is above the idle timeouts of common client pools (undici 4 s, Node's agent
 * 5 s, load balancers 60 s), so a client never reuses a socket the server is closing at that instant; headers is above
 * keepAlive (Node requires request ≥ headers). bodyIdle closes an upload that goes quiet; request caps the whole read
 * of headers and body, so a stalled client cannot hold a connection for Node's default 300 s.
 */
export interface HttpTimeouts {
  keepAlive: number;
  headers: number;
  request: number;
  bodyIdle: number;
  /** How often Node checks the headers and request timeouts. */
  checkInterval: number;
}

export const DEFAULT_TIMEOUTS: HttpTimeouts = { keepAlive: 65_000, headers: 66_000, request: 120_000, bodyIdle: 30_000, checkInterval: 10_000 };

export interface HttpOptions {
  adminSecret?: string;
  /** Resolves callers (JWT, unauthorized role); when absent, the admin secret alone (engine-api.md §2.2). */
  auth?: Authenticator;
  logger: Logger;
  version?: string;
  timeouts?: Partial<HttpTimeouts>;
  /** The GraphQL endpoint's service; one is created when absent (tests pass their own to read its statistics). */
  graphql?: GraphqlService;
  /** Variables of action handler templates and headers, read at each call; default: the process environment. */
  env?: Env;
  /** Non-admin GraphQL requests must send allow-listed documents (issue 20). */
  enableAllowlist?: boolean;
  /** The node and alias limits of `/v1/graphql` (issue 28); default DEFAULT_DOCUMENT_LIMITS. */
  graphqlLimits?: DocumentLimits;
  /** ENGINE_GRAPHQL_STRINGIFY_NUMERIC_TYPES: bigint, numeric and float8 answered as strings (issue 29.8). */
  stringifyNumeric?: boolean;
  /** ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS=false: function root fields only for roles with a function permission (issue 29.6). */
  inferFunctionPermissions?: boolean;
  /** `--cors-domain` / `--disable-cors`; default any origin. */
  cors?: CorsSetting;
  /** Structured logs (issue 31.2); default none. */
  log?: StructuredLog;
  /**
   * More routes on the same server: the place for static files (the web console at /console) and later WebSocket
   * endpoints. Called after the API routes, before the server listens.
   */
  extraRoutes?: (app: HttpApp) => void;
  /** `GET /v1/metrics` and the request counters (issue 31.3); off when absent. */
  metrics?: Metrics;
  /** `--live-queries-refetch-interval` in ms (issue 32.3); default 1 s, 0 disables the fallback refetch. */
  liveQueriesRefetchMs?: number;
  /** WebSocket connection, subscription and send-buffer limits (issue 32.7); default DEFAULT_LIMITS. */
  subscriptionLimits?: Partial<ServerLimits>;
  /** `engine serve`'s subscription settings (batch size, WebSocket timers, limits); subscriptionLimits wins over its limits. */
  subscriptions?: SubscriptionSettings;
}

/** The engine's HTTP server; call listen() to start it. */
export function createHttpServer(engine: Engine, opts: HttpOptions): Server {
  const t = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };
  const log = opts.log ?? noStructuredLog;
  // Traces are on for the process or not (runEngine starts them before the server): read once.
  const tracer = probes.tracer;
  const app = new HttpApp();
  const corsSetting = opts.cors ?? DEFAULT_CORS;
  const cors = corsSetting.disabled ? null : corsStep(corsSetting.origins);
  app.onRequest((request, reply) => {
    reply.header('x-request-id', request.id);
    // engine-api.md §1.2: the Content-Type header is ignored; no route reads it, and the auth hook and actions never
    // forward it.
    const headers = request.raw.headers;
    if (headers['content-type'] !== undefined) headers['content-type'] = undefined;
    const acrh = headers['access-control-request-headers'];
    if (cors?.(headers.origin, request.method, typeof acrh === 'string' ? acrh : undefined, reply)) {
      reply.code(204).header('content-length', '0').send();
    }
  });
  if (log.has('http-log')) registerHttpLog(app, log);
  if (opts.metrics) registerMetrics(app, opts.metrics);
  if (tracer) registerTracing(app, tracer);

  const graphql = opts.graphql ?? new GraphqlService(engine, opts.env, opts.enableAllowlist ?? false, opts.graphqlLimits);
  if (opts.stringifyNumeric) graphql.stringifyNumeric = true;
  if (opts.inferFunctionPermissions === false) graphql.setInferFunctionPermissions(false);
  const auth = opts.auth ?? Authenticator.adminOnly(opts.adminSecret);
  registerHealth(app, engine, log);
  registerRoutes(app, { engine, graphql, auth, logger: opts.logger, version: opts.version ?? VERSION, bodyIdleMs: t.bodyIdle, logged: log.has('http-log') });
  opts.extraRoutes?.(app);
  app.setNotFoundHandler((request, reply) => sendError(request.raw, reply, notFound(), false));
  app.setErrorHandler((e, request, reply) => {
    opts.logger.error(`request failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    request.errorCode = 'unexpected';
    if (!reply.raw.headersSent) send(reply, 500, INTERNAL);
    else reply.raw.destroy();
  });
  const server = createServer(
    { maxHeaderSize: MAX_HEADER_BYTES, keepAliveTimeout: t.keepAlive, headersTimeout: t.headers, requestTimeout: t.request, connectionsCheckingInterval: t.checkInterval },
    tracer ? tracer.serve(app.handle) : app.handle,
  );
  attachWebSockets(server, {
    db: engine.db, graphql, auth, logger: opts.logger, ...(opts.liveQueriesRefetchMs !== undefined ? { refetchIntervalMs: opts.liveQueriesRefetchMs } : {}),
    ...opts.subscriptions,
    ...(opts.subscriptionLimits || opts.subscriptions?.limits ? { limits: { ...opts.subscriptions?.limits, ...opts.subscriptionLimits } } : {}),
  });
  return server;
}

/** Listens and resolves with the bound address; rejects with the listen error (EADDRINUSE …). */
export function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (e: Error) => reject(e);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    });
  });
}
