import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError } from '../../errors.js';
import { callHttp, type NameValue } from '../outbound/index.js';
import type { Caller } from './admin-secret.js';
import { freshForMs } from './cache-control.js';
import { collectSession, DEFAULT_SESSION_PREFIX, prefixedName, type SessionPrefix } from './session-names.js';

/**
 * Auth hook mode (issue 17): the hook receives the client's headers (GET) or them and the GraphQL request (POST) and
 * answers the session. Every failure is a 401 naming what the hook did; nothing of its answer is logged. Sessions are
 * cached for as long as the hook's Cache-Control/Expires allow, keyed by what was sent to it.
 */

export interface HookConfig {
  url: string;
  mode: 'GET' | 'POST';
  timeoutSec: number;
  /** The session's names are kept under this prefix, whichever the hook answered with (issue 29). */
  prefix?: SessionPrefix;
}

/** The GraphQL request forwarded in POST mode (null on /v1/query, or when the body is not a GraphQL request). */
export interface HookRequest {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1) and those that describe the client's own message, not the caller. */
const NOT_FORWARDED = new Set([
  'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer',
  'transfer-encoding', 'upgrade', 'host', 'content-length', 'content-type', 'accept-encoding', 'expect',
]);
const MAX_BODY_BYTES = 1024 * 1024;
const MAX_ENTRIES = 10_000;
/**
 * Estimated bytes of cached sessions at most (issue 28): a hook that echoes request headers into session variables
 * would otherwise hold up to 10,000 × 128 KB.
 */
const MAX_CACHED_BYTES = 64 * 1024 * 1024;
/** A session's estimated heap bytes: two per character of its keys and values, plus the objects. */
const sessionBytes = (c: Caller): number => 200 + Object.entries(c.sessionVariables).reduce((n, [k, v]) => n + 2 * (k.length + v.length) + 100, 0);

const refused = (message: string): ApiError => new ApiError(401, 'access-denied', '$', message);

function forwarded(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, v] of Object.entries(headers)) {
    if (v === undefined || NOT_FORWARDED.has(name)) continue;
    out[name] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

function sessionOf(body: string, prefix: SessionPrefix): Caller {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw refused('the authentication hook answered 200 without a JSON object of session variables');
  }
  const entries = Object.entries(parsed as Record<string, unknown>)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]);
  const sessionVariables = collectSession(entries, prefix);
  const role = sessionVariables[prefixedName('x-engine-role', prefix)];
  if (role === undefined || role === '') throw refused('the authentication hook answered 200 without "x-engine-role"');
  return { role, sessionVariables };
}

export class AuthHook {
  private readonly cache = new Map<string, { caller: Caller; until: number; bytes: number }>();
  private cachedBytes = 0;
  /** How many calls reached the hook (the tests check the cache). */
  calls = 0;

  constructor(readonly config: HookConfig, private readonly now: () => number = Date.now) {}

  async caller(headers: IncomingHttpHeaders, request: HookRequest | null): Promise<Caller> {
    const sent = forwarded(headers);
    const body = this.config.mode === 'POST' ? JSON.stringify({ headers: sent, request }) : undefined;
    const key = createHash('sha256').update(body ?? JSON.stringify(Object.entries(sent).sort())).digest('base64');
    const hit = this.cache.get(key);
    if (hit && hit.until > this.now()) return hit.caller;
    if (hit) this.drop(key);
    this.calls++;
    const list: NameValue[] = Object.entries(sent).map(([name, value]) => ({ name, value }));
    if (body !== undefined) list.push({ name: 'content-type', value: 'application/json' });
    const res = await callHttp({
      url: this.config.url, method: this.config.mode, headers: list, ...(body !== undefined ? { body } : {}),
      timeoutSec: this.config.timeoutSec, maxBodyBytes: MAX_BODY_BYTES, overflow: 'fail', purpose: 'auth-hook',
    });
    if (res.kind === 'error') throw refused(`the authentication hook did not answer: ${res.message}`);
    if (res.status === 401) throw refused('the authentication hook refused the request (status 401)');
    if (res.status !== 200) throw refused(`the authentication hook answered with status ${res.status}`);
    const caller = sessionOf(res.body, this.config.prefix ?? DEFAULT_SESSION_PREFIX);
    const ttl = freshForMs(Object.fromEntries(res.headers.map((h) => [h.name.toLowerCase(), h.value])), this.now(), 0);
    const bytes = sessionBytes(caller);
    if (ttl > 0 && bytes <= MAX_CACHED_BYTES) {
      this.drop(key);
      while (this.cache.size >= MAX_ENTRIES || this.cachedBytes + bytes > MAX_CACHED_BYTES) this.drop(this.cache.keys().next().value as string);
      this.cache.set(key, { caller, until: this.now() + ttl, bytes });
      this.cachedBytes += bytes;
    }
    return caller;
  }

  private drop(key: string): void {
    const e = this.cache.get(key);
    if (!e) return;
    this.cache.delete(key);
    this.cachedBytes -= e.bytes;
  }

  /** Estimated bytes of the cached sessions. */
  get bytes(): number {
    return this.cachedBytes;
  }
}
