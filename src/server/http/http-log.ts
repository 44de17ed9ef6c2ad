import { createHash } from 'node:crypto';
import type { HttpApp, HttpReply, HttpRequest } from './router.js';
import { probes } from '../../probes.js';
import { jsonString, type StructuredLog } from './logs.js';

/**
 * The `http-log` line of each answer (issue 31.2), written once the answer is sent: method, path (no query string:
 * it may carry values), status, duration, request id, role, and for GraphQL the operation name, the query's hash
 * and the first error code; with traces on, the trace id. No header or variable value is logged.
 */

/** The operation name and query hash of a GraphQL body the service could not prepare (a parse or validation error). */
function bodyFields(text: string): string {
  try {
    const body = JSON.parse(text) as { query?: unknown; operationName?: unknown };
    let out = '';
    if (typeof body.operationName === 'string') out += `,"operation_name":${jsonString(body.operationName)}`;
    if (typeof body.query === 'string') out += `,"query_hash":"${createHash('sha256').update(body.query).digest('hex')}"`;
    return out;
  } catch {
    return ''; // not JSON: nothing to name
  }
}

/** JSON texts of strings that repeat (paths, roles), bounded: a client choosing new ones only gets them escaped each time. */
class JsonTexts {
  private readonly texts = new Map<string, string>();

  of(v: string): string {
    let t = this.texts.get(v);
    if (t === undefined) {
      t = jsonString(v);
      if (this.texts.size < 1000) this.texts.set(v, t);
    }
    return t;
  }
}

const pathJson = new JsonTexts();
const roleJson = new JsonTexts();

/**
 * The line's detail as JSON text, field by field in the line's order: no object per request and no serializer walk
 * (issue 31's ≤ 3 %). Values a client chooses (its request id, the path, the role, an operation name) are escaped.
 */
function line(request: HttpRequest, reply: HttpReply): string {
  // Our own id (a UUID) and the method (Node's parser accepts only known methods) need no escape; a path's and a
  // role's JSON text are kept once made (they are few).
  let s = `{"request_id":${request.ownId ? `"${request.id}"` : jsonString(request.id)},"method":"${request.method}","path":${pathJson.of(request.path)},"status":${reply.statusCode},"duration_ms":${milliseconds(reply.elapsedTime)}`;
  if (request.role) s += `,"role":${roleJson.of(request.role)}`;
  // The service reported the operation it prepared: its name and hash are known without reading the body again, and
  // their text is made once per cached operation.
  const op = request.graphqlOperation;
  if (op) s += (op.logFields ??= `${op.name !== undefined ? `,"operation_name":${jsonString(op.name)}` : ''},"query_hash":"${op.hash}"`);
  else if (request.graphqlText) s += bodyFields(request.graphqlText);
  if (request.errorCode) s += `,"error_code":${jsonString(request.errorCode)}`;
  // With traces on (issue 31.4): the line and the request's spans are found from each other.
  const trace = probes.tracer?.traceOf(request.raw);
  if (trace !== undefined) s += `,"trace_id":${jsonString(trace)}`;
  return `${s}}`;
}

/** `ms` to the microsecond, as JSON: from integers, which print without the double-to-text conversion a fraction needs. */
export function milliseconds(ms: number): string {
  const us = Math.round(ms * 1000);
  const whole = Math.floor(us / 1000);
  const frac = us - whole * 1000;
  return `${whole}.${frac < 10 ? '00' : frac < 100 ? '0' : ''}${frac}`;
}

export function registerHttpLog(app: HttpApp, log: StructuredLog): void {
  app.onResponse((request, reply) => {
    log.emitJson(reply.statusCode >= 500 ? 'error' : 'info', 'http-log', line(request, reply));
  });
}
