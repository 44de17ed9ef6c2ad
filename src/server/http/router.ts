import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { OperationInfo } from '../graphql/service.js';

/**
 * The engine's own HTTP routing (issue 31.0): exact paths and prefixes, one hook before the routes and hooks after
 * the answer. Fastify did this at a cost of 7 % of the peer benchmark's throughput on cheap requests (18 % more CPU
 * per request; decisions.md), over the 3 % the issue allows, so the few parts of it the engine used are these
 * (same names, so that routes read as they did).
 */

export type Handler = (request: HttpRequest, reply: HttpReply) => void | Promise<unknown>;
/** Runs before routing; answering (reply.send) ends the request there. */
export type RequestHook = (request: HttpRequest, reply: HttpReply) => void;
/**
 * Runs once per request when its answer is given: at `reply.send`, or at the response's `finish` for an answer written
 * to the raw response. Logs and metrics.
 */
export type ResponseHook = (request: HttpRequest, reply: HttpReply) => void;
export type ErrorHandler = (e: unknown, request: HttpRequest, reply: HttpReply) => void;

/** What a handler learns of a request; plain fields, so that the logs read them without allocating. */
export class HttpRequest {
  role = '';
  errorCode = '';
  /** The GraphQL body's text (GraphQL routes): parsed by the log and metrics only when no operation was reported. */
  graphqlText = '';
  /** The GraphQL service reports the request's operation here once it is prepared (a batch: its first). */
  graphqlOperation: OperationInfo | undefined = undefined;
  /** The route that answered, as registered (`/v1/graphql`, `/api/rest/*`); '' when none did. */
  route = '';
  private parsedQuery: Record<string, string> | undefined;
  /** Read once from the Node request, whose shape changes as Node adds fields to it (loads of it are megamorphic). */
  readonly url: string;
  readonly method: string;
  /** The path without the query string. */
  readonly path: string;
  /** The query string without its `?` ('' when none). */
  readonly search: string;

  /** `ownId`: the engine made the id (a UUID: no escape needed in a log line); else the client sent it. */
  constructor(readonly raw: IncomingMessage, readonly id: string, readonly ownId = false) {
    const url = raw.url ?? '/';
    this.url = url;
    this.method = raw.method ?? 'GET';
    const q = url.indexOf('?');
    this.path = q < 0 ? url : url.slice(0, q);
    this.search = q < 0 ? '' : url.slice(q + 1);
  }

  get headers(): IncomingMessage['headers'] {
    return this.raw.headers;
  }

  get ip(): string | undefined {
    return this.raw.socket.remoteAddress;
  }

  /** The query string's parameters (the last of a repeated name). */
  get query(): Record<string, string> {
    this.parsedQuery ??= this.search === '' ? {} : Object.fromEntries(new URLSearchParams(this.search));
    return this.parsedQuery;
  }
}

export class HttpReply {
  statusCode = 200;
  private answered = false;
  /** The response hooks ran (once per request). */
  hooked = false;
  /**
   * Name, value, name, value…: Node takes the pairs as they are, where an object's keys would be walked with a
   * property check each (a cheap request's answer is a few headers; issue 28's cost per request).
   */
  private readonly headers: (string | number | string[])[] = [];

  constructor(readonly raw: ServerResponse, readonly request: HttpRequest, private readonly app: HttpApp, private readonly start: number) {}

  code(status: number): this {
    this.statusCode = status;
    return this;
  }

  /** Sets a header; `name` in lower case (every caller passes a literal), so that setting it again replaces it. */
  header(name: string, value: string | number | string[]): this {
    const h = this.headers;
    for (let i = 0; i < h.length; i += 2) {
      if (h[i] === name) {
        h[i + 1] = value;
        return this;
      }
    }
    h.push(name, value);
    return this;
  }

  /** A header set on this reply, or undefined. */
  getHeader(name: string): string | number | string[] | undefined {
    const h = this.headers;
    for (let i = 0; i < h.length; i += 2) if (h[i] === name) return h[i + 1];
    return undefined;
  }

  /** Whether the answer was given (by send or by writing to the raw response). */
  get sent(): boolean {
    return this.answered || this.raw.headersSent;
  }

  /** When the answer was given (its hooks ran), performance.now(); 0 before. */
  answeredAt = 0;

  /** Milliseconds from the request's arrival to its answer (to now, before the answer): one clock read for every hook. */
  get elapsedTime(): number {
    return (this.answeredAt || performance.now()) - this.start;
  }

  send(body: string | Buffer = ''): this {
    if (this.sent) return this;
    this.answered = true;
    if (this.getHeader('content-length') === undefined) {
      this.headers.push('content-length', typeof body === 'string' ? Buffer.byteLength(body) : body.length);
    }
    this.raw.writeHead(this.statusCode, this.headers);
    this.raw.end(body);
    // The hooks run here rather than on `finish`: a listener per request cost more than the log line (issue 31's 3 %).
    this.app.answered(this.request, this);
    return this;
  }

