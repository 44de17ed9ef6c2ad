import { createHash } from 'node:crypto';
import type { HttpApp, HttpReply, HttpRequest } from './router.js';
import { probes } from '../../probes.js';
import type { StructuredLog } from './logs.js';

/**
 * The `http-log` line of each answer (issue 31.2), written once the answer is sent: method, path (no query string:
 * it may carry values), status, duration, request id, role, and for GraphQL the operation name, the query's hash
 * and the first error code; with traces on, the trace id. No header or variable value is logged.
 */

/** The operation name and query hash of a GraphQL body the service could not prepare (a parse or validation error). */
function bodyFields(text: string, into: Record<string, unknown>): void {
  try {
    const body = JSON.parse(text) as { query?: unknown; operationName?: unknown };
    if (typeof body.operationName === 'string') into['operation_name'] = body.operationName;
    if (typeof body.query === 'string') into['query_hash'] = createHash('sha256').update(body.query).digest('hex');
  } catch {
    // not JSON: nothing to name
  }
}

function line(request: HttpRequest, reply: HttpReply): object {
  const url = request.raw.url ?? '/';
  const q = url.indexOf('?');
  // Built field by field in the line's order, without the spreads of optional parts: one object per request.
  const detail: Record<string, unknown> = {
    request_id: request.id,
    method: request.raw.method,
    path: q < 0 ? url : url.slice(0, q),
    status: reply.statusCode,
    duration_ms: Math.round(reply.elapsedTime * 1000) / 1000,
  };
  if (request.role) detail['role'] = request.role;
  // The service reported the operation it prepared: its name and hash are known without reading the body again.
  const op = request.graphqlOperation;
  if (op) {
    if (op.name !== undefined) detail['operation_name'] = op.name;
    detail['query_hash'] = op.hash;
  } else if (request.graphqlText) bodyFields(request.graphqlText, detail);
  if (request.errorCode) detail['error_code'] = request.errorCode;
  // With traces on (issue 31.4): the line and the request's spans are found from each other.
  if (probes.tracer) detail['trace_id'] = probes.tracer.traceOf(request.raw);
  return detail;
}

export function registerHttpLog(app: HttpApp, log: StructuredLog): void {
  app.onResponse((request, reply) => {
    log.emit(reply.statusCode >= 500 ? 'error' : 'info', 'http-log', line(request, reply));
  });
}
