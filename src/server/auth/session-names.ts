import type { IncomingHttpHeaders } from 'node:http';
import { ApiError } from '../../errors.js';

/**
 * Session-variable names (issue 29.1): `x-engine-…` and the incumbent's `x-hasura-…` name the same variable, in any
 * case. Every reader of a name (metadata values, headers, token claims, hook answers) goes through this file; stored
 * metadata keeps what its writer wrote. The session a request carries holds each variable once, under the outbound
 * prefix (ENGINE_GRAPHQL_SESSION_VARIABLE_PREFIX), so that handlers, webhooks, SQL functions and triggers see the names
 * they were written for.
 */

export type SessionPrefix = 'x-engine-' | 'x-hasura-';
export const DEFAULT_SESSION_PREFIX: SessionPrefix = 'x-engine-';

/** Both prefixes have this length. */
const PREFIX_LENGTH = 9;

/** Whether `name` from `at` spells `word` (lower-case ASCII letters) in any case: `c | 0x20` is a letter only for a letter. */
function spells(name: string, at: number, word: string): boolean {
  for (let i = 0; i < word.length; i++) if ((name.charCodeAt(at + i) | 0x20) !== word.charCodeAt(i)) return false;
  return true;
}

/**
 * `x-engine-` or `x-hasura-` at the start, in any case. Tested on every header of every request: compared by character
 * codes, where a case-insensitive regular expression cost more than the rest of the header's handling (issue 28).
 */
function hasSessionPrefix(name: string): boolean {
  if (name.length < PREFIX_LENGTH || name.charCodeAt(1) !== 45 || name.charCodeAt(8) !== 45 || (name.charCodeAt(0) | 0x20) !== 0x78) return false;
  return spells(name, 2, 'engine') || spells(name, 2, 'hasura');
}

/** True for a string naming a session variable under either prefix. */
export const isSessionVariableName = (v: unknown): v is string => typeof v === 'string' && hasSessionPrefix(v);

/** The canonical form of a session-variable name (`x-engine-…`, lower case), or undefined when it names none. */
export function sessionVariableName(name: string): string | undefined {
  if (!hasSessionPrefix(name)) return undefined;
  // Header names come in lower case: `x-engine-…` is then its own canonical form, with nothing built.
  const lower = name.toLowerCase();
  return lower.charCodeAt(2) === 101 ? lower : `x-engine-${lower.slice(PREFIX_LENGTH)}`;
}

/** A canonical name under `prefix`. */
export const prefixedName = (canonical: string, prefix: SessionPrefix): string => prefix + canonical.slice(PREFIX_LENGTH);

/** The value of a session variable named under either prefix, from a session holding it under one of them. */
export function sessionValue(session: Record<string, string>, name: string): string | undefined {
  const canonical = sessionVariableName(name);
  if (canonical === undefined) return undefined;
  return session[canonical] ?? session[prefixedName(canonical, 'x-hasura-')];
}

/** The setting's value as a prefix; undefined when it is not one (with or without the trailing dash, any case). */
export function parseSessionPrefix(text: string): SessionPrefix | undefined {
  const t = text.trim().toLowerCase().replace(/-?$/, '-');
  return t === 'x-engine-' || t === 'x-hasura-' ? t : undefined;
}

/** 400 access-denied: never a silent pick between two values of one variable. */
export function conflictingSessionVariable(canonical: string, first: string, second: string): ApiError {
  const rest = canonical.slice(PREFIX_LENGTH);
  // In a stable order, whatever order the client's headers or claims came in.
  const [a, b] = [first, second].sort();
  return new ApiError(400, 'access-denied', '$',
    `session variable "${rest}" is given twice with different values ("${a}" and "${b}"): send it under one prefix, x-engine- or x-hasura-`);
}

/**
 * Collects session variables from named values (headers, claims, a hook's answer): names outside both prefixes are
 * skipped, each variable is keyed under `prefix`, and one variable given twice with different values is refused.
 */
export function collectSession(entries: Iterable<readonly [string, string]>, prefix: SessionPrefix): Record<string, string> {
  const seen = new Map<string, { name: string; value: string }>();
  for (const [name, value] of entries) {
    const canonical = sessionVariableName(name);
    if (canonical === undefined) continue;
    const before = seen.get(canonical);
    if (before !== undefined && before.value !== value) throw conflictingSessionVariable(canonical, before.name, name);
    seen.set(canonical, { name, value });
  }
  const out: Record<string, string> = {};
  for (const [canonical, { value }] of seen) out[prefixedName(canonical, prefix)] = value;
  return out;
}

/** A request header named under either prefix (`rest` after the prefix, lower case); both with different values: 400. */
export function prefixedHeader(headers: IncomingHttpHeaders, rest: string): string | undefined {
  const [engineName, hasuraName] = namesOf(rest);
  const engine = headerText(headers[engineName]);
  const hasura = headerText(headers[hasuraName]);
  if (engine !== undefined && hasura !== undefined && engine !== hasura) {
    throw conflictingSessionVariable(engineName, engineName, hasuraName);
  }
  return engine ?? hasura;
}

const headerText = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v.join(', ') : v);

/** The two header names of `rest`, made once: a name built per request is hashed and looked up at every use. */
const NAMES = new Map<string, readonly [string, string]>();
function namesOf(rest: string): readonly [string, string] {
  let names = NAMES.get(rest);
  if (names === undefined) {
    names = [`x-engine-${rest}`, `x-hasura-${rest}`];
    // Callers pass a handful of literals; the bound only guards against a caller that does not.
    if (NAMES.size < 64) NAMES.set(rest, names);
  }
  return names;
}

/**
 * Every header that carries the admin secret: ours, the incumbent's, and its v1 name (`X-Hasura-Access-Key`, still
 * sent by old clients). None of them is ever a session variable, forwarded to a handler or stored.
 */
export const ADMIN_SECRET_HEADERS: readonly string[] = ['x-engine-admin-secret', 'x-hasura-admin-secret', 'x-hasura-access-key'];

/** The admin secret a request sends, under any of its names; different values under two names are refused. */
export function adminSecretHeader(headers: IncomingHttpHeaders): string | undefined {
  const secret = prefixedHeader(headers, 'admin-secret');
  const v = headers['x-hasura-access-key'];
  const key = Array.isArray(v) ? v.join(', ') : v;
  if (secret !== undefined && key !== undefined && secret !== key) {
    throw new ApiError(400, 'access-denied', '$', 'the admin secret is given twice with different values (x-engine-admin-secret or x-hasura-admin-secret, and x-hasura-access-key): send it once');
  }
  return secret ?? key;
}