  /** Answers as for a path no route serves. */
  callNotFound(): void {
    this.app.notFound(this.request, this);
  }
}

type Method = 'GET' | 'POST';

function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/** The longest client X-Request-Id echoed. */
const MAX_REQUEST_ID = 200;

export class HttpApp {
  private readonly exact = new Map<string, Map<string, Handler>>();
  /** Prefix routes (`/api/rest/*`), longest first; `*` as method: every method. */
  private readonly prefixes: { prefix: string; method: string; handler: Handler }[] = [];
  private readonly requestHooks: RequestHook[] = [];
  private readonly responseHooks: ResponseHook[] = [];
  private notFoundHandler: Handler = (_request, reply) => {
    reply.code(404).send();
  };
  private errorHandler: ErrorHandler = (_e, _request, reply) => {
    if (!reply.sent) reply.code(500).send();
  };


  get(path: string, handler: Handler): void {
    this.route('GET', path, handler);
  }

  post(path: string, handler: Handler): void {
    this.route('POST', path, handler);
  }

  /** Every method; `path` may end with `*` (a prefix). */
  all(path: string, handler: Handler): void {
    this.route('*', path, handler);
  }

  private route(method: Method | '*', path: string, handler: Handler): void {
    if (path.endsWith('*')) {
      this.prefixes.push({ prefix: path.slice(0, -1), method, handler });
      this.prefixes.sort((a, b) => b.prefix.length - a.prefix.length);
      return;
    }
    let byMethod = this.exact.get(path);
    if (!byMethod) this.exact.set(path, (byMethod = new Map()));
    byMethod.set(method, handler);
  }

  onRequest(hook: RequestHook): void {
    this.requestHooks.push(hook);
  }

  onResponse(hook: ResponseHook): void {
    this.responseHooks.push(hook);
  }

  setNotFoundHandler(handler: Handler): void {
    this.notFoundHandler = handler;
  }

  setErrorHandler(handler: ErrorHandler): void {
    this.errorHandler = handler;
  }

  notFound(request: HttpRequest, reply: HttpReply): void {
    this.run(this.notFoundHandler, request, reply);
  }

  /** Runs the response hooks, once per request. */
  answered(request: HttpRequest, reply: HttpReply): void {
    if (reply.hooked) return;
    reply.hooked = true;
    if (this.responseHooks.length > 0) reply.answeredAt = performance.now();
    for (const hook of this.responseHooks) hook(request, reply);
  }

  /** After the handler: an answer written to the raw response (not through send) gets its hooks at `finish`. */
  private settled(request: HttpRequest, reply: HttpReply): void {
    if (reply.hooked || this.responseHooks.length === 0) return;
    if (reply.raw.writableFinished) this.answered(request, reply);
    else reply.raw.once('finish', () => this.answered(request, reply));
  }

  /** The Node request listener. */
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    // The client's id is echoed, so that its logs and ours name the same request; one too long to log is replaced.
    const own = req.headers['x-request-id'];
    const request = typeof own === 'string' && own !== '' && own.length <= MAX_REQUEST_ID ? new HttpRequest(req, own) : new HttpRequest(req, randomUUID(), true);
    const reply = new HttpReply(res, request, this, performance.now());
    try {
      for (const hook of this.requestHooks) {
        hook(request, reply);
        if (reply.sent) return this.settled(request, reply);
      }
    } catch (e) {
      this.errorHandler(e, request, reply);
      return this.settled(request, reply);
    }
    this.run(this.match(request, request.method, request.path) ?? this.notFoundHandler, request, reply);
  };

  private match(request: HttpRequest, method: string, path: string): Handler | undefined {
    // A path that does not decode (`/api/rest/%zz`) names no resource.
    if (path.includes('%') && !decodes(path)) return undefined;
    const byMethod = this.exact.get(path);
    const h = byMethod?.get(method) ?? byMethod?.get('*');
    if (h) {
      request.route = path;
      return h;
    }
    for (const p of this.prefixes) {
      if (path.startsWith(p.prefix) && (p.method === '*' || p.method === method)) {
        request.route = `${p.prefix}*`;
        return p.handler;
      }
    }
    return undefined;
  }

  private run(handler: Handler, request: HttpRequest, reply: HttpReply): void {
    try {
      const out = handler(request, reply);
      if (out) {
        out.then(() => this.settled(request, reply), (e: unknown) => {
          this.errorHandler(e, request, reply);
          this.settled(request, reply);
        });
        return;
      }
    } catch (e) {
      this.errorHandler(e, request, reply);
    }
    this.settled(request, reply);
  }
}
