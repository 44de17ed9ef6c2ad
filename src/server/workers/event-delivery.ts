import type { Json } from '../../metadata/json.js';
import type { EventTrigger, Header } from '../../metadata/types.js';
import { callHttp, loggedHeaders, resolveTarget, type Env, type NameValue } from '../outbound/index.js';
import type { AttemptResult, ClaimedEvent } from './event-store.js';

/** One delivery attempt of one event (engine-api.md §5.3): payload, call, and what the attempt decides. */

/** Response bodies are recorded up to this size; a webhook's answer is judged by its status alone. */
export const MAX_LOGGED_BODY = 64 * 1024;

/**
 * The §5.3.1 body as JSON text, keys in order. The stored payload's fields come as PostgreSQL wrote them (claimEvents),
 * so a row's data is never parsed and serialised again; a row written by hand with a payload that is not an object
 * gives null fields rather than a crash.
 */
export function eventBody(ev: ClaimedEvent, trigger: EventTrigger): string {
  const q = JSON.stringify;
  return `{"id":${q(ev.id)},"created_at":${q(ev.created_at)},"trigger":{"name":${q(ev.trigger_name)}},` +
    `"table":{"schema":${q(ev.schema_name)},"name":${q(ev.table_name)}},` +
    `"event":{"op":${ev.op},"data":${ev.data},"session_variables":${ev.session_variables}},` +
    `"delivery_info":{"max_retries":${q(trigger.retry_conf.num_retries)},"current_retry":${q(ev.tries)}}}`;
}

/** `Retry-After` as a positive integer number of seconds; anything else (dates, garbage, 0) is ignored. */
export function retryAfter(headers: { name: string; value: string }[]): number | null {
  const h = headers.find((x) => x.name.toLowerCase() === 'retry-after');
  if (!h || !/^\s*\d+\s*$/.test(h.value)) return null;
  const n = Number(h.value);
  // Bounded so that make_interval never overflows; a day is far beyond any sensible answer.
  return n > 0 ? Math.min(n, 2_147_483_647) : null;
}

/** PostgreSQL's jsonb cannot hold U+0000: a binary answer must not make its invocation log unwritable. */
const storable = (s: string): string => s.replaceAll('\u0000', '\ufffd');

/** One webhook call of any queue: what to send, and the retry rule that judges a failure (§5.3.2). */
export interface Delivery {
  id: string;
  trigger: string;
  url?: string;
  urlFromEnv?: string;
  headers: Header[];
  /** The JSON text to send. */
  body: string;
  timeoutSec: number;
  /** Attempts made before this one. */
  tries: number;
  numRetries: number;
  intervalSec: number;
}

/** A failed attempt: retried per the retry rule unless `after` (Retry-After) says when (§5.3.2). */
function failure(d: Delivery, status: number | null, request: string, response: Json, after: number | null): AttemptResult {
  const retryIn = after ?? (d.tries + 1 <= d.numRetries ? d.intervalSec : null);
  return { id: d.id, trigger: d.trigger, delivered: false, error: retryIn === null, retryIn, status, request, response };
}

/** Never throws: every failure, even an unforeseen one, is an attempt result (§5.3.2). */
export async function attempt(ev: ClaimedEvent, trigger: EventTrigger, env: Env, signal?: AbortSignal): Promise<AttemptResult> {
  const conf = trigger.retry_conf;
  return deliver({
    id: ev.id, trigger: ev.trigger_name, url: trigger.webhook, urlFromEnv: trigger.webhook_from_env, headers: trigger.headers,
    body: eventBody(ev, trigger), timeoutSec: conf.timeout_sec, tries: ev.tries, numRetries: conf.num_retries, intervalSec: conf.interval_sec,
  }, env, signal);
}

export async function deliver(d: Delivery, env: Env, signal?: AbortSignal): Promise<AttemptResult> {
  try {
    return await deliverOnce(d, env, signal);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return failure(d, null, '{"payload":null,"headers":[]}', { type: 'client_error', data: { message } }, null);
  }
}

/** The invocation log's request: the body as sent, and the headers. */
const requestJson = (body: string, headers: NameValue[]): string => `{"payload":${body},"headers":${JSON.stringify(loggedHeaders(headers))}}`;

async function deliverOnce(d: Delivery, env: Env, signal?: AbortSignal): Promise<AttemptResult> {
  const target = resolveTarget({ url: d.url, urlFromEnv: d.urlFromEnv, headers: d.headers }, env);
  if (!target.ok) {
    return failure(d, null, requestJson(d.body, []), { type: 'client_error', data: { message: target.message } }, null);
  }
  const request = requestJson(d.body, target.headers);
  const res = await callHttp({
    url: target.url, headers: target.headers, body: d.body, timeoutSec: d.timeoutSec,
    maxBodyBytes: MAX_LOGGED_BODY, overflow: 'truncate', signal, purpose: 'trigger', name: d.trigger,
  });
  if (res.kind === 'error') return failure(d, null, request, { type: 'client_error', data: { message: res.message } }, null);
  const response: Json = { type: 'webhook_response', data: { status: res.status, body: storable(res.body), headers: res.headers.map((h) => ({ name: h.name, value: h.value })) } };
  if (res.status >= 200 && res.status < 300) {
    return { id: d.id, trigger: d.trigger, delivered: true, error: false, retryIn: null, status: res.status, request, response };
  }
  return failure(d, res.status, request, response, retryAfter(res.headers));
}
