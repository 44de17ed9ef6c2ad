import { parseFailed } from '../../errors.js';
import type { JsonObject } from '../json.js';
import { at, idx, arr, exclusive, obj, opt, req, str } from '../reader.js';
import type { Header } from '../types.js';

/** Shapes shared by several kinds: headers, URL templates, env-variable names (engine-api.md §4.0). */

const RESERVED = 'ENGINE_GRAPHQL_';
export const TEMPLATE = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

export const reservedEnv = (name: string): boolean => name.toUpperCase().startsWith(RESERVED);

const reservedMessage = (key: string, name: string) =>
  `env variables starting with "ENGINE_GRAPHQL_" are not allowed in ${key}: ${name}`;

/**
 * A URL template: `{{NAME}}` references are kept verbatim; without a template it must be an absolute http(s)
 * URL. `objectPath` is where the reserved-prefix error points (the object holding the key).
 */
export function urlTemplate(v: unknown, path: string, key: string, objectPath: string): string {
  const s = str(v, path);
  const names = [...s.matchAll(TEMPLATE)].map((m) => m[1] as string);
  for (const n of names) if (reservedEnv(n)) throw parseFailed(objectPath, reservedMessage(key, n));
  if (names.length === 0 && !isHttpUrl(s)) throw parseFailed(path, `${key} must be an http or https URL`);
  return s;
}

export function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

export function envName(v: unknown, path: string, key: string, objectPath: string): string {
  const s = str(v, path);
  if (reservedEnv(s)) throw parseFailed(objectPath, reservedMessage(key, s));
  return s;
}

export function header(v: unknown, path: string): Header {
  const o = obj(v, path);
  const name = str(req(o, 'name', path), at(path, 'name'));
  if (name === '') throw parseFailed(at(path, 'name'), 'header name cannot be empty');
  const which = exclusive(o, 'value', 'value_from_env', path);
  if (which === 'value') return { name, value: str(o['value'], at(path, 'value')) };
  return { name, value_from_env: envName(o['value_from_env'], at(path, 'value_from_env'), 'value_from_env', path) };
}

export function headers(o: JsonObject, path: string): Header[] {
  const v = opt(o, 'headers');
  if (v === undefined) return [];
  const p = at(path, 'headers');
  return arr(v, p).map((h, i) => header(h, idx(p, i)));
}

export const headerJson = (h: Header): JsonObject =>
  'value' in h ? { name: h.name, value: h.value } : { name: h.name, value_from_env: h.value_from_env };
