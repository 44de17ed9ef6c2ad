import type { CancelSignal } from '../../db/cancel.js';
import type { Json, JsonObject } from '../../metadata/json.js';
import type { Header } from '../../metadata/types.js';
import { callHttp, resolveTarget, type Env, type NameValue } from '../outbound/index.js';
import { MAX_JSON_NESTING, nestingDepth } from '../json-depth.js';
import { parseKeepingDigits, withoutDigits } from './literals.js';

/** One POST of a GraphQL request to a remote schema, through the shared outbound caller (engine-api.md §5.1). */

/** The incumbent's default `timeout_seconds` for a remote schema. */
export const DEFAULT_REMOTE_TIMEOUT_SECONDS = 60;
/** A remote's answer is read up to this size (as an action handler's). */
export const REMOTE_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

export type RemoteAnswer = { ok: true; body: JsonObject } | { ok: false; message: string; internal?: Json };

export async function callRemote(
  name: string, def: JsonObject, body: string, env: Env, extra: NameValue[] = [], signal?: CancelSignal,
): Promise<RemoteAnswer> {
  const target = resolveTarget({
    ...(typeof def['url'] === 'string' ? { url: def['url'] } : { urlFromEnv: String(def['url_from_env']) }),
    headers: (def['headers'] as Header[] | undefined) ?? [],
    forwarded: extra,
  }, env);
  if (!target.ok) return { ok: false, message: target.message };
  const timeoutSec = typeof def['timeout_seconds'] === 'number' ? def['timeout_seconds'] : DEFAULT_REMOTE_TIMEOUT_SECONDS;
  const res = await callHttp({
    url: target.url, headers: target.headers, body, timeoutSec, maxBodyBytes: REMOTE_MAX_RESPONSE_BYTES, overflow: 'fail',
    ...(signal ? { signal } : {}), purpose: 'remote-schema', name,
  });
  if (res.kind === 'error') return { ok: false, message: `http exception when calling remote schema "${name}": ${res.message}` };
  if (nestingDepth(res.body) > MAX_JSON_NESTING) {
    return { ok: false, message: `remote schema "${name}" answered JSON nested more than ${MAX_JSON_NESTING} levels deep` };
  }
  let parsed: Json;
  try {
    // The remote's numbers keep their digits on the way to the client and into joins (literals.ts).
    parsed = parseKeepingDigits(res.body) as Json;
  } catch {
    return { ok: false, message: `remote schema "${name}" did not answer valid JSON (status ${res.status})`, internal: { status: res.status, body: res.body.slice(0, 1000) } };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || (!('data' in parsed) && !('errors' in parsed))) {
    return { ok: false, message: `remote schema "${name}" answered status ${res.status} without "data" or "errors"`, internal: { status: res.status, body: withoutDigits(parsed) as Json } };
  }
  // Errors are passed on as values of ours (messages, extensions): their numbers are plain numbers again.
  if ('errors' in parsed) parsed['errors'] = withoutDigits(parsed['errors']) as Json;
  return { ok: true, body: parsed };
}
