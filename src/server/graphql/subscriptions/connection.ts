import type { IncomingHttpHeaders } from 'node:http';
import { ApiError } from '../../../errors.js';
import type { Authenticator, Caller } from '../../auth/index.js';
import { sessionKey } from './cohort.js';
import { prepareSocketRequest, type SocketRequest } from './document.js';
import type { LiveQueries, Runner } from './live.js';
import { CLOSE, completeMessage, errorMessage, LEGACY, MODERN, parseMessage, resultMessage, type ClientMessage, type Protocol } from './protocol.js';

/** The part of a WebSocket the connection uses (ws's WebSocket). */
export interface Socket {
  send(data: string): void;
  close(code: number, reason: string): void;
  /** Bytes sent but not yet handed to the operating system: what a slow reader leaves waiting. */
  readonly bufferedAmount: number;
  terminate(): void;
  on(event: 'message', cb: (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => void): unknown;
  on(event: 'close', cb: () => void): unknown;
}

export interface ConnectionContext {
  auth: Authenticator;
  runner: Runner;
  live: LiveQueries;
  onError(e: unknown): void;
  /** Legacy protocol: how often `ka` is sent (ms); 0: never. */
  keepAliveMs: number;
  /** How long a client may wait before its connection_init (ms); 0: no limit. */
  initTimeoutMs: number;
  limits: SocketLimits;
  /** Counts what the limits refused (metrics). */
  refused(reason: 'subscriptions_per_connection' | 'subscriptions_per_server' | 'slow_consumer'): void;
}

/** Limits of one server's sockets (issue 32.7). */
export interface SocketLimits {
  /** Live queries and streams one connection may run at once. */
  perConnection: number;
  /** Live queries and streams of the whole server. */
  perServer: number;
  /** Bytes that may wait to be sent to one socket: past them the client is too slow, and is closed. */
  sendBuffer: number;
}

/** A client whose socket stays over the bound after the close frame is dropped this much later (ms). */
const SLOW_CLOSE_GRACE_MS = 2000;

/** The extension message that refreshes a connection's credentials without reconnecting (docs/decisions.md). */
export const REFRESH = 'connection_refresh';

/** Longest wait setTimeout takes (about 24.8 days); a later expiry is checked again then. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const ADMIN_HEADER = /^x-(engine|hasura)-admin-secret$|^x-hasura-access-key$/;

/**
 * One WebSocket of `/v1/graphql`: authenticated once, at connection_init, with the headers of its payload over those
 * of the upgrade request, exactly as an HTTP request's headers are (every mode of auth/). Each operation is a query
 * or mutation (one result, then complete) or a live query (results until the client stops it).
 */
export class Connection {
  private caller: Caller | null = null;
  private initialising = false;
  private closed = false;
  private readonly ops = new Map<string, () => void>();
  private readonly timers: NodeJS.Timeout[] = [];
  private expiry: NodeJS.Timeout | undefined;
  /** Live queries and streams running (the per-connection limit counts them). */
  private subscriptions = 0;
  private inbox: Promise<void> = Promise.resolve();

  constructor(
    private readonly ws: Socket, private readonly protocol: Protocol, private readonly upgradeHeaders: IncomingHttpHeaders,
    private readonly ctx: ConnectionContext,
  ) {
    ws.on('message', (data, isBinary) => {
      if (isBinary) return this.badMessage('binary messages are not supported');
      const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8');
      // In order: a start sent right after connection_init waits for its authentication. Only authentication and a
      // live query's registration are awaited here; operations run on their own.
      this.inbox = this.inbox.then(() => this.onMessage(text)).catch((e: unknown) => ctx.onError(e));
    });
    ws.on('close', () => this.end());
    // 0: no limit (`--websocket-connection-init-timeout 0`).
    if (ctx.initTimeoutMs > 0) {
      this.timer(ctx.initTimeoutMs, () => {
        if (!this.caller && !this.initialising) this.close(CLOSE.initTimeout, 'Connection initialisation timeout');
      });
    }
  }

  /** Ends every operation (the server stops, or the client left). */
  end(): void {
    this.closed = true;
    for (const stop of this.ops.values()) stop();
    this.ops.clear();
    for (const t of this.timers) clearTimeout(t);
    clearTimeout(this.expiry);
  }

  close(code: number, reason: string): void {
    if (!this.closed) this.ws.close(code, reason);
    this.end();
  }

  private send(text: string): void {
    if (this.closed) return;
    this.ws.send(text);
    // A client that does not read must not make the server hold its results without bound: it is dropped.
    if (this.ws.bufferedAmount > this.ctx.limits.sendBuffer) {
      this.ctx.refused('slow_consumer');
      this.close(CLOSE.slowConsumer, `Slow consumer: more than ${this.ctx.limits.sendBuffer} bytes waiting`);
      const t = setTimeout(() => this.ws.terminate(), SLOW_CLOSE_GRACE_MS);
      t.unref();
    }
  }

  private timer(ms: number, fn: () => void): void {
    const t = setTimeout(fn, ms);
    t.unref();
    this.timers.push(t);
  }

