import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError } from '../errors.js';
import type { Logger } from '../logger.js';
import { resolveCaller } from './auth.js';
import type { Engine } from './engine.js';
import { GraphqlService } from './graphql/service.js';
import { INTERNAL_ERROR_BODY } from './graphql/errors.js';
import { VERSION } from '../version.js';

export const MAX_BODY_BYTES = 50 * 1024 * 1024;
export const MAX_NESTING = 512;

const JSON_TYPE = 'application/json; charset=utf-8';

export interface HttpOptions {
  adminSecret?: string;
  logger: Logger;
  version?: string;
  /** The GraphQL endpoint's service; one is created when absent (tests pass their own to read its statistics). */
  graphql?: GraphqlService;
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

export function errorBody(e: ApiError, includeInternal: boolean): string {
  const body: Record<string, unknown> = { path: e.path, error: e.message, code: e.code };
  if (includeInternal && e.internal !== undefined) body['internal'] = e.internal;
  return JSON.stringify(body);
}

const INTERNAL = JSON.stringify({ path: '$', error: 'internal error', code: 'unexpected' });

/** Depth of JSON nesting, measured before parsing so that hostile input cannot exhaust the stack. */
function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      depth++;
      if (depth > max) max = depth;
    } else if (c === 93 || c === 125) depth--;
  }
  return max;
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const notFound = (): ApiError => new ApiError(404, 'not-found', '$', 'resource does not exist');

/** The HTTP layer of engine-api.md §1: routes, envelope, status codes. */
export function createHttpServer(engine: Engine, opts: HttpOptions): Server {
  const version = opts.version ?? VERSION;
  const graphql = opts.graphql ?? new GraphqlService(engine);
  return createServer((req, res) => {
    void handle(req, res).catch((e: unknown) => {
      opts.logger.error(`request failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      if (!res.headersSent) send(res, 500, INTERNAL);
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/healthz') return health(res);
    if (req.method === 'GET' && path === '/v1/version') return send(res, 200, JSON.stringify({ version }));
    if (req.method === 'POST' && path === '/v1/graphql') return graphqlEndpoint(req, res);
    if (req.method !== 'POST' || (path !== '/v1/query' && path !== '/v1/metadata')) {
      req.resume();
      const e = notFound();
      return send(res, e.status, errorBody(e, false));
    }
    let isAdmin = false;
    try {
      const caller = resolveCaller(req.headers, opts.adminSecret);
      isAdmin = caller.role === 'admin';
      const raw = await readBody(req);
      if (raw === null) {
        throw new ApiError(413, 'parse-failed', '$', `request body is larger than the limit of ${MAX_BODY_BYTES / 1024 / 1024} MB`);
      }
      const text = raw.toString('utf8');
      if (nestingDepth(text) > MAX_NESTING) {
        throw new ApiError(400, 'parse-failed', '$', `request body is nested more than ${MAX_NESTING} levels deep`);
      }
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new ApiError(400, 'invalid-json', '$', 'request body is not valid JSON');
      }
      const out = await engine.execute(body, caller.role, caller.sessionVariables);
      send(res, 200, out.body, { 'X-Engine-Resource-Version': String(out.resourceVersion) });
    } catch (e) {
      if (!(e instanceof ApiError) || e.status >= 500) throw e;
      req.resume();
      send(res, e.status, errorBody(e, isAdmin));
    }
  }

  /** graphql-api.md §1: authentication errors keep the 401 envelope; everything else is a GraphQL body. */
  async function graphqlEndpoint(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let caller;
    try {
      caller = resolveCaller(req.headers, opts.adminSecret);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      req.resume();
      return send(res, e.status, errorBody(e, false));
    }
    try {
      const raw = await readBody(req);
      const text = raw?.toString('utf8');
      const input = text === undefined ? { error: `request body is larger than the limit of ${MAX_BODY_BYTES / 1024 / 1024} MB` }
        : nestingDepth(text) > MAX_NESTING ? { error: `request body is nested more than ${MAX_NESTING} levels deep` } : { text };
      send(res, 200, await graphql.handle(input, caller));
    } catch (e) {
      opts.logger.error(`graphql request failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      if (!res.headersSent) send(res, 500, INTERNAL_ERROR_BODY);
      else res.destroy();
    }
  }

  async function health(res: ServerResponse): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('health check timed out')), 5000);
    });
    try {
      await Promise.race([engine.db.query('SELECT 1'), timeout]);
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('OK');
    } catch {
      res.writeHead(500, { 'Content-Type': 'text/plain' }).end('ERROR');
    } finally {
      clearTimeout(timer);
    }
  }
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
