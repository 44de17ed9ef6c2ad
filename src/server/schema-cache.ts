import type { Action, Metadata, QualifiedName, TableEntry } from '../metadata/types.js';
import { PERM_KINDS } from '../metadata/types.js';
import { compareCodePoints } from '../metadata/json.js';
import { VersionedMap } from '../metadata/versioned-map.js';
import { qnJson, qnKey, qnQuoted } from '../metadata/names.js';
import { sortedFunctions, sortedTables } from '../metadata/document.js';
import { permField } from '../metadata/kinds/permissions.js';
import type { DbCatalog } from './db-catalog.js';
import { objectId, type InconsistentObject } from './inconsistency.js';
import type { BoolExpSchema } from './bool-exp/schema.js';
import { resolveRelationships } from './kinds/relationships.js';
import { resolveFunction } from './kinds/functions.js';
import { cfRecord, resolveComputedField } from './kinds/computed-fields.js';
import { boolExpTable, permRecord, resolvePermission } from './kinds/permissions.js';
import { etRecord, resolveEventTrigger } from './kinds/event-triggers.js';
import { customTypeReasons, customTypesRecord, typeKinds, type TypeKind } from './kinds/custom-types.js';
import { actionPermRecord, actionReason, actionRecord } from './kinds/actions.js';
import { configurationReason, enumShapeReason } from './kinds/tables.js';
import type { FieldKind, ResolvedTable } from './kinds/resolved.js';

export type { FieldKind, ResolvedTable } from './kinds/resolved.js';

/** The metadata resolved against the database catalog (engine-api.md §3.4). Immutable once built. */
export interface SchemaCache {
  metadata: Metadata;
  catalog: DbCatalog;
  tables: Map<string, ResolvedTable>;
  /** Types actions may use (empty of custom types when the custom types are inconsistent). */
  types: Map<string, TypeKind>;
  consistentActions: Set<string>;
  inconsistent: InconsistentObject[];
  inconsistentIds: Set<string>;
  /** Table keys in export order, and each table's records (pass 2 and pass 3): reused by incremental resolves. */
  order: string[];
  tableRecords: Map<string, TableRecords>;
  /** Why each inconsistent tracked table that exists is inconsistent (its configuration or enum shape). */
  tableReasons: Map<string, string>;
  /** How many records at the start of `inconsistent` are those of tables and their objects. */
  tablePart: number;
  /** The consistent remote schemas, introspected (issue 35; set by resolve.ts). */
  remotes?: Map<string, import('./remote-schemas/types.js').RemoteIntrospection>;
  /** The consistent tables' consistent remote relationships by table key (issue 35.3; set by resolve.ts). */
  remoteRels?: Map<string, import('./remote-schemas/relationships.js').RemoteRel[]>;
  /** The consistent remote schemas' relationships to tables (`to_source`) by remote name (issue 35.3). */
  remoteToTable?: Map<string, import('./remote-schemas/to-table.js').ToTableRel[]>;
}

interface TableRecords {
  early: InconsistentObject[];
  late: InconsistentObject[];
}

export const tableId = (t: QualifiedName): string => objectId('table', t, '');
export const permKey = (kind: string, role: string): string => `${kind}:${role}`;

export const boolExpSchema = (tables: Map<string, ResolvedTable>): BoolExpSchema => ({
  table(name) {
    const rt = tables.get(qnKey(name));
    return rt ? boolExpTable(rt) : undefined;
  },
});

/**
 * Resolves the metadata against the catalog. Given the previous cache over the same catalog, only the tables
 * whose entries changed are resolved again, provided the change cannot affect other tables (only permissions,
 * event triggers or comments of a table changed): so one change costs the same at 10 or 10,000 tables.
 */
