import { compareCodePoints } from '../../metadata/json.js';
import { qnKey, qnQuoted } from '../../metadata/names.js';
import { foreignKeyColumns, relationshipJson } from '../../metadata/kinds/relationships.js';
import type { QualifiedName, RelKind, Relationship } from '../../metadata/types.js';
import { objectId, tablePrefix, withTable, type InconsistentObject } from '../inconsistency.js';
import type { ResolvedRelationship, ResolvedTable } from './resolved.js';

export type { ResolvedRelationship } from './resolved.js';
import type { DbCatalog } from '../db-catalog.js';

export const relType = (kind: RelKind): string => (kind === 'object' ? 'object_relation' : 'array_relation');
export const relId = (kind: RelKind, t: QualifiedName, name: string): string => objectId(relType(kind), t, name);

export const relPrefix = (t: QualifiedName, name: string): string => `${tablePrefix(t)}in relationship "${name}": `;

const missingColumn = (c: string, t: QualifiedName) => `column "${c}" does not exist in table ${qnQuoted(t)}`;

/** Resolves one relationship; returns the reason it fails, or its join. */
export function resolveRelationship(
  kind: RelKind, rel: Relationship, rt: ResolvedTable, tables: Map<string, ResolvedTable>, catalog: DbCatalog,
): ResolvedRelationship | string {
  const t = rt.entry.table;
  const u = rel.using;
  if ('manual_configuration' in u) {
    const m = u.manual_configuration;
    const remote = tables.get(qnKey(m.remote_table));
    if (!remote) return `table ${qnQuoted(m.remote_table)} does not exist`;
    const pairs = Object.entries(m.column_mapping);
    if (pairs.length === 0) return 'column mapping cannot be empty';
    for (const [local] of pairs) if (!rt.db.columns.has(local)) return missingColumn(local, t);
    for (const [, r] of pairs) if (!remote.db.columns.has(r)) return missingColumn(r, m.remote_table);
    return { kind, remote: m.remote_table, mapping: pairs };
  }
  const fk = u.foreign_key_constraint_on;
  const columns = foreignKeyColumns(fk);
  const noConstraint = `no foreign constraint exists on the given ${columns.length === 1 ? 'column' : 'columns'}`;
  if (typeof fk === 'string' || Array.isArray(fk)) {
    for (const c of columns) if (!rt.db.columns.has(c)) return missingColumn(c, t);
    const con = rt.db.fks.find((c) => sameColumns(c.columns, columns));
    if (!con) return noConstraint;
    const refDb = catalog.tablesByOid.get(con.refOid);
    const remote = refDb ? tables.get(qnKey(refDb)) : undefined;
    if (!refDb || !remote) return `table ${qnQuoted(refDb ?? { schema: 'public', name: con.refOid })} does not exist`;
    return { kind, remote: remote.entry.table, mapping: con.columns.map((c, i) => [c, con.refColumns[i] ?? '']) };
  }
  const remote = tables.get(qnKey(fk.table));
  if (!remote) return `table ${qnQuoted(fk.table)} does not exist`;
  for (const c of columns) if (!remote.db.columns.has(c)) return missingColumn(c, fk.table);
  const con = remote.db.fks.find((c) => sameColumns(c.columns, columns) && c.refOid === rt.db.oid);
  if (!con) return noConstraint;
  return { kind, remote: fk.table, mapping: con.columns.map((c, i) => [con.refColumns[i] ?? '', c]) };
}

/** A foreign key is named by its set of columns, in any order (the incumbent matches it so). */
const sameColumns = (a: string[], b: string[]): boolean => a.length === b.length && new Set([...a, ...b]).size === a.length && b.every((c) => a.includes(c));
export function relationshipRecord(kind: RelKind, t: QualifiedName, rel: Relationship, reason: string): InconsistentObject {
  return {
    id: relId(kind, t, rel.name), type: relType(kind),
    definition: withTable(t, relationshipJson(rel)), reason: relPrefix(t, rel.name) + reason,
  };
}

/** Resolves a table's relationships in export order; a name already taken is a conflict (§4.8.2 step 5). */
export function resolveRelationships(
  rt: ResolvedTable, tables: Map<string, ResolvedTable>, catalog: DbCatalog, out: InconsistentObject[],
): void {
  const t = rt.entry.table;
  for (const kind of ['object', 'array'] as const) {
    const list = kind === 'object' ? rt.entry.object_relationships : rt.entry.array_relationships;
    for (const rel of [...list].sort((a, b) => compareCodePoints(a.name, b.name))) {
      const taken = rt.fields.get(rel.name);
      const result = taken
        ? `"${rel.name}" conflicts with an existing ${taken} of table ${qnQuoted(t)}`
        : resolveRelationship(kind, rel, rt, tables, catalog);
      if (typeof result === 'string') {
        out.push(relationshipRecord(kind, t, rel, result));
        continue;
      }
      rt.fields.set(rel.name, 'relationship');
      rt.relationships.set(rel.name, result);
    }
  }
}
