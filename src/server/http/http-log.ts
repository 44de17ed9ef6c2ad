import { createHash } from 'node:crypto';
import type { HttpApp, HttpReply, HttpRequest } from './router.js';
import type { StructuredLog } from './logs.js';

/**
 * The `http-log` line of each answer (issue 31.2), written once the answer is sent: method, path (no query string:
 * it may carry values), status, duration, request id, role, and for GraphQL the operation name, the query's hash
 * and the first error code. No header or variable value is logged.
 */

// Clients send the same few documents again and again: a hash is computed once per document (the sha-256 of a short
// query cost as much as the rest of the line). Bounded: emptied when full.
const hashes = new Map<string, string>();
const MAX_HASHES = 1000;

function queryHash(query: string): string {
  let h = hashes.get(query);
  if (h === undefined) {
    h = createHash('sha256').update(query).digest('hex');
    if (hashes.size >= MAX_HASHES) hashes.clear();
    hashes.set(query, h);
  }
  return h;
}

/** The operation name and query hash of a GraphQL body; only parsed when the line is written. */
function graphqlFields(text: string): { operation_name?: string; query_hash?: string } {
  try {
    const body = JSON.parse(text) as { query?: unknown; operationName?: unknown };
    return {
      ...(typeof body.operationName === 'string' ? { operation_name: body.operationName } : {}),
      ...(typeof body.query === 'string' ? { query_hash: queryHash(body.query) } : {}),
    };
  } catch {
    return {};
  }
}

function line(request: HttpRequest, reply: HttpReply): object {
  const url = request.raw.url ?? '/';
  const q = url.indexOf('?');
  return {
    request_id: request.id,
    method: request.raw.method,
    path: q < 0 ? url : url.slice(0, q),
    status: reply.statusCode,
    duration_ms: Math.round(reply.elapsedTime * 1000) / 1000,
    ...(request.role ? { role: request.role } : {}),
    ...(request.graphqlText ? graphqlFields(request.graphqlText) : {}),
    ...(request.errorCode ? { error_code: request.errorCode } : {}),
  };
}

export function registerHttpLog(app: HttpApp, log: StructuredLog): void {
  app.onResponse((request, reply) => {
    log.emit(reply.statusCode >= 500 ? 'error' : 'info', 'http-log', line(request, reply));
  });
}
