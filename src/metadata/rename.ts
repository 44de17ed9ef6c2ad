import { isObject, setOwn, type Json, type JsonObject } from './json.js';
import { qnEqual, qnJson, qnKey } from './names.js';
import { qualifiedName } from './reader.js';
import { permField } from './kinds/permissions.js';
import { PERM_KINDS, type ColumnList, type EventTrigger, type Metadata, type Permission, type QualifiedName, type Relationship, type RemoteForeignKey, type TableEntry } from './types.js';

/**
 * Rewrites every reference to a renamed table or column (engine-api.md §4.1.1 step 5): table keys, remote
 * tables, `_exists`, column lists, BoolExp keys and `_c*` operands, presets, relationship mappings, event-trigger
 * columns, custom-type `field_mapping` and `remote_table`. Entries are replaced, never mutated.
 */

/** Which table a relationship of a table leads to (BoolExp keys that are relationships are not columns). */
export type RemoteOf = (table: QualifiedName, relationship: string) => QualifiedName | undefined;

const renameQn = (q: QualifiedName, from: QualifiedName, to: QualifiedName): QualifiedName => (qnEqual(q, from) ? to : q);

function relRenameTable(r: Relationship, from: QualifiedName, to: QualifiedName): Relationship {
  const u = r.using;
  if ('manual_configuration' in u) {
    const m = u.manual_configuration;
    return { ...r, using: { manual_configuration: { ...m, remote_table: renameQn(m.remote_table, from, to) } } };
  }
  const fk = u.foreign_key_constraint_on;
  if (typeof fk === 'string' || Array.isArray(fk)) return r;
  return { ...r, using: { foreign_key_constraint_on: { ...fk, table: renameQn(fk.table, from, to) } } };
}

function relRenameColumn(r: Relationship, owner: QualifiedName, table: QualifiedName, from: string, to: string): Relationship {
  const u = r.using;
  const col = (c: string) => (c === from ? to : c);
  if ('manual_configuration' in u) {
    const m = u.manual_configuration;
    const local = qnEqual(owner, table);
    const remote = qnEqual(m.remote_table, table);
    if (!local && !remote) return r;
    const mapping: Record<string, string> = {};
    for (const [k, v] of Object.entries(m.column_mapping)) setOwn(mapping, local ? col(k) : k, remote ? col(v) : v);
    return { ...r, using: { manual_configuration: { ...m, column_mapping: mapping } } };
  }
  const fk = u.foreign_key_constraint_on;
  if (typeof fk === 'string') return qnEqual(owner, table) ? { ...r, using: { foreign_key_constraint_on: col(fk) } } : r;
  if (Array.isArray(fk)) return qnEqual(owner, table) ? { ...r, using: { foreign_key_constraint_on: fk.map(col) } } : r;
  if (!qnEqual(fk.table, table)) return r;
  const renamed: RemoteForeignKey = 'columns' in fk ? { table: fk.table, columns: fk.columns.map(col) } : { table: fk.table, column: col(fk.column) };
  return { ...r, using: { foreign_key_constraint_on: renamed } };
}

const LOGICAL_LIST = new Set(['_and', '$and', '_or', '$or']);
const NOT = new Set(['_not', '$not']);
const EXISTS = new Set(['_exists', '$exists']);
const COLUMN_OPS = /^[_$]c(eq|ne|neq|gt|lt|gte|lte)$/;

interface ColumnRename { table: QualifiedName; from: string; to: string; remoteOf: RemoteOf }

/** A `_c*` operand naming the renamed column: `"col"` / `["col"]` on `at`, `["$", "col"]` on the root table. */
function renameOperand(x: Json, at: QualifiedName, root: QualifiedName, r: ColumnRename): Json {
  if (typeof x === 'string') return qnEqual(at, r.table) && x === r.from ? r.to : x;
  if (!Array.isArray(x)) return x;
  if (x.length === 1 && x[0] === r.from && qnEqual(at, r.table)) return [r.to];
  if (x.length === 2 && x[0] === '$' && x[1] === r.from && qnEqual(root, r.table)) return ['$', r.to];
  return x;
}

/**
 * Walks a BoolExp evaluated on `at` (`root`: the table of the whole expression), rewriting keys and `_c*` operands
 * that name the renamed column.
 */
