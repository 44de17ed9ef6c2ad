import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../../errors.js';
import { ENGINE_MAX_BODY_BYTES } from '../../limits.js';
import { MAX_JSON_NESTING, nestingDepth } from '../json-depth.js';
import { checkStorableStrings } from '../storable-strings.js';

/**
 * Request bodies are read here, not by the framework's parsers: the limit is enforced while reading, a stalled upload
 * is timed out, and a refused body is never drained (issue 11).
 */

/** One limit for the engine and the project tool, which refuses larger requests before sending them. */
export const MAX_BODY_BYTES = ENGINE_MAX_BODY_BYTES;
export const MAX_NESTING = MAX_JSON_NESTING;

/** Thrown while reading a body: the rest of it is not read, so the answer closes the connection. */
export class BodyError extends ApiError {}

const EMPTY = Buffer.alloc(0);

const tooLarge = (): BodyError =>
  new BodyError(413, 'parse-failed', '$', `request body is larger than the limit of ${MAX_BODY_BYTES / 1024 / 1024} MB`);

/**
 * Reads the body up to MAX_BODY_BYTES. A Content-Length over the limit is refused before reading; a body that
 * passes the limit stops being read at once (an endless chunked upload must not be drained), and so does one whose
 * sender goes quiet for `idleMs`.
 */
export function readBody(req: IncomingMessage, idleMs: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) return Promise.reject(tooLarge());
  // The whole body came with the headers (a small request, the usual case): it is read from the stream's buffer, with
  // no listener and no idle timer armed and cleared (issue 28's cost per request).
  if (req.complete && req.readableFlowing === null) {
    const first = req.read() as Buffer | null;
    if (first === null) return Promise.resolve(EMPTY);
    const more = req.read() as Buffer | null;
    const body = more === null ? first : Buffer.concat([first, more]);
    return body.length > MAX_BODY_BYTES ? Promise.reject(tooLarge()) : Promise.resolve(body);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (e: Error) => {
      req.off('data', onData);
      req.pause();
      reject(e);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) stop(tooLarge());
      else chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => {
      req.socket.setTimeout(0);
      resolve(Buffer.concat(chunks));
    });
    // The client went away mid-body, or Node's request timeout fired: there is no one to answer.
    req.on('error', () => reject(new BodyError(400, 'parse-failed', '$', 'request body not received: the connection was closed')));
    if (idleMs > 0) {
      // On the request, not the socket: Node destroys a timed-out socket unless the request handles 'timeout'.
      req.setTimeout(idleMs, () => {
        stop(new BodyError(408, 'parse-failed', '$', `request body not received: no data for ${idleMs / 1000} s`));
      });
    }
  });
}

/** How long a connection refused mid-body stays half-closed before it is destroyed. */
const LINGER_MS = 1000;

/**
 * Closes the connection once the answer to a refused body is flushed. Node would destroy the socket at that moment;
 * with request bytes still unread that is a TCP reset, and a client still writing its body then often sees the reset
 * instead of the answer. So the answer and a FIN go out, nothing more is read, and the socket is destroyed a moment
 * later: a bounded form of the "lingering close" of Apache and nginx.
 */
export function closeAfterAnswer(res: ServerResponse): void {
  const socket = res.socket;
  res.setHeader('Connection', 'close');
  res.once('finish', () => {
    if (!socket) return;
    socket.removeListener('finish', socket.destroy);
    const timer = setTimeout(() => socket.destroy(), LINGER_MS).unref();
    socket.once('close', () => clearTimeout(timer));
  });
}

/** Discards an unread body after an early answer (404, 401), closing the connection if it passes the limit. */
export function discardBody(req: IncomingMessage): void {
  if (req.readableEnded) return;
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) req.socket.destroy();
  });
  req.resume();
}

/**
 * The shared body path of every JSON route: read (≤ 50 MB), nesting limit, JSON.parse, then the strings PostgreSQL
 * cannot store (§1.6). Throws ApiError with the status to answer.
 */
export async function readJson(req: IncomingMessage, idleMs: number): Promise<unknown> {
  const text = (await readBody(req, idleMs)).toString('utf8');
  if (nestingDepth(text) > MAX_NESTING) {
    throw new ApiError(400, 'parse-failed', '$', `request body is nested more than ${MAX_NESTING} levels deep`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError(400, 'invalid-json', '$', 'request body is not valid JSON');
  }
  checkStorableStrings(body);
  return body;
}
