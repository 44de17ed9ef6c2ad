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

/**
 * `o[k] = v` for a key that comes from user JSON. JSON.parse makes `"__proto__"` an own key, but assigning it calls
 * Object.prototype's setter instead (the key vanishes and the object's prototype changes): define it instead.
 */
export function setOwn<T>(o: Record<string, T>, k: string, v: NoInfer<T>): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

/** Deterministic JSON: keys of every object sorted by code point (used where the format says "sorted keys"). */
export function sortKeysDeep(v: Json): Json {
  if (Array.isArray(v)) return v.map(sortKeysDeep);
  if (isObject(v)) {
    const out: JsonObject = {};
    for (const k of Object.keys(v).sort(compareCodePoints)) setOwn(out, k, sortKeysDeep(v[k] as Json));
    return out;
  }
  return v;
}

/** Code-point order; JS's default comparison is by UTF-16 unit, which differs above the BMP. */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return fixup(x) - fixup(y);
  }
  return a.length - b.length;
}

/** Surrogates encode code points above U+FFFF: move them above U+E000–U+FFFF, which shift down to make room. */
const fixup = (u: number): number => (u >= 0xd800 && u <= 0xdfff ? u + 0x2000 : u >= 0xe000 ? u - 0x800 : u);