  private badMessage(message: string): void {
    if (this.protocol === MODERN) this.close(CLOSE.badRequest, message.slice(0, 120));
    else this.send(JSON.stringify({ type: 'connection_error', payload: { message } }));
  }

  private async onMessage(text: string): Promise<void> {
    const m = parseMessage(text);
    if (!m) return this.badMessage('Invalid message received');
    switch (m.type) {
      case 'connection_init':
        return this.init(m);
      case REFRESH:
        return this.refresh(m);
      case 'ping':
        if (this.protocol === MODERN) this.send(JSON.stringify(m.payload === undefined ? { type: 'pong' } : { type: 'pong', payload: m.payload }));
        return;
      case 'pong':
        return;
      case 'subscribe':
      case 'start':
        if ((m.type === 'subscribe') !== (this.protocol === MODERN)) break;
        return this.start(m);
      case 'complete':
      case 'stop':
        if ((m.type === 'complete') !== (this.protocol === MODERN)) break;
        if (m.id === undefined) return this.badMessage(`"${m.type}" without an id`);
        this.stop(m.id);
        return;
      case 'connection_terminate':
        if (this.protocol === LEGACY) return this.close(1000, 'terminated');
        break;
    }
    this.badMessage(`Invalid message type "${m.type}"`);
  }

  private async init(m: ClientMessage): Promise<void> {
    if (this.caller || this.initialising) {
      if (this.protocol === MODERN) return this.close(CLOSE.tooManyInits, 'Too many initialisation requests');
      return;
    }
    this.initialising = true;
    const headers = this.headersOf(m.payload);
    try {
      this.caller = await this.ctx.auth.resolveCaller(headers, null);
    } catch (e) {
      const message = e instanceof ApiError ? e.message : 'authentication failed';
      if (!(e instanceof ApiError)) this.ctx.onError(e);
      return this.refuse(message);
    } finally {
      this.initialising = false;
    }
    this.send(JSON.stringify({ type: 'connection_ack' }));
    // 0: no keep-alive (`--websocket-keepalive 0`).
    if (this.protocol === LEGACY && this.ctx.keepAliveMs > 0) {
      this.send('{"type":"ka"}');
      const ka = setInterval(() => this.send('{"type":"ka"}'), this.ctx.keepAliveMs);
      ka.unref();
      this.timers.push(ka);
    }
    this.expireAt(tokenExpiry(headers));
  }

  /**
   * `connection_refresh` (an extension of both protocols, docs/decisions.md): new credentials, authenticated as
   * connection_init's; they must name the same identity (role and session variables), whose operations go on. The
   * expiry then follows the new token. Refused credentials close the socket as at connection_init (4403).
   */
  private async refresh(m: ClientMessage): Promise<void> {
    if (!this.caller) {
      if (this.protocol === MODERN) return this.close(CLOSE.unauthorized, 'Unauthorized');
      return this.send(JSON.stringify({ type: 'connection_error', payload: { message: `"${REFRESH}" before the connection is initialised` } }));
    }
    const headers = this.headersOf(m.payload);
    let caller: Caller;
    try {
      caller = await this.ctx.auth.resolveCaller(headers, null);
    } catch (e) {
      const message = e instanceof ApiError ? e.message : 'authentication failed';
      if (!(e instanceof ApiError)) this.ctx.onError(e);
      return this.refuse(message);
    }
    if (sessionKey(caller) !== sessionKey(this.caller)) return this.refuse('the refreshed credentials name another role or other session variables');
    this.caller = caller;
    this.expireAt(tokenExpiry(headers));
    this.send(JSON.stringify({ type: `${REFRESH}_ack` }));
  }

  private refuse(message: string): void {
    if (this.protocol === LEGACY) this.send(JSON.stringify({ type: 'connection_error', payload: { message } }));
    this.close(CLOSE.forbidden, `Forbidden: ${message}`.slice(0, 120));
  }

  /** A JWT's expiry closes the socket with 4401: its operations would otherwise run on a stale identity. */
  private expireAt(expSeconds: number | null): void {
    clearTimeout(this.expiry);
    this.expiry = undefined;
    if (expSeconds === null || this.closed) return;
    const ms = expSeconds * 1000 - Date.now();
    if (ms <= 0) return this.close(CLOSE.unauthorized, 'Unauthorized: the JWT expired');
    this.expiry = setTimeout(() => this.expireAt(expSeconds), Math.min(ms, MAX_TIMER_MS));
    this.expiry.unref();
  }

  /** The payload's `headers` (or, as the incumbent also accepts, the payload's own string fields) over the upgrade's. */
  private headersOf(payload: unknown): IncomingHttpHeaders {
    const out: IncomingHttpHeaders = { ...this.upgradeHeaders };
    // The upgrade's own sub-protocol and key headers are not the client's credentials.
    for (const k of Object.keys(out)) if (k.startsWith('sec-websocket-')) delete out[k];
    if (typeof payload !== 'object' || payload === null) return out;
    const p = payload as Record<string, unknown>;
    const given = typeof p['headers'] === 'object' && p['headers'] !== null ? (p['headers'] as Record<string, unknown>) : p;
    for (const [k, v] of Object.entries(given)) if (typeof v === 'string') out[k.toLowerCase()] = v;
    return out;
  }

