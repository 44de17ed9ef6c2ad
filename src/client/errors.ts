import { STATUS_CODES } from 'node:http';
import { CliError, type ErrorLocation } from '../errors.js';
import { isObject, type Json } from '../metadata/json.js';

/** The engine's error envelope (engine-api.md §1.4), as received. */
export interface EngineErrorBody {
  path: string;
  error: string;
  code: string;
  internal?: Json;
}

/** What the client knows about the failed exchange, beyond the CLI error itself. */
export interface EngineRequestDetails {
  /** The operation of the request (`export_metadata`, `bulk`, `version`, …). */
  operation: string;
  /** The HTTP status, when a response arrived. */
  status?: number;
  /** The engine's parsed error body, when the response carried one. */
  engineError?: EngineErrorBody;
}

/**
 * A failed engine request (cli.md §3.6, §6): a CliError (exit 1) that also carries the engine's error body, so callers
 * can map its `path` back to project files.
 */
export class EngineRequestError extends CliError {
  readonly operation: string;
  readonly status: number | undefined;
  readonly engineError: EngineErrorBody | undefined;
  constructor(code: string, message: string, location: ErrorLocation, details: EngineRequestDetails) {
    super(code, message, 1, location);
    this.name = 'EngineRequestError';
    this.operation = details.operation;
    this.status = details.status;
    this.engineError = details.engineError;
  }
}

export const NETWORK_HINT = "start a local engine with 'engine serve', or set --endpoint / ENGINE_GRAPHQL_ENDPOINT";
export const TIMEOUT_HINT = 'increase --timeout or ENGINE_GRAPHQL_TIMEOUT';
export const UNAUTHORIZED_HINT =
  'pass --admin-secret or set ENGINE_GRAPHQL_ADMIN_SECRET (environment, .env, or admin_secret: ${VAR} in config.yaml)';
export const NOT_FOUND_HINT = "check that the endpoint is the engine's base URL";
/** A 404 in the engine's own envelope on `/v1/graphql`: the URL is right, that engine has no GraphQL API. */
export const NO_GRAPHQL_HINT = 'the engine at this endpoint does not serve GraphQL (POST /v1/graphql): upgrade it, or pass the definition with --sdl';
export const CONFLICT_HINT = "run 'engine metadata diff' to review, then apply again";

/** Replaces every occurrence of the admin secret (cli.md §3.7); the identity when no secret is configured. */
export type Masker = (text: string) => string;

export function secretMasker(secret: string | undefined): Masker {
  if (!secret) return (text) => text;
  return (text) => text.split(secret).join('***');
}

function maskJson(value: Json, mask: Masker): Json {
  if (typeof value === 'string') return mask(value);
  if (Array.isArray(value)) return value.map((v) => maskJson(v, mask));
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [mask(k), maskJson(v, mask)]));
  return value;
}

/** The engine's error envelope, if `body` has its shape (`path` defaults to `$`). */
export function asEngineError(body: unknown): EngineErrorBody | null {
  if (!isObject(body) || typeof body['error'] !== 'string' || typeof body['code'] !== 'string') return null;
  const path = typeof body['path'] === 'string' ? body['path'] : '$';
  const out: EngineErrorBody = { path, error: body['error'], code: body['code'] };
  if (body['internal'] !== undefined) out.internal = body['internal'];
  return out;
}

function maskEngineError(e: EngineErrorBody | null, mask: Masker): EngineErrorBody | undefined {
  if (!e) return undefined;
  const out: EngineErrorBody = { path: mask(e.path), error: mask(e.error), code: mask(e.code) };
  if (e.internal !== undefined) out.internal = maskJson(e.internal, mask);
  return out;
}

/** `HTTP <status> <reason>` with the standard reason phrase (none for an unknown status). */
export function statusLine(status: number): string {
  const reason = STATUS_CODES[status];
  return reason ? `HTTP ${status} ${reason}` : `HTTP ${status}`;
}

/** The first 200 characters of a body as a JSON string, `…` when cut, or `(empty body)`. */
export function bodyExcerpt(text: string): string {
  if (text === '') return '(empty body)';
  const chars = Array.from(text);
  return chars.length > 200 ? `${JSON.stringify(chars.slice(0, 200).join(''))}…` : JSON.stringify(text);
}

export function networkError(endpoint: string, reason: string, operation: string, mask: Masker): EngineRequestError {
  return new EngineRequestError('network-error', mask(`cannot connect to the engine at ${endpoint} (${reason})`),
    { hint: NETWORK_HINT }, { operation });
}

export function timeoutError(endpoint: string, seconds: number, operation: string, mask: Masker): EngineRequestError {
  return new EngineRequestError('timeout', mask(`the engine at ${endpoint} did not respond within ${seconds}s`),
    { hint: TIMEOUT_HINT }, { operation });
}

/** `status`: 401 on the metadata API; /v1/graphql answers a refused secret as a GraphQL error with 200 (issue 27.8). */
export function unauthorizedError(endpoint: string, secretSent: boolean, operation: string, body: unknown,
  mask: Masker, status = 401): EngineRequestError {
  const why = status === 401 ? 'HTTP 401' : 'access-denied';
  const message = secretSent
    ? `the engine at ${endpoint} rejected the admin secret (${why})`
    : `the engine at ${endpoint} requires an admin secret (${why})`;
  return new EngineRequestError('unauthorized', mask(message), { hint: UNAUTHORIZED_HINT },
    { operation, status, engineError: maskEngineError(asEngineError(body), mask) });
}

export function invalidResponseError(url: string, status: number, text: string, operation: string, mask: Masker,
  body?: unknown): EngineRequestError {
  const message = `unexpected response from ${mask(url)}: ${statusLine(status)}: ${bodyExcerpt(mask(text))}`;
  const engineNotFound = isObject(body) && body['code'] === 'not-found' && typeof body['error'] === 'string';
  const location: ErrorLocation = status !== 404 ? {} : { hint: operation === 'introspection' && engineNotFound ? NO_GRAPHQL_HINT : NOT_FOUND_HINT };
  return new EngineRequestError('invalid-response', message, location,
    { operation, status, engineError: maskEngineError(asEngineError(body), mask) });
}

/** `server-error`: `<operation>` is the failing sub-operation's type for a bulk (resolved by the caller). */
export function serverError(operation: string, status: number, engineError: EngineErrorBody, mask: Masker,
  requestOperation: string): EngineRequestError {
  const masked = maskEngineError(engineError, mask) as EngineErrorBody;
  return new EngineRequestError('server-error',
    `the engine rejected ${operation}: ${masked.error} [${masked.code}]`, { path: masked.path },
    { operation: requestOperation, status, engineError: masked });
}

export function metadataConflictError(resourceVersion: string, engineError: EngineErrorBody,
  mask: Masker): EngineRequestError {
  const masked = maskEngineError(engineError, mask) as EngineErrorBody;
  return new EngineRequestError('metadata-conflict',
    `the engine's metadata changed after it was read (resource version ${resourceVersion}); nothing was applied`,
    { path: masked.path, hint: CONFLICT_HINT }, { operation: 'replace_metadata', status: 409, engineError: masked });
}
