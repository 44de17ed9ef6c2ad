import type { Json } from '../../src/metadata/json.js';

// The reference evaluator of BoolExps (engine-api.md §4.4 semantics, SQL three-valued logic) over two small tables,
// `item` and `owner`: the property tests compare the compiled SQL (permissions and GraphQL `where`) against it.

export type Ty = 'int' | 'text' | 'bool' | 'jsonb';
export type Tab = 'item' | 'owner';
export type Row = Record<string, Json>;
export interface World { item: Row[]; owner: Row[]; sv: Record<string, string> }

export const COLS: Record<Tab, Record<string, Ty>> = {
  item: { id: 'int', n: 'int', s: 'text', b: 'bool', j: 'jsonb', owner_id: 'int' },
  owner: { id: 'int', name: 'text' },
};
// ---- The reference evaluator ----------------------------------------------------------------------------------
type T3 = boolean | null;
const and3 = (xs: T3[]): T3 => (xs.includes(false) ? false : xs.includes(null) ? null : true);
const or3 = (xs: T3[]): T3 => (xs.includes(true) ? true : xs.includes(null) ? null : false);
const not3 = (x: T3): T3 => (x === null ? null : !x);
const canon = (k: string) => (k.startsWith('$') ? `_${k.slice(1)}` : k);
export const isRef = (v: unknown): boolean => typeof v === 'string' && v.toLowerCase().startsWith('x-engine-');
const isScalar = (v: Json): boolean => v === null || typeof v !== 'object';
const isObj = (v: Json): v is Record<string, Json> => v !== null && typeof v === 'object' && !Array.isArray(v);

function cmpCodePoints(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0) ?? 0);
  const y = [...b].map((c) => c.codePointAt(0) ?? 0);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
  return x.length - y.length;
}
function jsonEq(a: Json, b: Json): boolean {
  if (isScalar(a) || isScalar(b)) return a === b;
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEq(x, b[i] as Json));
  const ka = Object.keys(a as object);
  return ka.length === Object.keys(b as object).length && ka.every((k) => k in (b as object) && jsonEq((a as Row)[k] as Json, (b as Row)[k] as Json));
}
/** jsonb `@>`: structures must match, except that a top-level array may contain a primitive. */
function contains(a: Json, b: Json, top: boolean): boolean {
  const sameKind = (x: Json, y: Json) => !isScalar(x) && Array.isArray(x) === Array.isArray(y);
  if (Array.isArray(a) && Array.isArray(b)) return b.every((e) => (isScalar(e) ? a.some((x) => isScalar(x) && x === e) : a.some((x) => sameKind(x, e) && contains(x, e, false))));
  if (isObj(a) && isObj(b)) {
    return Object.entries(b).every(([k, e]) => k in a && (isScalar(e) ? isScalar(a[k] as Json) && a[k] === e : sameKind(a[k] as Json, e) && contains(a[k] as Json, e, false)));
  }
  if (top && Array.isArray(a) && isScalar(b)) return a.some((x) => isScalar(x) && x === b);
  return isScalar(a) && isScalar(b) && a === b;
}
const hasKey = (x: Json, k: string): boolean => (isObj(x) ? Object.hasOwn(x, k) : Array.isArray(x) ? x.includes(k) : x === k);
function like(s: string, pattern: string, ci: boolean): boolean {
  const lower = (t: string) => (ci ? t.replace(/[A-Z]/g, (c) => c.toLowerCase()) : t);
  const esc = (c: string) => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const cps = [...lower(pattern)];
  let re = '';
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i] as string;
    re += c === '\\' ? esc(cps[++i] ?? '') : c === '%' ? '.*' : c === '_' ? '.' : esc(c);
  }
  return new RegExp(`^${re}$`, 'su').test(lower(s));
}
function parse(raw: string, ty: Ty): Json {
  return ty === 'int' ? Number(raw) : ty === 'bool' ? raw === 'true' || raw === 't' : ty === 'jsonb' ? (JSON.parse(raw) as Json) : raw;
}
function session(ref: string, w: World): string {
  const v = w.sv[ref.toLowerCase()];
  if (v === undefined) throw new Error(`test bug: no session variable ${ref}`);
  return v;
}
const typed = (v: Json, ty: Ty, w: World): Json =>
  isRef(v) ? parse(session(v as string, w), ty) : ty === 'int' ? Number(v) : ty === 'bool' ? v === true || v === 'true' || v === 't' : v;
