import type { Agent, Dispatcher } from 'undici';
import type { NameValue } from './request.js';
import type { CancelSignal } from '../../db/cancel.js';
import { probes, type TraceProbe } from '../../probes.js';

/**
 * The one HTTP call of engine-api.md §5.1: POST of a JSON body (or a GET, for the auth hook and JWKS), redirects not
 * followed (a dispatch never follows them), certificates verified, one timeout over the whole exchange (from the call,
 * connecting included, to the end of the body), and a bound on the response body read. Nothing here logs: URLs and
 * headers may carry secrets.
 */

export interface CallOptions {
  url: string;
  headers: NameValue[];
  /** POST (the default) sends `body`; GET sends none (the auth hook, a JWKS). */
  method?: 'GET' | 'POST';
  body?: string;
  timeoutSec: number;
  /** At most this many bytes of the response body are read. */
  maxBodyBytes: number;
  /** `truncate`: keep the first maxBodyBytes and close the connection; `fail`: the call fails. */
  overflow: 'truncate' | 'fail';
  /** Cancels the call (a stopping engine); it then fails with the signal's reason. */
  signal?: CancelSignal;
  /** What the call is for, in the `webhook-log` line (issue 31.2), and the object's name. */
  purpose?: CallPurpose;
  name?: string;
}

export type CallPurpose = 'action' | 'trigger' | 'auth-hook' | 'jwks' | 'remote-schema';

/** One finished call as the `webhook-log` line shows it: the URL without credentials, query or fragment. */
export interface CallRecord {
  purpose: CallPurpose | 'webhook';
  name?: string;
  method: 'GET' | 'POST';
  url: string;
  status?: number;
  duration_ms: number;
  error?: string;
}

/** Where finished calls are reported; one per process (the serving engine's log), none by default. */
const observers = new Set<(r: CallRecord) => void>();
/** The observers as one function, or undefined when there are none: a call then records nothing. */
let observer: ((r: CallRecord) => void) | undefined;

/** Reports each finished call to `fn` (the log, the metrics) until the returned function is called. */
export function observeCalls(fn: (r: CallRecord) => void): () => void {
  observers.add(fn);
  observer = (r) => {
    for (const o of observers) o(r);
  };
  return () => {
    observers.delete(fn);
    if (observers.size === 0) observer = undefined;
  };
}

/** Origin and path only: user info and query strings often carry keys. */
function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '(not a URL)';
  }
}

function record(opts: CallOptions, res: CallResult, ms: number): CallRecord {
  return {
    purpose: opts.purpose ?? 'webhook',
    ...(opts.name !== undefined ? { name: opts.name } : {}),
    method: opts.method ?? 'POST',
    url: shownUrl(opts.url),
    ...(res.kind === 'response' ? { status: res.status } : { error: res.message }),
    duration_ms: Math.round(ms * 1000) / 1000,
  };
}

export type CallResult =
  | { kind: 'response'; status: number; headers: NameValue[]; body: string; truncated: boolean }
  | { kind: 'error'; message: string; timedOut: boolean };

/** undici's agent, loaded at the first outbound call (an engine that never calls out does not import it at start-up). */
let loading: Promise<Agent> | null = null;
const loadAgent = (): Promise<Agent> => {
  // The call's own timer bounds the whole exchange; undici's separate header/body timeouts would only cut it shorter.
  loading ??= import('undici').then(({ Agent }) => new Agent({ keepAliveTimeout: 10_000, headersTimeout: 0, bodyTimeout: 0 }));
  return loading;
};

/** Readable descriptions of the usual network failures; other errors keep their own message. */
const NETWORK: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  UND_ERR_SOCKET: 'connection reset',
  EPIPE: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'host unreachable',
};

function describe(e: unknown): string {
  let err = e as { code?: unknown; message?: unknown; cause?: unknown } | undefined;
  for (let i = 0; err && i < 3; i++) {
    if (typeof err.code === 'string' && NETWORK[err.code]) return NETWORK[err.code] as string;
    if (!err.cause) break;
    err = err.cause as typeof err;
  }
  const m = e instanceof Error ? e.message : String(e);
  return m || 'network error';
}