  private async start(m: ClientMessage): Promise<void> {
    const id = m.id;
    if (id === undefined) return this.badMessage(`"${m.type}" without an id`);
    if (!this.caller) {
      if (this.protocol === MODERN) return this.close(CLOSE.unauthorized, 'Unauthorized');
      this.send(errorMessage(LEGACY, id, [{ message: 'start received before the connection is initialised', extensions: { path: '$', code: 'start-failed' } }]));
      return;
    }
    if (this.ops.has(id)) {
      if (this.protocol === MODERN) return this.close(CLOSE.duplicate, `Subscriber for ${id} already exists`);
      this.stop(id);
    }
    const req = requestOf(m.payload);
    if (!req) {
      this.send(errorMessage(this.protocol, id, [{ message: 'the payload must be an object with a string "query"', extensions: { path: '$.payload', code: 'parse-failed' } }]));
      return;
    }
    const caller = this.caller;
    const prepared = prepareSocketRequest(req);
    if (prepared.kind === 'once') {
      let stopped = false;
      const stopOnce = (): void => { stopped = true; };
      this.ops.set(id, stopOnce);
      void this.ctx.runner.handle({ text: prepared.text }, caller, { rawHeaders: [], setCookies: [] }).then((body) => {
        if (stopped || this.ops.get(id) !== stopOnce) return;
        this.ops.delete(id);
        this.sendFirst(id, String(body));
        this.send(completeMessage(id));
      }, (e: unknown) => this.ctx.onError(e));
      return;
    }
    const limit = this.overLimit();
    if (limit) {
      this.send(errorMessage(this.protocol, id, [{ message: limit, extensions: { path: '$', code: 'subscription-limit-exceeded' } }]));
      return;
    }
    let first = true;
    let stop: (() => void) | null = null;
    let cancelled = false;
    this.subscriptions++;
    this.ops.set(id, () => {
      if (!cancelled) this.subscriptions--;
      cancelled = true;
      stop?.();
    });
    const unsubscribe = await this.ctx.live.subscribe(prepared, caller, (body) => {
      if (cancelled) return;
      if (first) {
        first = false;
        if (!this.sendFirst(id, body)) {
          // A request that fails before any result (validation, permissions) ends there, as a query would.
          this.ops.delete(id);
          if (!cancelled) this.subscriptions--;
          cancelled = true;
          queueMicrotask(() => stop?.());
        }
        return;
      }
      this.send(resultMessage(this.protocol, id, body));
    });
    stop = unsubscribe;
    if (cancelled) unsubscribe();
  }

  /** Why one more live query or stream may not start (the message), or null. */
  private overLimit(): string | null {
    const { perConnection, perServer } = this.ctx.limits;
    if (this.subscriptions >= perConnection) {
      this.ctx.refused('subscriptions_per_connection');
      return `too many subscriptions on this connection: the limit is ${perConnection}`;
    }
    if (this.ctx.live.subscribers >= perServer) {
      this.ctx.refused('subscriptions_per_server');
      return `too many subscriptions on this server: the limit is ${perServer}`;
    }
    return null;
  }

  /** Sends an operation's first answer: a result, or an error message when it has errors and no data (false). */
  private sendFirst(id: string, body: string): boolean {
    const parsed = JSON.parse(body) as { data?: unknown; errors?: unknown[] };
    if (parsed.data === undefined && Array.isArray(parsed.errors)) {
      this.send(errorMessage(this.protocol, id, parsed.errors));
      return false;
    }
    this.send(resultMessage(this.protocol, id, body));
    return true;
  }

  private stop(id: string): void {
    const stop = this.ops.get(id);
    this.ops.delete(id);
    stop?.();
  }
}

function requestOf(payload: unknown): SocketRequest | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const p = payload as Record<string, unknown>;
  if (typeof p['query'] !== 'string') return null;
  const variables = p['variables'];
  const operationName = p['operationName'];
  return {
    query: p['query'],
    variables: typeof variables === 'object' && variables !== null && !Array.isArray(variables) ? (variables as Record<string, unknown>) : null,
    operationName: typeof operationName === 'string' ? operationName : null,
  };
}

/**
 * The `exp` of the bearer token the connection authenticated with; null without one, or when the admin secret was
 * sent (then no token was read). The token was verified by resolveCaller: only its payload is read here.
 */
export function tokenExpiry(headers: IncomingHttpHeaders): number | null {
  if (Object.keys(headers).some((k) => ADMIN_HEADER.test(k))) return null;
  const m = /^Bearer[ \t]+([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.[A-Za-z0-9_-]*[ \t]*$/i.exec(String(headers.authorization ?? ''));
  if (!m) return null;
  try {
    const claims = JSON.parse(Buffer.from(m[2] as string, 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof claims.exp === 'number' ? claims.exp : null;
  } catch {
    return null;
  }
}