function typedArray(v: Json, ty: Ty, w: World): Json[] {
  if (!isRef(v)) return (v as Json[]).map((x) => (x === null ? null : typed(x, ty, w)));
  const raw = session(v as string, w);
  const items: (string | null)[] = raw.trim().startsWith('[')
    ? (JSON.parse(raw) as Json[]).map((x) => (x === null ? null : typeof x === 'string' ? x : JSON.stringify(x)))
    : raw.slice(1, -1) === '' ? [] : raw.slice(1, -1).split(',').map((x) => (x.trim().toUpperCase() === 'NULL' ? null : x.trim()));
  return items.map((x) => (x === null ? null : parse(x, ty)));
}
const eq = (a: Json, b: Json, ty: Ty) => (ty === 'jsonb' ? jsonEq(a, b) : a === b);
const cmp = (a: Json, b: Json, ty: Ty) => (ty === 'text' ? cmpCodePoints(a as string, b as string) : Number(a) - Number(b));
function inList(x: Json, list: Json[], ty: Ty): T3 {
  if (list.length === 0) return false;
  if (x === null) return null;
  return list.some((e) => e !== null && eq(x, e, ty)) ? true : list.includes(null) ? null : false;
}

function evalOp(op: string, arg: Json, ty: Ty, row: Row, x: Json, w: World): T3 {
  const CMP: Record<string, (c: number) => boolean> = { gt: (c) => c > 0, lt: (c) => c < 0, gte: (c) => c >= 0, lte: (c) => c <= 0, eq: (c) => c === 0, ne: (c) => c !== 0, neq: (c) => c !== 0 };
  switch (op) {
    case '_eq': return arg === null ? x === null : x !== null && eq(x, typed(arg, ty, w), ty);
    case '_ne': case '_neq': return arg === null ? x !== null : !(x !== null && eq(x, typed(arg, ty, w), ty));
    case '_gt': case '_lt': case '_gte': case '_lte':
      return x === null ? null : (CMP[op.slice(1)] as (c: number) => boolean)(cmp(x, typed(arg, ty, w), ty));
    case '_in': return inList(x, typedArray(arg, ty, w), ty);
    case '_nin': return not3(inList(x, typedArray(arg, ty, w), ty));
    case '_like': case '_nlike': case '_ilike': case '_nilike': {
      if (x === null) return null;
      const m = like(x as string, typed(arg, 'text', w) as string, op.includes('ilike'));
      return op.startsWith('_n') ? !m : m;
    }
    case '_is_null': return arg === true ? x === null : x !== null;
    case '_ceq': case '_cne': case '_cneq': case '_cgt': case '_clt': case '_cgte': case '_clte': {
      const y = row[arg as string] as Json;
      return x === null || y === null ? null : (CMP[op.slice(2)] as (c: number) => boolean)(cmp(x, y, ty));
    }
    case '_contains': return x === null ? null : contains(x, typed(arg, 'jsonb', w), true);
    case '_contained_in': return x === null ? null : contains(typed(arg, 'jsonb', w), x, true);
    case '_has_key': return x === null ? null : hasKey(x, typed(arg, 'text', w) as string);
    case '_has_keys_any': return x === null ? null : typedArray(arg, 'text', w).some((k) => hasKey(x, k as string));
    case '_has_keys_all': return x === null ? null : typedArray(arg, 'text', w).every((k) => hasKey(x, k as string));
  }
  throw new Error(`test bug: operator ${op}`);
}

export function evalExp(exp: Json, tab: Tab, row: Row, w: World): T3 {
  return and3(Object.entries(exp as Row).map(([key, v]) => {
    const k = canon(key);
    if (k === '_and') return and3((v as Json[]).map((e) => evalExp(e, tab, row, w)));
    if (k === '_or') return or3((v as Json[]).map((e) => evalExp(e, tab, row, w)));
    if (k === '_not') return not3(evalExp(v, tab, row, w));
    if (k === '_exists') {
      const e = v as { _table: Json; _where: Json };
      const t = (typeof e._table === 'string' ? e._table : (e._table as Row)['name']) as Tab;
      return w[t].some((r) => evalExp(e._where, t, r, w) === true);
    }
    if (tab === 'item' && k === 'owner') return w.owner.some((o) => row['owner_id'] !== null && o['id'] === row['owner_id'] && evalExp(v, 'owner', o, w) === true);
    if (tab === 'owner' && k === 'items') return w.item.some((i) => i['owner_id'] === row['id'] && evalExp(v, 'item', i, w) === true);
    const ty = COLS[tab][k] as Ty;
    const x = row[k] as Json;
    if (!isObj(v)) return evalOp('_eq', v, ty, row, x, w);
    return and3(Object.entries(v).map(([op, arg]) => evalOp(canon(op), arg, ty, row, x, w)));
  }));
}

