import { parseFailed } from '../errors.js';
import { isObject, jsonTypeName, pathKey, pathIndex, type Json, type JsonObject } from './json.js';
import type { QualifiedName } from './types.js';

/**
 * Strict readers for request arguments and metadata documents. Each takes the value and its JSON path and
 * either returns a typed value or throws the exact parse error of engine-api.md §1.6 at that path.
 */

const show = (v: unknown): string => (v === undefined ? 'null' : JSON.stringify(v));

export function expectType(v: unknown, path: string, want: 'Object' | 'Array' | 'String' | 'Number' | 'Boolean'): void {
  const got = jsonTypeName(v);
  if (got !== want) throw parseFailed(path, `expected ${want}, encountered ${got}`);
}

export function obj(v: unknown, path: string): JsonObject {
  expectType(v, path, 'Object');
  return v as JsonObject;
}

export function arr(v: unknown, path: string): Json[] {
  expectType(v, path, 'Array');
  return v as Json[];
}

export function str(v: unknown, path: string): string {
  expectType(v, path, 'String');
  return v as string;
}

export function bool(v: unknown, path: string): boolean {
  expectType(v, path, 'Boolean');
  return v as boolean;
}

export function int(v: unknown, path: string, min: number): number {
  expectType(v, path, 'Number');
  const n = v as number;
  if (!Number.isInteger(n) || n < min) throw parseFailed(path, `expected an integer >= ${min}, encountered ${show(n)}`);
  return n;
}

export function oneOf<T extends string | number>(v: unknown, path: string, values: readonly T[]): T {
  if (!values.includes(v as T)) {
    throw parseFailed(path, `expected one of ${values.map((x) => JSON.stringify(x)).join(', ')}, encountered ${show(v)}`);
  }
  return v as T;
}

/** A key's value, with `null` treated as absent (engine-api.md §1.6). */
export function opt(o: JsonObject, key: string): Json | undefined {
  const v = o[key];
  return v === null ? undefined : v;
}

export function req(o: JsonObject, key: string, path: string): Json {
  const v = o[key];
  if (v === undefined || v === null) throw parseFailed(path, `the key "${key}" was not present`);
  return v;
}

export const at = pathKey;
export const idx = pathIndex;

export function optStr(o: JsonObject, key: string, path: string): string | undefined {
  const v = opt(o, key);
  return v === undefined ? undefined : str(v, at(path, key));
}

export function optBool(o: JsonObject, key: string, path: string, dflt: boolean): boolean {
  const v = opt(o, key);
  return v === undefined ? dflt : bool(v, at(path, key));
}

export function reqStr(o: JsonObject, key: string, path: string): string {
  return str(req(o, key, path), at(path, key));
}

/** `comment`: a string, or null meaning "no comment"; absent is also no comment. */
export function comment(o: JsonObject, path: string): string | null {
  const v = o['comment'];
  if (v === undefined || v === null) return null;
  return str(v, at(path, 'comment'));
}

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;
export function graphqlName(v: unknown, path: string): string {
  const s = str(v, path);
  if (!GRAPHQL_NAME.test(s)) throw parseFailed(path, `"${s}" is not a valid GraphQL name`);
  return s;
}

/** TableName / FunctionName: a string (schema public) or {"name","schema"?}. */
export function qualifiedName(v: unknown, path: string): QualifiedName {
  if (typeof v === 'string') return { schema: 'public', name: v };
  if (!isObject(v)) throw parseFailed(path, `expected Object, encountered ${jsonTypeName(v)}`);
  const name = reqStr(v, 'name', path);
  const schema = optStr(v, 'schema', path) ?? 'public';
  return { schema, name };
}

export function columnList(v: unknown, path: string): '*' | string[] {
  if (v === '*') return '*';
  if (Array.isArray(v) && v.every((c) => typeof c === 'string')) return v as string[];
  throw parseFailed(path, `expected "*" or an array of column names, encountered ${show(v)}`);
}

export function roleName(v: unknown, path: string): string {
  const s = str(v, path);
  if (s === '') throw parseFailed(path, 'role name cannot be empty');
  return s;
}

/** Exactly one of two alternative keys; returns which was given. */
export function exclusive(o: JsonObject, a: string, b: string, path: string): string {
  const hasA = opt(o, a) !== undefined;
  const hasB = opt(o, b) !== undefined;
  if (hasA && hasB) throw parseFailed(path, `only one of "${a}" or "${b}" may be given`);
  if (!hasA && !hasB) throw parseFailed(path, `one of "${a}" or "${b}" is required`);
  return hasA ? a : b;
}

/** Operations accepting either a name or {"<key>": name, …} read an object holding `key` as the second form. */
export function isFunctionArgsObject(v: unknown, key: string): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && key in v;
}
