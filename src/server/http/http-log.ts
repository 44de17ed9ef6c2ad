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

/**
 * The line's detail as JSON text, field by field in the line's order: no object per request and no serializer walk
 * (issue 31's ≤ 3 %). Values a client chooses (its request id, the path, the role, an operation name) are escaped.
 */
function line(request: HttpRequest, reply: HttpReply): string {
  const url = request.raw.url ?? '/';
  const q = url.indexOf('?');
  let s = `{"request_id":${jsonString(request.id)},"method":${jsonString(request.raw.method ?? '')},"path":${jsonString(q < 0 ? url : url.slice(0, q))},"status":${reply.statusCode},"duration_ms":${Math.round(reply.elapsedTime * 1000) / 1000}`;
  if (request.role) s += `,"role":${jsonString(request.role)}`;
  // The service reported the operation it prepared: its name and hash are known without reading the body again.
  const op = request.graphqlOperation;
  if (op) {
    if (op.name !== undefined) s += `,"operation_name":${jsonString(op.name)}`;
    s += `,"query_hash":${jsonString(op.hash)}`;
  } else if (request.graphqlText) s += bodyFields(request.graphqlText);
  if (request.errorCode) s += `,"error_code":${jsonString(request.errorCode)}`;
  // With traces on (issue 31.4): the line and the request's spans are found from each other.
  const trace = probes.tracer?.traceOf(request.raw);
  if (trace !== undefined) s += `,"trace_id":${jsonString(trace)}`;
  return `${s}}`;
}

export function registerHttpLog(app: HttpApp, log: StructuredLog): void {
  app.onResponse((request, reply) => {
    log.emitJson(reply.statusCode >= 500 ? 'error' : 'info', 'http-log', line(request, reply));
  });
}
