import { badRequest, parseFailed } from '../../errors.js';
import { compareCodePoints, isObject, setOwn, sortKeysDeep, type Json, type JsonObject } from '../json.js';
import { qnJson } from '../names.js';
import { arr, at, bool, columnList, comment, idx, int, obj, oneOf, opt, qualifiedName, req, roleName, str } from '../reader.js';
import type { PermKind, Permission, PermissionDef } from '../types.js';

/** The root fields a select permission may list (the incumbent's `query_root_fields` / `subscription_root_fields`). */
export const ROOT_FIELD_KINDS = {
  query_root_fields: ['select', 'select_by_pk', 'select_aggregate'],
  subscription_root_fields: ['select', 'select_by_pk', 'select_aggregate', 'select_stream'],
} as const;

function rootFields(v: unknown, path: string, allowed: readonly string[]): string[] {
  const out: string[] = [];
  arr(v, path).forEach((x, i) => {
    const f = oneOf(x, idx(path, i), allowed);
    if (!out.includes(f)) out.push(f);
  });
  return out;
}

/** Every key a permission of some kind reads; keys of another kind are ignored (engine-api.md §4.3.2). */
export const PERMISSION_KEYS: readonly string[] = [
  'check', 'set', 'columns', 'backend_only', 'computed_fields', 'filter', 'limit', 'allow_aggregations', ...Object.keys(ROOT_FIELD_KINDS),
];

/**
 * Keys no permission reads are refused, never dropped (issue 29 point 6); `backend_only: false` of update and delete
 * permissions (the incumbent writes it) is the engine's behaviour and accepted, `true` is not supported.
 */
function checkKeys(kind: PermKind, o: JsonObject, path: string): void {
  const unknown = Object.keys(o).filter((k) => !PERMISSION_KEYS.includes(k));
  if (unknown.length > 0) throw parseFailed(path, `unexpected keys in ${kind} permission: ${unknown.map((k) => `"${k}"`).join(', ')}`);
  if ((kind === 'update' || kind === 'delete') && opt(o, 'backend_only') !== undefined && bool(o['backend_only'], at(path, 'backend_only'))) {
    throw badRequest('not-supported', at(path, 'backend_only'), `backend-only ${kind} permissions are not supported`);
  }
}

/** Parses a permission object of the given kind (engine-api.md §4.3.2). BoolExps are validated later. */
export function parsePermissionDef(kind: PermKind, v: unknown, path: string): PermissionDef {
  const o = obj(v, path);
  checkKeys(kind, o, path);
  const def: PermissionDef = {};
  const set = () => {
    const sv = opt(o, 'set');
    if (sv === undefined) return {};
    return { ...obj(sv, at(path, 'set')) };
  };
  switch (kind) {
    case 'insert': {
      def.check = req(o, 'check', path);
      def.set = set();
      const cols = opt(o, 'columns');
      if (cols !== undefined) def.columns = columnList(cols, at(path, 'columns'));
      const bo = opt(o, 'backend_only');
      if (bo !== undefined && bool(bo, at(path, 'backend_only'))) def.backend_only = true;
      return def;
    }
    case 'select': {
      def.columns = columnList(req(o, 'columns', path), at(path, 'columns'));
      const cf = opt(o, 'computed_fields');
      def.computed_fields = cf === undefined ? [] : arr(cf, at(path, 'computed_fields')).map((c, i) => str(c, idx(at(path, 'computed_fields'), i)));
      def.filter = req(o, 'filter', path);
      const limit = opt(o, 'limit');
      if (limit !== undefined) def.limit = int(limit, at(path, 'limit'), 1);
      const agg = opt(o, 'allow_aggregations');
      def.allow_aggregations = agg === undefined ? false : bool(agg, at(path, 'allow_aggregations'));
      for (const [key, allowed] of Object.entries(ROOT_FIELD_KINDS)) {
        const rf = opt(o, key);
        if (rf !== undefined && rf !== null) def[key as keyof typeof ROOT_FIELD_KINDS] = rootFields(rf, at(path, key), allowed);
      }
      return def;
    }
    case 'update':
      def.columns = columnList(req(o, 'columns', path), at(path, 'columns'));
      def.filter = req(o, 'filter', path);
      def.check = opt(o, 'check') ?? null;
      def.set = set();
      return def;
    case 'delete':
      def.filter = req(o, 'filter', path);
      return def;
  }
}

