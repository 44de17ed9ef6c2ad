import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError } from '../errors.js';
import { StatementCancelled } from '../db/database.js';
import type { Logger } from '../logger.js';
import { Authenticator, type HookRequest } from './auth/index.js';
import type { Engine } from './engine.js';
import { checkStorableStrings } from './storable-strings.js';
import { MAX_JSON_NESTING, nestingDepth } from './json-depth.js';
import { pgDumpRequest } from './pg-dump.js';
import { GraphqlService, type GraphqlInput } from './graphql/service.js';
import { errorsBody, INTERNAL_ERROR_BODY } from './graphql/errors.js';
import type { DocumentLimits } from './graphql/request/index.js';
import { matchRest, REST_PREFIX, restRequest } from './rest.js';
import type { Env } from './outbound/index.js';
import { ENGINE_MAX_BODY_BYTES } from '../limits.js';
import { ENGINE_VERSION_HEADER, VERSION } from '../version.js';

/** One limit for the engine and the project tool, which refuses larger requests before sending them. */
export const MAX_BODY_BYTES = ENGINE_MAX_BODY_BYTES;
export const MAX_NESTING = MAX_JSON_NESTING;
/**
 * Node's default of 16 KB would answer a long token with a bare 431; above the longest token the engine reads
 * (64 KB, auth/jwt.ts) such a token gets the invalid-jwt 401 of issue 17.
 */
export const MAX_HEADER_BYTES = 128 * 1024;

const JSON_TYPE = 'application/json; charset=utf-8';

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
}

function send(res: ServerResponse, status: number, body: string | Buffer, headers: Record<string, string | string[]> = {}): void {
  res.writeHead(status, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

export function errorBody(e: ApiError, includeInternal: boolean): string {
  const body: Record<string, unknown> = { path: e.path, error: e.message, code: e.code };
  if (includeInternal && e.internal !== undefined) body['internal'] = e.internal;
  return JSON.stringify(body);
}

const INTERNAL = JSON.stringify({ path: '$', error: 'internal error', code: 'unexpected' });

/** Thrown while reading a body: the rest of it is not read, so the answer closes the connection. */
class BodyError extends ApiError {}

const tooLarge = (): BodyError =>
  new BodyError(413, 'parse-failed', '$', `request body is larger than the limit of ${MAX_BODY_BYTES / 1024 / 1024} MB`);

/**
 * Reads the body up to MAX_BODY_BYTES. A Content-Length over the limit is refused before reading; a body that
 * passes the limit stops being read at once (an endless chunked upload must not be drained), and so does one whose
 * sender goes quiet for `idleMs`.
 */
function readBody(req: IncomingMessage, idleMs: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (e: Error) => {
      req.off('data', onData);
      req.pause();
      reject(e);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) stop(tooLarge());
      else chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => {
      req.socket.setTimeout(0);
      resolve(Buffer.concat(chunks));
    });
    // The client went away mid-body, or Node's request timeout fired: there is no one to answer.
    req.on('error', () => reject(new BodyError(400, 'parse-failed', '$', 'request body not received: the connection was closed')));
    if (idleMs > 0) {
      // On the request, not the socket: Node destroys a timed-out socket unless the request handles 'timeout'.
      req.setTimeout(idleMs, () => {
        stop(new BodyError(408, 'parse-failed', '$', `request body not received: no data for ${idleMs / 1000} s`));
      });
    }
  });
}

/** How long a connection refused mid-body stays half-closed before it is destroyed. */
const LINGER_MS = 1000;

/**
 * Closes the connection once the answer to a refused body is flushed. Node would destroy the socket at that moment;
 * with request bytes still unread that is a TCP reset, and a client still writing its body then often sees the reset
 * instead of the answer. So the answer and a FIN go out, nothing more is read, and the socket is destroyed a moment
 * later: a bounded form of the "lingering close" of Apache and nginx.
 */
function closeAfterAnswer(res: ServerResponse): void {
  const socket = res.socket;
  res.setHeader('Connection', 'close');
  res.once('finish', () => {
    if (!socket) return;
    socket.removeListener('finish', socket.destroy);
    const timer = setTimeout(() => socket.destroy(), LINGER_MS).unref();
    socket.once('close', () => clearTimeout(timer));
  });
}

/** Discards an unread body after an early answer (404, 401), closing the connection if it passes the limit. */
function discardBody(req: IncomingMessage): void {
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) req.socket.destroy();
  });
  req.resume();
}