export function resolve(metadata: Metadata, catalog: DbCatalog, prev?: SchemaCache): SchemaCache {
  const changed = prev ? changedTables(prev, metadata, catalog) : null;
  if (!prev || !changed) return resolveAll(metadata, catalog);
  const tables = VersionedMap.of(prev.tables);
  const tableRecords = VersionedMap.of(prev.tableRecords);
  const schema = boolExpSchema(tables);
  for (const key of changed) {
    const entry = metadata.tables.get(key) as TableEntry;
    const old = prev.tables.get(key);
    if (!old) continue;
    const rt: ResolvedTable = { ...old, entry, permissions: new Map(), eventTriggers: new Set() };
    tables.set(key, rt);
    tableRecords.set(key, { early: prev.tableRecords.get(key)?.early ?? [], late: resolveLate(rt, schema) });
  }
  return finish(metadata, catalog, tables, prev.order, tableRecords, prev.tableReasons, { prev, changed });
}

/** Keys of the changed tables when an incremental resolve is safe, else null. */
function changedTables(prev: SchemaCache, md: Metadata, catalog: DbCatalog): string[] | null {
  if (prev.catalog !== catalog || prev.metadata.tables.size !== md.tables.size) return null;
  const out: string[] = [];
  for (const key of VersionedMap.changedKeys(prev.metadata.tables, md.tables) ?? md.tables.keys()) {
    const old = prev.metadata.tables.get(key);
    const entry = md.tables.get(key);
    if (!old || !entry) return null;
    if (old === entry) continue;
    if (old.object_relationships !== entry.object_relationships || old.array_relationships !== entry.array_relationships ||
        old.computed_fields !== entry.computed_fields || old.extras !== entry.extras) return null;
    out.push(key);
  }
  return out;
}

function resolveAll(metadata: Metadata, catalog: DbCatalog): SchemaCache {
  const tables = VersionedMap.of(new Map<string, ResolvedTable>());
  const ordered = sortedTables(metadata);
  const tableReasons = new Map<string, string>();
  // Pass 1: which tracked tables exist, so that references can tell a tracked table from a missing one.
  for (const entry of ordered) {
    const db = catalog.tables.get(qnKey(entry.table));
    if (!db) continue;
    const reason = configurationReason(entry, db) ?? enumShapeReason(entry, db);
    if (reason) {
      tableReasons.set(qnKey(entry.table), reason);
      continue;
    }
    const fields = new Map<string, FieldKind>();
    for (const c of db.columns.keys()) fields.set(c, 'column');
    tables.set(qnKey(entry.table), {
      entry, db, fields, relationships: new Map(), computedFields: new Map(), permissions: new Map(), eventTriggers: new Set(),
    });
  }
  // Pass 2: relationships and computed fields, which BoolExps of every table may then use.
  const tableRecords = VersionedMap.of(new Map<string, TableRecords>());
  for (const rt of tables.values()) {
    const early: InconsistentObject[] = [];
    resolveRelationships(rt, tables, catalog, early);
    const t = rt.entry.table;
    for (const cf of [...rt.entry.computed_fields].sort((a, b) => compareCodePoints(a.name, b.name))) {
      const taken = rt.fields.get(cf.name);
      const r = taken ? `"${cf.name}" conflicts with an existing ${taken} of table ${qnQuoted(t)}` : resolveComputedField(cf, rt, catalog, tables);
      if (typeof r === 'string') early.push(cfRecord(t, cf, r));
      else {
        rt.fields.set(cf.name, 'computed field');
        rt.computedFields.set(cf.name, r);
      }
    }
    tableRecords.set(qnKey(t), { early, late: [] });
  }
  // Pass 3: permissions and event triggers.
  const schema = boolExpSchema(tables);
  for (const [key, rt] of tables) {
    const rec = tableRecords.get(key);
    if (rec) rec.late = resolveLate(rt, schema);
  }
  return finish(metadata, catalog, tables, ordered.map((e) => qnKey(e.table)), tableRecords, tableReasons);
}

