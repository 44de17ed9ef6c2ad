import type { HttpApp, HttpReply, HttpRequest } from './router.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../../errors.js';
import { StatementCancelled } from '../../db/database.js';
import type { Logger } from '../../logger.js';
import type { Authenticator, HookRequest } from '../auth/index.js';
import type { Engine } from '../engine.js';
import { pgDumpRequest } from '../pg-dump.js';
import { errorsBody, INTERNAL_ERROR_BODY } from '../graphql/errors.js';
import type { GraphqlInput, GraphqlService } from '../graphql/service.js';
import { ENGINE_VERSION_HEADER } from '../../version.js';
import { BodyError, closeAfterAnswer, discardBody, MAX_NESTING, readBody, readJson } from './body.js';
import { nestingDepth } from '../json-depth.js';
import { errorBody, send, sendError } from './envelope.js';
import { matchRest, REST_PREFIX, restRequest } from './rest.js';
import { answered, whileConnected } from './connection.js';

/** The API routes of engine-api.md §1 (health is in health.ts). */
export interface RouteContext {
  engine: Engine;
  graphql: GraphqlService;
  auth: Authenticator;
  logger: Logger;
  version: string;
  bodyIdleMs: number;
  /** `http-log` is on: GraphQL answers are scanned for their first error code. */
  logged: boolean;
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

const ERROR_CODE = /"extensions":\{[^{}]*"code":"([^"\\]+)"/;

/** The first error code of a GraphQL answer that starts with its errors (the engine's errors-only answers). */
function graphqlErrorCode(body: string | Buffer): string {
  if (typeof body !== 'string' || !body.startsWith('{"errors"')) return '';
  return ERROR_CODE.exec(body)?.[1] ?? '';
}

/** `legacy`: the incumbent's `/v1alpha1/graphql`, which answers an errors-only body with HTTP 400. */
function sendGraphql(reply: HttpReply, body: string | Buffer, setCookies: string[], logged: boolean, legacy = false): void {
  if (logged) reply.request.errorCode = graphqlErrorCode(body);
  if (setCookies.length > 0) reply.header('set-cookie', setCookies);
  send(reply, legacy && typeof body === 'string' && body.startsWith('{"errors"') ? 400 : 200, body);
}

