import type { Agent } from 'undici';
import type { NameValue } from './request.js';

/**
 * The one HTTP call of engine-api.md §5.1: POST of a JSON body (or a GET, for the auth hook and JWKS), redirects not followed (undici's request never
 * follows them), certificates verified, one timeout over the whole exchange (connect to the end of the body),
 * and a bound on the response body read. Nothing here logs: URLs and headers may carry secrets.
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
  signal?: AbortSignal;
}

export type CallResult =
  | { kind: 'response'; status: number; headers: NameValue[]; body: string; truncated: boolean }
  | { kind: 'error'; message: string; timedOut: boolean };

/** undici, loaded at the first outbound call (an engine that never calls out does not import it at start-up). */
let client: Promise<{ agent: Agent; request: typeof import('undici').request }> | null = null;
const undici = (): Promise<{ agent: Agent; request: typeof import('undici').request }> => {
  // The call's own timer bounds the whole exchange; undici's separate header/body timeouts would only cut it shorter.
  client ??= import('undici').then(({ Agent, request }) => ({ agent: new Agent({ keepAliveTimeout: 10_000, headersTimeout: 0, bodyTimeout: 0 }), request }));
  return client;
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

export class BodyTooLarge extends Error {}

export async function callHttp(opts: CallOptions): Promise<CallResult> {
  // Loaded before the timer starts: the first call's import is not part of the exchange its timeout bounds.
  const { agent, request } = await undici();
  const controller = new AbortController();
  const timeoutMessage = `request timed out after ${opts.timeoutSec} seconds`;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(timeoutMessage));
  }, opts.timeoutSec * 1000);
  const cancel = () => controller.abort(opts.signal?.reason);
  if (opts.signal?.aborted) cancel();
  opts.signal?.addEventListener('abort', cancel, { once: true });
  try {
    const res = await request(opts.url, {
      method: opts.method ?? 'POST',
      headers: Object.fromEntries(opts.headers.map((h) => [h.name, h.value])),
      body: opts.method === 'GET' ? null : opts.body,
      signal: controller.signal,
      dispatcher: agent,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    for await (const chunk of res.body) {
      const buf = chunk as Buffer;
      if (size + buf.length > opts.maxBodyBytes) {
        if (opts.overflow === 'fail') throw new BodyTooLarge(`the response body exceeds ${opts.maxBodyBytes} bytes`);
        chunks.push(buf.subarray(0, opts.maxBodyBytes - size));
        truncated = true;
        // Closing the stream early also closes the connection: the rest of the body is never read.
        res.body.destroy();
        break;
      }
      chunks.push(buf);
      size += buf.length;
    }
    return { kind: 'response', status: res.statusCode, headers: flatten(res.headers), body: Buffer.concat(chunks).toString('utf8'), truncated };
  } catch (e) {
    if (timedOut) return { kind: 'error', message: timeoutMessage, timedOut: true };
    if (e instanceof BodyTooLarge) return { kind: 'error', message: e.message, timedOut: false };
    return { kind: 'error', message: describe(e), timedOut: false };
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', cancel);
  }
}
