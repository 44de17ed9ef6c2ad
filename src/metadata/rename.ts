import { qnEqual, qnKey } from './names.js';
import type { Metadata, QualifiedName, Relationship, TableEntry } from './types.js';

/**
 * Rewrites every reference to a renamed table or column (engine-api.md §4.1.1 step 5). Each metadata kind
 * contributes its own rewrite; entries are replaced, never mutated, so the previous metadata stays intact.
 */

const renameQn = (q: QualifiedName, from: QualifiedName, to: QualifiedName): QualifiedName => (qnEqual(q, from) ? to : q);

function relRenameTable(r: Relationship, from: QualifiedName, to: QualifiedName): Relationship {
  const u = r.using;
  if ('manual_configuration' in u) {
    const m = u.manual_configuration;
    return { ...r, using: { manual_configuration: { ...m, remote_table: renameQn(m.remote_table, from, to) } } };
  }
  const fk = u.foreign_key_constraint_on;
  if (typeof fk === 'string') return r;
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
    for (const [k, v] of Object.entries(m.column_mapping)) mapping[local ? col(k) : k] = remote ? col(v) : v;
    return { ...r, using: { manual_configuration: { ...m, column_mapping: mapping } } };
  }
  const fk = u.foreign_key_constraint_on;
  if (typeof fk === 'string') return qnEqual(owner, table) ? { ...r, using: { foreign_key_constraint_on: col(fk) } } : r;
  if (!qnEqual(fk.table, table)) return r;
  return { ...r, using: { foreign_key_constraint_on: { ...fk, column: col(fk.column) } } };
}

function mapRelationships(e: TableEntry, f: (r: Relationship) => Relationship): TableEntry {
  return { ...e, object_relationships: e.object_relationships.map(f), array_relationships: e.array_relationships.map(f) };
}

export function renameTable(md: Metadata, from: QualifiedName, to: QualifiedName): void {
  const entries = [...md.tables.values()];
  md.tables.clear();
  for (const e of entries) {
    const moved = mapRelationships({ ...e, table: renameQn(e.table, from, to) }, (r) => relRenameTable(r, from, to));
    md.tables.set(qnKey(moved.table), moved);
  }
}

export function renameColumn(md: Metadata, table: QualifiedName, from: string, to: string): void {
  for (const [k, e] of md.tables) md.tables.set(k, mapRelationships(e, (r) => relRenameColumn(r, e.table, table, from, to)));
}