function flatten(headers: Record<string, string | string[] | undefined>): NameValue[] {
  const out: NameValue[] = [];
  for (const [name, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    for (const value of Array.isArray(v) ? v : [v]) out.push({ name, value });
  }
  return out;
}

/**
 * The calls in flight under each cancelling signal: one listener per signal rather than one per call (a processor
 * keeps up to 100 calls on its one stop signal, and an EventTarget checks each new listener against all the others).
 */
const cancellable = new WeakMap<CancelSignal, Set<Call>>();

function watch(signal: CancelSignal, call: Call): void {
  let calls = cancellable.get(signal);
  if (!calls) {
    const set = new Set<Call>();
    calls = set;
    cancellable.set(signal, set);
    signal.addEventListener('abort', () => {
      for (const c of set) c.fail(describe(signal.reason), false);
      set.clear();
    }, { once: true });
  }
  calls.add(call);
}

/**
 * One call as an undici dispatch handler: no response stream, no per-call AbortController (half the CPU of
 * `request()` with an async-iterated body, measured at 100 concurrent calls). Settles exactly once; a call that
 * settles before undici starts it (a timeout while connecting, a stop) is aborted as soon as it starts.
 */
class Call implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | null = null;
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private status = 0;
  private headers: NameValue[] = [];
  private settled = false;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly opts: CallOptions, private readonly agent: Agent, private readonly resolve: (r: CallResult) => void) {
    this.timer = setTimeout(() => this.fail(`request timed out after ${opts.timeoutSec} seconds`, true), opts.timeoutSec * 1000);
  }

  start(): void {
    const { signal } = this.opts;
    if (signal?.aborted) return this.fail(describe(signal.reason), false);
    if (signal) watch(signal, this);
    try {
      const url = new URL(this.opts.url);
      const method = this.opts.method ?? 'POST';
      this.agent.dispatch({
        origin: url.origin, path: `${url.pathname}${url.search}`, method,
        headers: Object.fromEntries(this.opts.headers.map((h) => [h.name, h.value])),
        body: method === 'GET' ? null : (this.opts.body ?? null),
      }, this);
    } catch (e) {
      this.fail(describe(e), false);
    }
  }

  fail(message: string, timedOut: boolean): void {
    this.settle({ kind: 'error', message, timedOut });
  }

  private settle(r: CallResult): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    if (this.opts.signal) cancellable.get(this.opts.signal)?.delete(this);
    // Whatever is left of the exchange is dropped, and its connection closed with it.
    if (r.kind === 'error' || r.truncated) this.controller?.abort(new Error('the call is over'));
    this.resolve(r);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.settled) controller.abort(new Error('the call is over'));
  }

  onResponseStart(_c: Dispatcher.DispatchController, status: number, headers: Record<string, string | string[] | undefined>): void {
    // 1xx answers are informational: the final one follows.
    if (status < 200) return;
    this.status = status;
    this.headers = flatten(headers);
  }

  onResponseData(_c: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    const max = this.opts.maxBodyBytes;
    if (this.size + chunk.length > max) {
      if (this.opts.overflow === 'fail') return this.fail(`the response body exceeds ${max} bytes`, false);
      // The rest of the body is never read.
      this.chunks.push(chunk.subarray(0, max - this.size));
      return this.respond(true);
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  onResponseEnd(): void {
    this.respond(false);
  }

  onResponseError(_c: Dispatcher.DispatchController, err: Error): void {
    this.fail(describe(err), false);
  }

  private respond(truncated: boolean): void {
    const body = this.chunks.length === 1 ? (this.chunks[0] as Buffer).toString('utf8') : Buffer.concat(this.chunks).toString('utf8');
    this.settle({ kind: 'response', status: this.status, headers: this.headers, body, truncated });
  }
}

/**
 * The call as a client span (issue 31.4), its context sent as `traceparent` (and `tracestate`), replacing any the
 * headers had (a client's, forwarded to an action handler): the handler's spans join the engine's trace.
 */
function traced(tracer: TraceProbe, opts: CallOptions): Promise<CallResult> {
  const method = opts.method ?? 'POST';
  const purpose = opts.purpose ?? 'webhook';
  let url: URL | undefined;
  try {
    url = new URL(opts.url);
  } catch {
    // Not a URL: the call fails as it would untraced.
  }
  return tracer.span(opts.name !== undefined ? `${purpose} ${opts.name}` : purpose, 'client', {
    'http.request.method': method, 'url.full': shownUrl(opts.url), 'server.address': url?.hostname, 'engine.call.purpose': purpose, 'engine.call.name': opts.name,
  }, async (span) => {
    const context = tracer.outbound();
    const headers = context
      ? [...opts.headers.filter((h) => !/^trace(parent|state)$/i.test(h.name)), { name: 'traceparent', value: context.traceparent },
        ...(context.tracestate ? [{ name: 'tracestate', value: context.tracestate }] : [])]
      : opts.headers;
    const res = await send({ ...opts, headers });
    if (res.kind === 'response') {
      span.set({ 'http.response.status_code': res.status });
      if (res.status >= 500) span.fail(`HTTP ${res.status}`);
    } else span.fail(res.message);
    return res;
  });
}

export function callHttp(opts: CallOptions): Promise<CallResult> {
  const tracer = probes.tracer;
  return tracer ? traced(tracer, opts) : send(opts);
}

async function send(opts: CallOptions): Promise<CallResult> {
  // Loaded before the call's timer starts: the first call's import is not part of the exchange its timeout bounds.
  const agent = await loadAgent();
  if (!observer) return new Promise((resolve) => new Call(opts, agent, resolve).start());
  const started = performance.now();
  const res = await new Promise<CallResult>((resolve) => new Call(opts, agent, resolve).start());
  observer?.(record(opts, res, performance.now() - started));
  return res;
}