/** A permission entry of table metadata: {"role","permission","comment"?}. */
export function parsePermission(kind: PermKind, v: unknown, path: string): Permission {
  const o = obj(v, path);
  return {
    role: roleName(req(o, 'role', path), at(path, 'role')),
    permission: parsePermissionDef(kind, req(o, 'permission', path), at(path, 'permission')),
    comment: comment(o, path),
  };
}

const EXISTS = new Set(['_exists', '$exists']);

/**
 * The canonical form of a BoolExp (§6.2–§6.3): keys sorted at every level, operators kept as written, and
 * `_exists._table` in the QT form {"schema","name"} however it was given.
 */
export function canonicalBoolExp(v: Json | undefined): Json {
  if (Array.isArray(v)) return v.map(canonicalBoolExp);
  if (!isObject(v)) return v === undefined ? {} : v;
  const out: JsonObject = {};
  for (const k of Object.keys(v).sort(compareCodePoints)) {
    const x = v[k] as Json;
    if (EXISTS.has(k) && isObject(x) && x['_table'] !== undefined) {
      let table: Json = x['_table'];
      try {
        table = qnJson(qualifiedName(x['_table'], '$'));
      } catch {
        // Left as given: validation reports the malformed `_exists`.
      }
      const rest = canonicalBoolExp({ ...x, _table: null }) as JsonObject;
      setOwn(out, k, Object.fromEntries(Object.entries(rest).map(([rk, rv]) => [rk, rk === '_table' ? table : rv])));
    } else setOwn(out, k, canonicalBoolExp(x));
  }
  return out;
}

const boolExp = canonicalBoolExp;

export function permissionDefJson(kind: PermKind, p: PermissionDef): JsonObject {
  const out: JsonObject = {};
  const hasSet = p.set && Object.keys(p.set).length > 0;
  switch (kind) {
    case 'insert':
      out['check'] = boolExp(p.check ?? {});
      if (hasSet) out['set'] = sortKeysDeep(p.set as JsonObject);
      if (p.columns !== undefined) out['columns'] = p.columns;
      if (p.backend_only) out['backend_only'] = true;
      break;
    case 'select':
      out['columns'] = p.columns ?? [];
      if (p.computed_fields && p.computed_fields.length > 0) out['computed_fields'] = p.computed_fields;
      out['filter'] = boolExp(p.filter);
      if (p.limit !== undefined) out['limit'] = p.limit;
      if (p.allow_aggregations) out['allow_aggregations'] = true;
      if (p.query_root_fields) out['query_root_fields'] = [...p.query_root_fields];
      if (p.subscription_root_fields) out['subscription_root_fields'] = [...p.subscription_root_fields];
      break;
    case 'update':
      out['columns'] = p.columns ?? [];
      out['filter'] = boolExp(p.filter);
      out['check'] = p.check === null || p.check === undefined ? null : boolExp(p.check);
      if (hasSet) out['set'] = sortKeysDeep(p.set as JsonObject);
      break;
    case 'delete':
      out['filter'] = boolExp(p.filter);
      break;
  }
  return out;
}

export function permissionJson(kind: PermKind, p: Permission): JsonObject {
  const out: JsonObject = { role: p.role, permission: permissionDefJson(kind, p.permission) };
  if (p.comment !== null) out['comment'] = p.comment;
  return out;
}

export const permField = (kind: PermKind): `${PermKind}_permissions` => `${kind}_permissions`;
