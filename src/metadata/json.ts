export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSON type names as the API's messages spell them (engine-api.md §1.6). */
export function jsonTypeName(v: unknown): string {
  if (v === null || v === undefined) return 'Null';
  if (Array.isArray(v)) return 'Array';
  switch (typeof v) {
    case 'object':
      return 'Object';
    case 'string':
      return 'String';
    case 'number':
      return 'Number';
    case 'boolean':
      return 'Boolean';
    default:
      return 'Null';
  }
}

const SIMPLE_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Appends an object key to a JSON path (engine-api.md §1.5). */
export function pathKey(path: string, key: string): string {
  if (SIMPLE_KEY.test(key)) return `${path}.${key}`;
  return `${path}['${key.replace(/'/g, "\\'")}']`;
}

export const pathIndex = (path: string, index: number): string => `${path}[${index}]`;

/** Deterministic JSON: keys of every object sorted by code point (used where the format says "sorted keys"). */
export function sortKeysDeep(v: Json): Json {
  if (Array.isArray(v)) return v.map(sortKeysDeep);
  if (isObject(v)) {
    const out: JsonObject = {};
    for (const k of Object.keys(v).sort(compareCodePoints)) out[k] = sortKeysDeep(v[k] as Json);
    return out;
  }
  return v;
}

/** Code-point order; JS's default sort compares UTF-16 units, which differs above the BMP. */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done) return y.done ? 0 : -1;
    if (y.done) return 1;
    const cx = x.value.codePointAt(0) ?? 0;
    const cy = y.value.codePointAt(0) ?? 0;
    if (cx !== cy) return cx - cy;
  }
}
