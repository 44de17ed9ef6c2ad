import type { HttpReply } from './router.js';
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../../errors.js';
import { BodyError, closeAfterAnswer, discardBody } from './body.js';

/** The §1.4 error envelope and how an answer is sent. */

export const JSON_TYPE = 'application/json; charset=utf-8';

export function errorBody(e: ApiError, includeInternal: boolean): string {
  const body: Record<string, unknown> = { path: e.path, error: e.message, code: e.code };
  if (includeInternal && e.internal !== undefined) body['internal'] = e.internal;
  return JSON.stringify(body);
}

export const INTERNAL = JSON.stringify({ path: '$', error: 'internal error', code: 'unexpected' });

export const notFound = (): ApiError => new ApiError(404, 'not-found', '$', 'resource does not exist');

/** A JSON answer; the body is sent as it is (GraphQL answers are already text). */
export function send(reply: HttpReply, status: number, body: string | Buffer): void {
  reply.code(status).header('content-type', JSON_TYPE).send(body);
}

/**
 * Answers a user error in the §1.4 envelope. After a refused body (too large, stalled) the rest is not read and the
 * connection closes once the answer is flushed; otherwise what is left of the body is discarded, keeping the
 * connection alive.
 */
export function sendError(req: IncomingMessage, reply: HttpReply, e: ApiError, isAdmin: boolean): void {
  reply.request.errorCode = e.code;
  if (e instanceof BodyError) {
    if (req.socket.destroyed) return; // the client is gone: no one to answer
    closeAfterAnswer(reply.raw);
  } else discardBody(req);
  send(reply, e.status, errorBody(e, isAdmin));
}