/**
 * The shared body path of every JSON route: read (≤ 50 MB), nesting limit, JSON.parse, then the strings PostgreSQL
 * cannot store (§1.6). Throws ApiError with the status to answer.
 */
export async function readJson(req: IncomingMessage, idleMs = DEFAULT_TIMEOUTS.bodyIdle): Promise<unknown> {
  const text = (await readBody(req, idleMs)).toString('utf8');
  if (nestingDepth(text) > MAX_NESTING) {
    throw new ApiError(400, 'parse-failed', '$', `request body is nested more than ${MAX_NESTING} levels deep`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError(400, 'invalid-json', '$', 'request body is not valid JSON');
  }
  checkStorableStrings(body);
  return body;
}

/**
 * Answers a user error in the §1.4 envelope. After a refused body (too large, stalled) the rest is not read and the
 * connection closes once the answer is flushed; otherwise what is left of the body is discarded, keeping the
 * connection alive.
 */
export function sendError(req: IncomingMessage, res: ServerResponse, e: ApiError, isAdmin: boolean): void {
  if (e instanceof BodyError) {
    if (req.socket.destroyed) return; // the client is gone: no one to answer
    closeAfterAnswer(res);
  } else discardBody(req);
  send(res, e.status, errorBody(e, isAdmin));
}

/** What a POST auth hook receives of a GraphQL body: its query, variables and operationName, or null. */
function hookRequest(input: GraphqlInput): HookRequest | null {
  if (!('text' in input)) return null;
  try {
    const body: unknown = JSON.parse(input.text);
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
    const { query, variables, operationName } = body as Record<string, unknown>;
    return { query: query ?? null, variables: variables ?? null, operationName: operationName ?? null };
  } catch {
    return null;
  }
}

const notFound = (): ApiError => new ApiError(404, 'not-found', '$', 'resource does not exist');

/** The HTTP layer of engine-api.md §1: routes, envelope, status codes. */
export function createHttpServer(engine: Engine, opts: HttpOptions): Server {
  const version = opts.version ?? VERSION;
  const t = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };
  const graphql = opts.graphql ?? new GraphqlService(engine, opts.env, opts.enableAllowlist ?? false, opts.graphqlLimits);
  const auth = opts.auth ?? Authenticator.adminOnly(opts.adminSecret);
  const server = createServer(
    { maxHeaderSize: MAX_HEADER_BYTES, keepAliveTimeout: t.keepAlive, headersTimeout: t.headers, requestTimeout: t.request, connectionsCheckingInterval: t.checkInterval },
    (req, res) => {
      void handle(req, res).catch((e: unknown) => {
        opts.logger.error(`request failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
        if (!res.headersSent) send(res, 500, INTERNAL);
        else res.destroy();
      });
    },
  );
  return server;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/healthz') return health(res);
    // The header tells the project tool that the endpoint is this engine, not another server with a /v1/version.
    if (req.method === 'GET' && path === '/v1/version') return send(res, 200, JSON.stringify({ version }), { [ENGINE_VERSION_HEADER]: version });
    if (req.method === 'POST' && path === '/v1/graphql') return graphqlEndpoint(req, res);
    if (path?.startsWith(REST_PREFIX)) return restEndpoint(req, res, path.slice(REST_PREFIX.length));
    if (req.method === 'POST' && path === '/v1alpha1/pg_dump') return pgDumpEndpoint(req, res);
    if (req.method !== 'POST' || (path !== '/v1/query' && path !== '/v1/metadata' && path !== '/v2/query')) {
      return sendError(req, res, notFound(), false);
    }
    let isAdmin = false;
    try {
      const caller = await auth.resolveCaller(req.headers);
      isAdmin = caller.role === 'admin';
      const body = await readJson(req, t.bodyIdle);
      const out = await engine.execute(body, caller.role, caller.sessionVariables);
      send(res, 200, out.body, { 'X-Engine-Resource-Version': String(out.resourceVersion) });
    } catch (e) {
      // A stop cancelled the statement once its grace period was over (issue 28): nothing of it was committed.
      if (e instanceof StatementCancelled) return send(res, 503, errorBody(new ApiError(503, 'timeout', '$', 'the request was cancelled: the engine is stopping'), false));
      if (!(e instanceof ApiError) || e.status >= 500) throw e;
      sendError(req, res, e, isAdmin);
    }
  }

  async function pgDumpEndpoint(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let isAdmin = false;
    try {
      const caller = await auth.resolveCaller(req.headers);
      isAdmin = caller.role === 'admin';
      if (!isAdmin) throw new ApiError(400, 'access-denied', '$', 'restricted access : admin only');
      const sql = await pgDumpRequest(engine.db, await readJson(req, t.bodyIdle));
      res.writeHead(200, { 'Content-Type': 'application/sql; charset=utf-8', 'Content-Length': Buffer.byteLength(sql) }).end(sql);
    } catch (e) {
      if (!(e instanceof ApiError) || e.status >= 500) throw e;
      sendError(req, res, e, isAdmin);
    }
  }

  /** graphql-api.md §1: every answer is a GraphQL body, authentication errors included (issue 27). */
  async function graphqlEndpoint(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      // A POST auth hook receives the GraphQL request, so the body comes first; otherwise it is not read for a 401.
      let input = auth.needsRequest ? await readGraphqlInput(req, res) : undefined;
      if (input === null) return;
      let caller;
      try {
        caller = await auth.resolveCaller(req.headers, input ? hookRequest(input) : null);
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        // Issue 27: a GraphQL body with HTTP 200, as the incumbent answers, so that GraphQL clients show the message.
        if (input === undefined) discardBody(req);
        return send(res, 200, errorsBody(e, false));
      }
      input ??= await readGraphqlInput(req, res);
      if (input === null) return;
      const http = { rawHeaders: req.rawHeaders, setCookies: [] as string[], signal: whileConnected(res) };
      const body = await graphql.handle(input, caller, http);
      send(res, 200, body, http.setCookies.length > 0 ? { 'Set-Cookie': http.setCookies } : {});
    } catch (e) {
      opts.logger.error(`graphql request failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      if (!res.headersSent) send(res, 500, INTERNAL_ERROR_BODY);
      else res.destroy();
    }
  }

  /** Issue 20: a stored query run like a `/v1/graphql` request, authenticated and permitted the same way. */
  async function restEndpoint(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    let isAdmin = false;
    try {
      const caller = await auth.resolveCaller(req.headers, null);
      isAdmin = caller.role === 'admin';
      const method = req.method ?? 'GET';
      const { cache } = await engine.freshCache();
      const match = matchRest(cache.metadata, path, method, cache.inconsistentIds);
      const body = method === 'GET' ? (discardBody(req), undefined) : await readJson(req, t.bodyIdle);
      const text = restRequest(match, new URL(req.url ?? '/', 'http://x').searchParams, body);
      const http = { rawHeaders: req.rawHeaders, setCookies: [] as string[], stored: true, signal: whileConnected(res) };
      send(res, 200, await graphql.handle({ text }, caller, http), http.setCookies.length > 0 ? { 'Set-Cookie': http.setCookies } : {});
    } catch (e) {
      if (!(e instanceof ApiError) || e.status >= 500) throw e;
      sendError(req, res, e, isAdmin);
    }
  }

  /** The body as the GraphQL service's input; null when the client is gone. */
  async function readGraphqlInput(req: IncomingMessage, res: ServerResponse): Promise<GraphqlInput | null> {
    try {
      const text = (await readBody(req, t.bodyIdle)).toString('utf8');
      return nestingDepth(text) > MAX_NESTING ? { error: `request body is nested more than ${MAX_NESTING} levels deep` } : { text };
    } catch (e) {
      if (!(e instanceof BodyError)) throw e;
      // Too large or stalled: answered as a GraphQL error, and the rest of the body is not read.
      if (req.socket.destroyed) return null;
      closeAfterAnswer(res);
      return { error: e.message };
    }
  }

  async function health(res: ServerResponse): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('health check timed out')), 5000);
    });
    try {
      // A database busy with a long statement is alive (the embedded worker answers nothing else meanwhile).
      await Promise.race([engine.db.ping ? engine.db.ping() : engine.db.query('SELECT 1'), timeout]);
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('OK');
    } catch {
      res.writeHead(500, { 'Content-Type': 'text/plain' }).end('ERROR');
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Aborts when the connection closes before the answer is sent: the client went away, its statement is cancelled. */
function whileConnected(res: ServerResponse): AbortSignal {
  const gone = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  return gone.signal;
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