function boolExpColumn(exp: Json, at: QualifiedName, r: ColumnRename, root: QualifiedName = at): Json {
  if (!isObject(exp)) return exp;
  const here = qnEqual(at, r.table);
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(exp)) {
    if (LOGICAL_LIST.has(k) && Array.isArray(v)) setOwn(out, k, v.map((x) => boolExpColumn(x, at, r, root)));
    else if (NOT.has(k)) setOwn(out, k, boolExpColumn(v, at, r, root));
    else if (EXISTS.has(k) && isObject(v)) {
      let target: QualifiedName | null = null;
      try {
        target = qualifiedName(v['_table'], '$');
      } catch {
        target = null;
      }
      setOwn(out, k, target ? { ...v, _where: boolExpColumn(v['_where'] as Json, target, r, root) } : v);
    } else {
      const remote = r.remoteOf(at, k);
      if (remote) setOwn(out, k, boolExpColumn(v, remote, r, root));
      else {
        const ops = isObject(v)
          ? Object.fromEntries(Object.entries(v).map(([op, x]) => [op, COLUMN_OPS.test(op) ? renameOperand(x as Json, at, root, r) : x]))
          : v;
        setOwn(out, here && k === r.from ? r.to : k, ops);
      }
    }
  }
  return out;
}

/** Rewrites `_exists._table` names (stored in the object form afterwards). */
function boolExpTable(exp: Json, from: QualifiedName, to: QualifiedName): Json {
  if (Array.isArray(exp)) return exp.map((x) => boolExpTable(x, from, to));
  if (!isObject(exp)) return exp;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(exp)) {
    if (EXISTS.has(k) && isObject(v)) {
      let t: QualifiedName | null = null;
      try {
        t = qualifiedName(v['_table'], '$');
      } catch {
        t = null;
      }
      setOwn(out, k, { ...v, ...(t && qnEqual(t, from) ? { _table: qnJson(to) } : {}), _where: boolExpTable(v['_where'] as Json, from, to) });
    } else setOwn(out, k, boolExpTable(v, from, to));
  }
  return out;
}

const renameList = (l: ColumnList | undefined, from: string, to: string): ColumnList | undefined =>
  Array.isArray(l) ? l.map((c) => (c === from ? to : c)) : l;

function permRenameColumn(p: Permission, owner: QualifiedName, r: ColumnRename): Permission {
  const d = p.permission;
  const here = qnEqual(owner, r.table);
  const next = { ...d };
  if (here && d.columns !== undefined) next.columns = renameList(d.columns, r.from, r.to) as ColumnList;
  if (here && d.set) next.set = Object.fromEntries(Object.entries(d.set).map(([k, v]) => [k === r.from ? r.to : k, v]));
  if (d.filter !== undefined) next.filter = boolExpColumn(d.filter, owner, r);
  if (d.check !== undefined && d.check !== null) next.check = boolExpColumn(d.check, owner, r);
  return { ...p, permission: next };
}

function etRenameColumn(et: EventTrigger, from: string, to: string): EventTrigger {
  const def = { ...et.definition };
  for (const op of ['insert', 'update', 'delete'] as const) {
    const s = def[op];
    if (!s) continue;
    def[op] = { columns: renameList(s.columns, from, to) as ColumnList, ...(s.payload !== undefined ? { payload: renameList(s.payload, from, to) as ColumnList } : {}) };
  }
  return { ...et, definition: def };
}

function mapEntry(e: TableEntry, rel: (r: Relationship) => Relationship, perm: (p: Permission) => Permission, et: (x: EventTrigger) => EventTrigger): TableEntry {
  const out: TableEntry = { ...e, object_relationships: e.object_relationships.map(rel), array_relationships: e.array_relationships.map(rel), event_triggers: e.event_triggers.map(et) };
  for (const kind of PERM_KINDS) out[permField(kind)] = e[permField(kind)].map(perm);
  return out;
}

function mapCustomObjects(md: Metadata, f: (rel: JsonObject) => JsonObject): void {
  const objects = md.custom_types.objects.map((o) => {
    const ob = o as JsonObject;
    const rels = ob['relationships'] as JsonObject[] | undefined;
    return rels ? { ...ob, relationships: rels.map(f) } : ob;
  });
  md.custom_types = { ...md.custom_types, objects };
}

