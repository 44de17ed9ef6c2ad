import type { Json } from '../../../metadata/json.js';
import type { Action } from '../../../metadata/types.js';
import type { CancelSignal } from '../../../db/cancel.js';
import { callHttp, loggedHeaders, resolveTarget, type Env, type NameValue } from '../../outbound/index.js';
import { MAX_JSON_NESTING, nestingDepth } from '../../json-depth.js';
import { ActionHandlerError, gqlError } from '../errors.js';

/**
 * One synchronous action call (engine-api.md §5.2.1, §5.2.2): the request body, the outbound call through the shared
 * caller, and the mapping of the handler's answer to a value or the operation's error. Shaping by the selection is
 * actions/output.ts. Secrets (resolved URL, header values) appear only in `internal`, which only admin sees.
 */

/** A handler's answer is read up to this size; a larger one fails as a network failure (decision: 10 MiB). */
export const ACTION_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/** Client headers never forwarded (engine-api.md §5.1 rule 1); compared lower-cased. */
const NOT_FORWARDED = new Set([
  'host', 'content-length', 'content-type', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade',
  'te', 'trailer', 'proxy-authorization', 'accept-encoding', 'user-agent', 'origin', 'referer', 'x-engine-admin-secret',
  'x-hasura-admin-secret', 'x-hasura-access-key',
]);

/** What a call needs from the GraphQL request. */
export interface ActionRequest {
  env: Env;
  /** The document text as received (`request_query`). */
  query: string;
  /** Node's rawHeaders of the client request: names as sent, in order. */
  rawHeaders: string[];
  sessionVariables: Record<string, string>;
  /** Filled with the handler's `Set-Cookie` values, which the response passes on. */
  setCookies: string[];
  /** Cancels the call (a stopping engine's asynchronous calls). */
  signal?: CancelSignal;
}

export function forwardedHeaders(raw: string[]): NameValue[] {
  const out: NameValue[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    if (!NOT_FORWARDED.has(name.toLowerCase())) out.push({ name, value: raw[i + 1] as string });
  }
  return out;
}

/** Session variables serialised with keys in code-point order (engine-api.md §2.4). */
function sortedSession(s: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.keys(s).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map((k) => [k, s[k] as string]));
}

/** The §5.2.1 body, keys in order; `inputText` is the `input` object's JSON text (numbers keep their digits). */
export function actionBody(action: Action, inputText: string, req: Pick<ActionRequest, 'query' | 'sessionVariables'>): string {
  return `{"action":${JSON.stringify({ name: action.name })},"input":${inputText},` +
    `"session_variables":${JSON.stringify(sortedSession(req.sessionVariables))},"request_query":${JSON.stringify(req.query)}}`;
}

const unexpected = (message: string, internal?: Json): ReturnType<typeof gqlError> => gqlError('unexpected', '$', message, internal);

/**
 * An answer nested deeper than a request body may be is not parsed: the engine walks answers recursively (checking,
 * shaping, serialising), and ten thousand levels overflow the stack (issue 28).
 */
function parseJson(text: string): { ok: true; value: Json } | { ok: false; deep?: true } {
  if (nestingDepth(text) > MAX_JSON_NESTING) return { ok: false, deep: true };
  try {
    return { ok: true, value: JSON.parse(text) as Json };
  } catch {
    return { ok: false };
  }
}

const isObject = (v: unknown): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Calls the handler; returns its 2xx JSON answer, or throws the operation's error (engine-api.md §5.2.2). */
export async function callAction(action: Action, inputText: string, req: ActionRequest): Promise<Json> {
  const d = action.definition;
  const forwarded = d.forward_client_headers ? forwardedHeaders(req.rawHeaders) : [];
  const target = resolveTarget({ url: d.handler, headers: d.headers, forwarded }, req.env);
  if (!target.ok) throw unexpected(target.message);
  const body = actionBody(action, inputText, req);
  const request: Json = { url: target.url, body: JSON.parse(body) as Json, headers: loggedHeaders(target.headers) };
  const res = await callHttp({
    url: target.url, headers: target.headers, body, timeoutSec: d.timeout, maxBodyBytes: ACTION_MAX_RESPONSE_BYTES, overflow: 'fail', signal: req.signal, purpose: 'action', name: action.name,
  });
  if (res.kind === 'error') throw unexpected('http exception when calling webhook', { error: res.message, request });
  const parsed = parseJson(res.body);
  const response = (): Json => ({
    status: res.status, body: parsed.ok ? parsed.value : res.body, headers: res.headers.map((h) => ({ name: h.name, value: h.value })),
  });
  if (res.status >= 200 && res.status < 300) {
    if (!parsed.ok) {
      throw unexpected('not a valid json response from webhook', {
        ...(parsed.deep ? { error: `the response is nested more than ${MAX_JSON_NESTING} levels deep` } : {}), webhook_response: res.body,
      });
    }
    for (const h of res.headers) if (h.name.toLowerCase() === 'set-cookie') req.setCookies.push(h.value);
    return parsed.value;
  }
  if (res.status >= 400 && res.status < 500) {
    const b = parsed.ok ? parsed.value : null;
    if (isObject(b) && typeof b['message'] === 'string') {
      const ext = b['extensions'];
      if (isObject(ext)) throw new ActionHandlerError(b['message'], ext);
      throw gqlError(typeof b['code'] === 'string' ? b['code'] : 'unexpected', '$', b['message']);
    }
    throw unexpected('internal error', { error: `expecting a JSON object with a string "message" in a ${res.status} response`, request, response: response() });
  }
  throw unexpected('internal error', { error: `expecting 2xx or 4xx status code, but found ${res.status}`, request, response: response() });
}
