import type { Metadata, QualifiedName, TableEntry } from '../metadata/types.js';
import { qnJson, qnKey, qnQuoted } from '../metadata/names.js';
import { sortedFunctions, sortedTables } from '../metadata/document.js';
import type { DbCatalog, DbTable } from './db-catalog.js';
import { objectId, type InconsistentObject } from './inconsistency.js';
import { resolveRelationships, type ResolvedRelationship } from './kinds/relationships.js';
import { resolveFunction } from './kinds/functions.js';

export type FieldKind = 'column' | 'relationship' | 'computed field';

/** A consistent tracked table as the GraphQL layer and the BoolExp validator will see it. */
export interface ResolvedTable {
  entry: TableEntry;
  db: DbTable;
  /** Every name taken on the table: columns, then consistent relationships (and later computed fields). */
  fields: Map<string, FieldKind>;
  relationships: Map<string, ResolvedRelationship>;
}

/** The metadata resolved against the database catalog (engine-api.md §3.4). Immutable once built. */
export interface SchemaCache {
  metadata: Metadata;
  catalog: DbCatalog;
  tables: Map<string, ResolvedTable>;
  inconsistent: InconsistentObject[];
  inconsistentIds: Set<string>;
}

export const tableId = (t: QualifiedName): string => objectId('table', t, '');

export function resolve(metadata: Metadata, catalog: DbCatalog): SchemaCache {
  const inconsistent: InconsistentObject[] = [];
  const tables = new Map<string, ResolvedTable>();
  const ordered = sortedTables(metadata);
  // Pass 1: which tracked tables exist, so that relationships can tell a tracked table from a missing one.
  for (const entry of ordered) {
    const db = catalog.tables.get(qnKey(entry.table));
    if (!db) continue;
    const fields = new Map<string, FieldKind>();
    for (const c of db.columns.keys()) fields.set(c, 'column');
    tables.set(qnKey(entry.table), { entry, db, fields, relationships: new Map() });
  }
  // Pass 2: children, recorded in export order.
  for (const entry of ordered) {
    const rt = tables.get(qnKey(entry.table));
    if (!rt) {
      inconsistent.push({
        id: tableId(entry.table), type: 'table', definition: qnJson(entry.table),
        reason: `no such table/view exists in postgres : ${qnQuoted(entry.table)}`,
      });
      continue;
    }
    resolveRelationships(rt, tables, catalog, inconsistent);
  }
  for (const fn of sortedFunctions(metadata)) {
    const problem = resolveFunction(fn, catalog, tables);
    if (problem) inconsistent.push(problem);
  }
  return { metadata, catalog, tables, inconsistent, inconsistentIds: new Set(inconsistent.map((o) => o.id)) };
}
