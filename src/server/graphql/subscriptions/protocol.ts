/**
 * The two WebSocket sub-protocols of `/v1/graphql`: `graphql-transport-ws` (the graphql-ws library's) and the legacy
 * `graphql-ws` of subscriptions-transport-ws (the default when a client names none, as the incumbent). Only message
 * shapes and close codes live here; connection.ts drives them.
 */
export const MODERN = 'graphql-transport-ws';
export const LEGACY = 'graphql-ws';

export type Protocol = typeof MODERN | typeof LEGACY;

/** Picks the sub-protocol from those the client offers: the modern one first. */
export function chooseProtocol(offered: Iterable<string>): Protocol | false {
  const set = new Set(offered);
  if (set.has(MODERN)) return MODERN;
  if (set.has(LEGACY)) return LEGACY;
  return false;
}

/** Close codes (graphql-ws's, used for both protocols). */
export const CLOSE = {
  badRequest: 4400,
  unauthorized: 4401,
  forbidden: 4403,
  initTimeout: 4408,
  duplicate: 4409,
  tooManyInits: 4429,
  goingAway: 1001,
  /** A client not reading its results (issue 32.7); also what a full server answers a new socket. */
  slowConsumer: 1013,
  tryAgainLater: 1013,
} as const;

export interface ClientMessage {
  type: string;
  id?: string;
  payload?: unknown;
}

/** The message parsed, or null when it is not a JSON object with a string `type` (and a string `id` when present). */
export function parseMessage(data: string): ClientMessage | null {
  let m: unknown;
  try {
    m = JSON.parse(data);
  } catch {
    return null;
  }
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return null;
  const o = m as Record<string, unknown>;
  if (typeof o['type'] !== 'string') return null;
  if (o['id'] !== undefined && typeof o['id'] !== 'string') return null;
  return o as unknown as ClientMessage;
}

/** A result message: `next` (modern) or `data` (legacy); the body is the service's JSON text, spliced unparsed. */
export const resultMessage = (p: Protocol, id: string, body: string): string =>
  `{"type":"${p === MODERN ? 'next' : 'data'}","id":${JSON.stringify(id)},"payload":${body}}`;

/** An operation's failure before any result: modern sends the errors array, legacy `{errors}` (as the incumbent). */
export const errorMessage = (p: Protocol, id: string, errors: unknown[]): string =>
  JSON.stringify({ type: 'error', id, payload: p === MODERN ? errors : { errors } });

export const completeMessage = (id: string): string => JSON.stringify({ type: 'complete', id });