export function registerRoutes(app: HttpApp, ctx: RouteContext): void {
  const { engine, graphql, auth, bodyIdleMs } = ctx;
  const versionBody = JSON.stringify({ version: ctx.version });

  // The header tells the project tool that the endpoint is this engine, not another server with a /v1/version.
  app.get('/v1/version', (_req, reply) => {
    reply.header(ENGINE_VERSION_HEADER.toLowerCase(), ctx.version);
    send(reply, 200, versionBody);
  });

  const metadataApi = async (request: HttpRequest, reply: HttpReply): Promise<void> => {
    const req = request.raw;
    let isAdmin = false;
    try {
      const caller = await auth.resolveCaller(req.headers);
      request.role = caller.role;
      isAdmin = caller.role === 'admin';
      const body = await readJson(req, bodyIdleMs);
      const out = await engine.execute(body, caller.role, caller.sessionVariables);
      reply.header('x-engine-resource-version', String(out.resourceVersion));
      send(reply, 200, out.body);
    } catch (e) {
      // A stop cancelled the statement once its grace period was over (issue 28): nothing of it was committed.
      if (e instanceof StatementCancelled) {
        request.errorCode = 'timeout';
        return send(reply, 503, errorBody(new ApiError(503, 'timeout', '$', 'the request was cancelled: the engine is stopping'), false));
      }
      // The pool's 503 (no connection free within its timeout) is an answer in the envelope, as on /v1/graphql.
      if (!(e instanceof ApiError) || (e.status >= 500 && e.code !== 'database-busy')) throw e;
      sendError(req, reply, e, isAdmin);
    }
  };
  app.post('/v1/query', metadataApi);
  app.post('/v1/metadata', metadataApi);
  // The incumbent's v2 query API (issue 29 point 6): the same operations, data queries among them.
  app.post('/v2/query', metadataApi);

  /** A route for the admin only (`refusal`: the incumbent's message to others); its errors are metadata-API bodies. */
  const adminRoute = (refusal: string, answer: (request: HttpRequest, reply: HttpReply) => Promise<void>) =>
    async (request: HttpRequest, reply: HttpReply): Promise<void> => {
      const req = request.raw;
      let isAdmin = false;
      try {
        const caller = await auth.resolveCaller(req.headers);
        request.role = caller.role;
        isAdmin = caller.role === 'admin';
        if (!isAdmin) throw new ApiError(400, 'access-denied', '$', refusal);
        await answer(request, reply);
      } catch (e) {
        if (!(e instanceof ApiError) || e.status >= 500) throw e;
        sendError(req, reply, e, isAdmin);
      }
    };

  app.post('/v1alpha1/pg_dump', adminRoute('restricted access : admin only', async (request, reply) => {
    const sql = await pgDumpRequest(engine.db, await readJson(request.raw, bodyIdleMs));
    reply.code(200).header('content-type', 'application/sql; charset=utf-8').send(sql);
  }));

  /** graphql-api.md §1: every answer is a GraphQL body, authentication errors included (issue 27). */
  const graphqlApi = (service: () => GraphqlService, legacy = false) => async (request: HttpRequest, reply: HttpReply): Promise<void> => {
    const req = request.raw;
    try {
      // A POST auth hook receives the GraphQL request, so the body comes first; otherwise it is not read for a 401.
      let input = auth.needsRequest ? await readGraphqlInput(req, reply.raw) : undefined;
      if (input === null) return;
      let caller;
      try {
        caller = await auth.resolveCaller(req.headers, input ? hookRequest(input) : null);
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        // Issue 27: a GraphQL body with HTTP 200, as the incumbent answers, so that GraphQL clients show the message.
        if (input === undefined) discardBody(req);
        request.errorCode = e.code;
        return send(reply, legacy ? 400 : 200, errorsBody(e, false));
      }
      request.role = caller.role;
      input ??= await readGraphqlInput(req, reply.raw);
      if (input === null) return;
      if ('text' in input) request.graphqlText = input.text;
      const signal = whileConnected(req);
      const http = { rawHeaders: req.rawHeaders, setCookies: [] as string[], signal, ownSignal: true, ip: () => request.ip, seen: request };
      try {
        sendGraphql(reply, await service().handle(input, caller, http), http.setCookies, ctx.logged, legacy);
      } finally {
        answered(req, signal);
      }
    } catch (e) {
      ctx.logger.error(`graphql request failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      request.errorCode = 'unexpected';
      if (!reply.sent && !reply.raw.headersSent) send(reply, 500, INTERNAL_ERROR_BODY);
      else reply.raw.destroy();
    }
  };
  app.post('/v1/graphql', graphqlApi(() => graphql));
  // The incumbent's older path for the same API (its projects and test cases still use it): errors answer HTTP 400.
  app.post('/v1alpha1/graphql', graphqlApi(() => graphql, true));
  // Issue 30.6: the incumbent's Relay API, the same request and answers over the Relay schema.
  // The Relay API's modules load with its first request (issue 28); the route waits for them, then answers as above.
  let relay: GraphqlService | null = null;
  const relayApi = graphqlApi(() => relay as GraphqlService);
  app.post('/v1beta1/relay', async (request, reply) => {
    relay ??= await graphql.relay();
    return relayApi(request, reply);
  });

  /** Issue 30.7: the incumbent's explain API (admin only); errors are metadata-API bodies, as its are. */
  app.post('/v1/graphql/explain', adminRoute('You have to be an admin to access this endpoint', async (request, reply) => {
    send(reply, 200, await graphql.explain(await readJson(request.raw, bodyIdleMs)));
  }));

  /** Issue 20: a stored query run like a `/v1/graphql` request, authenticated and permitted the same way. */
  app.all(`${REST_PREFIX}*`, async (request, reply) => {
    const req = request.raw;
    let isAdmin = false;
    try {
      const caller = await auth.resolveCaller(req.headers, null);
      request.role = caller.role;
      isAdmin = caller.role === 'admin';
      const method = request.method;
      const path = request.path.slice(REST_PREFIX.length);
      const { cache } = await engine.freshCache();
      const match = matchRest(cache.metadata, path, method, cache.inconsistentIds);
      const body = method === 'GET' ? (discardBody(req), undefined) : await readJson(req, bodyIdleMs);
      const text = restRequest(match, new URLSearchParams(request.search), body);
      request.graphqlText = text;
      const signal = whileConnected(req);
      const http = { rawHeaders: req.rawHeaders, setCookies: [] as string[], stored: true, signal, ownSignal: true, ip: () => request.ip, seen: request };
      try {
        sendGraphql(reply, await graphql.handle({ text }, caller, http), http.setCookies, ctx.logged);
      } finally {
        answered(req, signal);
      }
    } catch (e) {
      if (!(e instanceof ApiError) || e.status >= 500) throw e;
      sendError(req, reply, e, isAdmin);
    }
  });

  /** The body as the GraphQL service's input; null when the client is gone. */
  async function readGraphqlInput(req: IncomingMessage, res: ServerResponse): Promise<GraphqlInput | null> {
    try {
      const text = (await readBody(req, bodyIdleMs)).toString('utf8');
      return nestingDepth(text) > MAX_NESTING ? { error: `request body is nested more than ${MAX_NESTING} levels deep` } : { text };
    } catch (e) {
      if (!(e instanceof BodyError)) throw e;
      // Too large or stalled: answered as a GraphQL error, and the rest of the body is not read.
      if (req.socket.destroyed) return null;
      closeAfterAnswer(res);
      return { error: e.message };
    }
  }
}