export function renameTable(md: Metadata, from: QualifiedName, to: QualifiedName): void {
  const entries = [...md.tables.values()];
  md.tables.clear();
  for (const e of entries) {
    const moved = mapEntry({ ...e, table: renameQn(e.table, from, to) }, (r) => relRenameTable(r, from, to), (p) => ({
      ...p,
      permission: {
        ...p.permission,
        ...(p.permission.filter !== undefined ? { filter: boolExpTable(p.permission.filter, from, to) } : {}),
        ...(p.permission.check !== undefined && p.permission.check !== null ? { check: boolExpTable(p.permission.check, from, to) } : {}),
      },
    }), (x) => x);
    md.tables.set(qnKey(moved.table), moved);
  }
  mapCustomObjects(md, (rel) => {
    const t = rel['remote_table'] as unknown as QualifiedName;
    return qnEqual(t, from) ? { ...rel, remote_table: qnJson(to) } : rel;
  });
  mapToSource(md, (s) => {
    const t = sourceTable(s);
    return t && qnEqual(t, from) ? { ...s, table: qnJson(to) } : s;
  });
}

/** `$from` → `$to` in a remote relationship's arguments (the incumbent renames the variable too). */
function renameArgVariable(v: Json, from: string, to: string): Json {
  if (v === `$${from}`) return `$${to}`;
  if (Array.isArray(v)) return v.map((x) => renameArgVariable(x, from, to));
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, renameArgVariable(x, from, to)]));
  return v;
}

/** A table's remote relationship (either form) with a renamed join column. */
function remoteRelRenameColumn(entry: JsonObject, from: string, to: string): JsonObject {
  const d = entry['definition'];
  if (!isObject(d)) return entry;
  const inner = isObject(d['to_remote_schema']) ? d['to_remote_schema'] : d;
  const key = inner === d ? 'hasura_fields' : 'lhs_fields';
  const cols = inner[key];
  const renamed: JsonObject = {
    ...inner,
    ...(Array.isArray(cols) ? { [key]: cols.map((c) => (c === from ? to : c)) } : {}),
    ...(inner['remote_field'] !== undefined ? { remote_field: renameArgVariable(inner['remote_field'] as Json, from, to) } : {}),
  };
  return { ...entry, definition: inner === d ? renamed : { ...d, to_remote_schema: renamed } };
}

/** The `to_source` relationships of remote schemas' types, each through `f`. */
function mapToSource(md: Metadata, f: (source: JsonObject) => JsonObject): void {
  for (const [name, r] of md.remote_schemas) {
    if (r.remote_relationships.length === 0) continue;
    const groups = r.remote_relationships.map((g) => ({
      ...g,
      relationships: ((g['relationships'] ?? []) as JsonObject[]).map((rel) => {
        const d = rel['definition'];
        return isObject(d) && isObject(d['to_source']) ? { ...rel, definition: { ...d, to_source: f(d['to_source']) } } : rel;
      }),
    }));
    md.remote_schemas.set(name, { ...r, remote_relationships: groups });
  }
}

const sourceTable = (s: JsonObject): QualifiedName | null => {
  try {
    return qualifiedName(s['table'], '$');
  } catch {
    return null;
  }
};

export function renameColumn(md: Metadata, table: QualifiedName, from: string, to: string, remoteOf: RemoteOf): void {
  const r: ColumnRename = { table, from, to, remoteOf };
  for (const [k, e] of md.tables) {
    const here = qnEqual(e.table, table);
    const moved = mapEntry(e, (rel) => relRenameColumn(rel, e.table, table, from, to), (p) => permRenameColumn(p, e.table, r),
      (et) => (here ? etRenameColumn(et, from, to) : et));
    const remote = here ? e.extras?.remote_relationships : undefined;
    md.tables.set(k, remote ? { ...moved, extras: { ...e.extras, remote_relationships: remote.map((x) => remoteRelRenameColumn(x, from, to)) } } : moved);
  }
  mapToSource(md, (s) => {
    const t = sourceTable(s);
    const m = s['field_mapping'];
    if (!t || !qnEqual(t, table) || !isObject(m)) return s;
    return { ...s, field_mapping: Object.fromEntries(Object.entries(m).map(([f, c]) => [f, c === from ? to : c])) };
  });
  mapCustomObjects(md, (rel) => {
    if (!qnEqual(rel['remote_table'] as unknown as QualifiedName, table)) return rel;
    const mapping = rel['field_mapping'] as Record<string, string>;
    return { ...rel, field_mapping: Object.fromEntries(Object.entries(mapping).map(([f, c]) => [f, c === from ? to : c])) };
  });
}