/** Pass 3 of one table: its permissions and event triggers, in export order. */
function resolveLate(rt: ResolvedTable, schema: BoolExpSchema): InconsistentObject[] {
  const out: InconsistentObject[] = [];
  const entry = rt.entry;
  for (const kind of PERM_KINDS) {
    for (const p of [...entry[permField(kind)]].sort((a, b) => compareCodePoints(a.role, b.role))) {
      const r = resolvePermission(kind, p, rt, schema);
      if (typeof r === 'string') out.push(permRecord(kind, entry.table, p, r));
      else rt.permissions.set(permKey(kind, p.role), r);
    }
  }
  for (const et of [...entry.event_triggers].sort((a, b) => compareCodePoints(a.name, b.name))) {
    const reason = resolveEventTrigger(et, rt);
    if (reason) out.push(etRecord(entry.table, et, reason));
    else rt.eventTriggers.add(et.name);
  }
  return out;
}

/** Records in export order, then the objects outside tables (functions, actions, custom types). */
function finish(
  metadata: Metadata, catalog: DbCatalog, tables: Map<string, ResolvedTable>, order: string[],
  tableRecords: Map<string, TableRecords>, tableReasons: Map<string, string>, since?: { prev: SchemaCache; changed: string[] },
): SchemaCache {
  const inconsistent = since && sameTableRecords(since.prev, since.changed, tables, tableRecords)
    ? since.prev.inconsistent.slice(0, since.prev.tablePart)
    : tableInconsistencies(metadata, tables, order, tableRecords, tableReasons);
  const tablePart = inconsistent.length;
  for (const fn of sortedFunctions(metadata)) {
    const problem = resolveFunction(fn, catalog, tables);
    if (problem) inconsistent.push(problem);
  }
  const ctReasons = customTypeReasons(metadata.custom_types, catalog, tables);
  const types = typeKinds(ctReasons.length > 0 ? { input_objects: [], objects: [], scalars: [], enums: [], argumentFields: [] } : metadata.custom_types, catalog);
  const consistentActions = resolveActions([...metadata.actions.values()], types, inconsistent);
  if (ctReasons.length > 0) inconsistent.push(customTypesRecord(metadata.custom_types, ctReasons));
  return {
    metadata, catalog, tables, types, consistentActions, inconsistent,
    inconsistentIds: new Set(inconsistent.map((o) => o.id)), order, tableRecords, tableReasons, tablePart,
  };
}

const noRecords = (r: TableRecords | undefined): boolean => r !== undefined && r.early.length === 0 && r.late.length === 0;

/** Did the changed tables, consistent before and after, have no records either time? Then the others' stand. */
function sameTableRecords(prev: SchemaCache, changed: string[], tables: Map<string, ResolvedTable>, records: Map<string, TableRecords>): boolean {
  return changed.every((k) => tables.has(k) && prev.tables.has(k) && noRecords(prev.tableRecords.get(k)) && noRecords(records.get(k)));
}

/** The records of the tables and their objects, in export order. */
function tableInconsistencies(
  metadata: Metadata, tables: Map<string, ResolvedTable>, order: string[], tableRecords: Map<string, TableRecords>,
  tableReasons: Map<string, string>,
): InconsistentObject[] {
  const inconsistent: InconsistentObject[] = [];
  for (const key of order) {
    const rec = tableRecords.get(key);
    if (rec && tables.has(key)) {
      inconsistent.push(...rec.early, ...rec.late);
      continue;
    }
    const entry = metadata.tables.get(key);
    if (!entry) continue;
    inconsistent.push({
      id: tableId(entry.table), type: 'table', definition: qnJson(entry.table),
      reason: tableReasons.get(key) ?? `no such table/view exists in postgres : ${qnQuoted(entry.table)}`,
    });
  }
  return inconsistent;
}

function resolveActions(actions: Action[], types: Map<string, TypeKind>, out: InconsistentObject[]): Set<string> {
  const ok = new Set<string>();
  for (const a of actions.sort((x, y) => compareCodePoints(x.name, y.name))) {
    const reason = actionReason(a, types);
    if (reason) {
      out.push(actionRecord(a, reason));
      continue;
    }
    ok.add(a.name);
    for (const p of [...a.permissions].sort((x, y) => compareCodePoints(x.role, y.role))) {
      if (p.role === 'admin') out.push(actionPermRecord(a.name, p, 'cannot define permission for admin role'));
    }
  }
  return ok;
}
