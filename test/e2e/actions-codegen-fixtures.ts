/**
 * Fixtures of actions-codegen.test.ts. express and fastify are not installed: the type check runs against minimal
 * ambient declarations shaped like @types/express (`export =` with a namespace) and fastify's own typings (route
 * generics typing `request.body`), and the express router runs against a tiny stub.
 */

/** Strict settings, so that the generated code is checked as a careful project would check it. */
export const TSCONFIG = JSON.stringify({
  compilerOptions: {
    target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noUnusedLocals: true,
    noUnusedParameters: true, noImplicitReturns: true, noUncheckedIndexedAccess: true, exactOptionalPropertyTypes: true,
    esModuleInterop: true, skipLibCheck: true, noEmit: true, allowJs: true, checkJs: true, types: ['node'],
    typeRoots: [new URL('../../node_modules/@types', import.meta.url).pathname],
  },
  include: ['gen/**/*', 'types/*.d.ts'],
}, null, 2);

export const EXPRESS_DTS = `declare module 'express' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  namespace e {
    interface Request extends IncomingMessage { body: any; params: Record<string, string> }
    interface Response extends ServerResponse {
      status(code: number): Response;
      json(body?: unknown): Response;
      send(body?: unknown): Response;
    }
    type NextFunction = (err?: unknown) => void;
    type RequestHandler = (req: Request, res: Response, next: NextFunction) => void | Promise<void>;
    interface Router {
      post(path: string, ...handlers: RequestHandler[]): Router;
      use(...handlers: RequestHandler[]): Router;
    }
    function Router(): Router;
    function json(): RequestHandler;
  }
  interface Express { use(...handlers: unknown[]): Express; listen(port: number): unknown }
  function e(): Express;
  export = e;
}
`;

export const FASTIFY_DTS = `declare module 'fastify' {
  export interface RouteGenericInterface { Body?: unknown; Querystring?: unknown; Params?: unknown; Headers?: unknown }
  export interface FastifyRequest<G extends RouteGenericInterface = RouteGenericInterface> {
    body: G['Body'];
    headers: Record<string, string | string[] | undefined>;
  }
  export interface FastifyReply {
    code(statusCode: number): FastifyReply;
    status(statusCode: number): FastifyReply;
    send(payload?: unknown): FastifyReply;
  }
  export type RouteHandlerMethod<G extends RouteGenericInterface> =
    (this: FastifyInstance, request: FastifyRequest<G>, reply: FastifyReply) => unknown;
  export interface FastifyInstance {
    post<G extends RouteGenericInterface = RouteGenericInterface>(path: string, handler: RouteHandlerMethod<G>): FastifyInstance;
    register(plugin: (app: FastifyInstance) => Promise<void>): FastifyInstance;
  }
  export default function fastify(): FastifyInstance;
}
`;

/** `require('express')` for the transpiled router: Router().post, json(), and `serve(router)` (a test helper). */
export const EXPRESS_STUB = `'use strict';
const http = require('node:http');
function json() {
  return (req, res, next) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c) => { raw += c; });
    req.on('end', () => {
      try { req.body = raw === '' ? undefined : JSON.parse(raw); } catch (e) { next(e); return; }
      next();
    });
  };
}
function Router() {
  const routes = [];
  const router = { routes, post(path, ...handlers) { routes.push({ method: 'POST', path, handlers }); return router; } };
  return router;
}
function serve(router) {
  return http.createServer((req, res) => {
    res.status = (code) => { res.statusCode = code; return res; };
    res.json = (value) => { res.setHeader('Content-Type', 'application/json'); res.end(JSON.stringify(value)); return res; };
    const route = router.routes.find((r) => r.method === req.method && r.path === req.url);
    if (!route) { res.statusCode = 404; res.end(); return; }
    const chain = [...route.handlers];
    const next = (err) => {
      if (err) { res.statusCode = 400; res.end(); return; }
      const h = chain.shift();
      if (h) Promise.resolve(h(req, res, next)).catch((e) => { res.statusCode = 500; res.end(String(e)); });
    };
    next();
  });
}
module.exports = { json, Router, serve };
`;
