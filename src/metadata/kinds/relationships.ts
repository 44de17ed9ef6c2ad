import { parseFailed } from '../../errors.js';
import { isObject, setOwn, sortKeysDeep, type Json, type JsonObject } from '../json.js';
import { arr, at, comment, exclusive, graphqlName, idx, obj, oneOf, opt, qualifiedName, req, str } from '../reader.js';
import { qnJson } from '../names.js';
import type { ManualConfiguration, ObjectForeignKey, RelKind, Relationship, RemoteForeignKey } from '../types.js';

function manualConfiguration(v: unknown, path: string): ManualConfiguration {
  const o = obj(v, path);
  const remote_table = qualifiedName(req(o, 'remote_table', path), at(path, 'remote_table'));
  const mappingPath = at(path, 'column_mapping');
  const mapping = obj(req(o, 'column_mapping', path), mappingPath);
  const column_mapping: Record<string, string> = {};
  for (const [k, col] of Object.entries(mapping)) setOwn(column_mapping, k, str(col, at(mappingPath, k)));
  const io = opt(o, 'insertion_order');
  if (io === undefined || io === null) return { remote_table, column_mapping };
  return { remote_table, column_mapping, insertion_order: oneOf(io, at(path, 'insertion_order'), ['before_parent', 'after_parent']) as 'before_parent' | 'after_parent' };
}

function columnNames(v: unknown, path: string): string[] {
  const list = arr(v, path).map((c, i) => str(c, idx(path, i)));
  if (list.length === 0) throw parseFailed(path, 'expected at least one column');
  return list;
}

/** `{table, column}` or `{table, columns}`: a foreign key of the remote table referencing this one, kept as written. */
function remoteForeignKey(v: unknown, path: string): RemoteForeignKey {
  const o = obj(v, path);
  const table = qualifiedName(req(o, 'table', path), at(path, 'table'));
  if (exclusive(o, 'column', 'columns', path) === 'column') return { table, column: str(o['column'], at(path, 'column')) };
  // The incumbent also takes `columns` naming one column as a string: that is the one-column form.
  if (typeof o['columns'] === 'string') return { table, column: o['columns'] };
  return { table, columns: columnNames(o['columns'], at(path, 'columns')) };
}

/** The columns a foreign-key reference names: this table's (a string or list) or the remote table's. */
export function foreignKeyColumns(fk: ObjectForeignKey): string[] {
  if (typeof fk === 'string') return [fk];
  if (Array.isArray(fk)) return fk;
  return 'columns' in fk ? fk.columns : [fk.column];
}

/** Parses `using` of a relationship of the given kind (engine-api.md §4.2; the incumbent's forms, issue 29 point 5). */
export function parseUsing(kind: RelKind, v: unknown, path: string): Relationship['using'] {
  const o = obj(v, path);
  const which = exclusive(o, 'foreign_key_constraint_on', 'manual_configuration', path);
  if (which === 'manual_configuration') {
    return { manual_configuration: manualConfiguration(o['manual_configuration'], at(path, 'manual_configuration')) };
  }
  const fkPath = at(path, 'foreign_key_constraint_on');
  const fk = o['foreign_key_constraint_on'];
  if (kind === 'object') {
    if (typeof fk === 'string') return { foreign_key_constraint_on: fk };
    if (Array.isArray(fk)) return { foreign_key_constraint_on: columnNames(fk, fkPath) };
    if (!isObject(fk)) throw parseFailed(fkPath, 'expected a column name, a list of column names or {table, columns}');
  }
  return { foreign_key_constraint_on: remoteForeignKey(fk, fkPath) };
}

/** A relationship entry as stored in metadata: {"name","using","comment"?}. */
export function parseRelationship(kind: RelKind, v: unknown, path: string): Relationship {
  const o = obj(v, path);
  return {
    name: graphqlName(req(o, 'name', path), at(path, 'name')),
    using: parseUsing(kind, req(o, 'using', path), at(path, 'using')),
    comment: comment(o, path),
  };
}

export function usingJson(u: Relationship['using']): JsonObject {
  if ('manual_configuration' in u) {
    const m = u.manual_configuration;
    return {
      manual_configuration: {
        remote_table: qnJson(m.remote_table),
        column_mapping: sortKeysDeep(m.column_mapping) as JsonObject,
        ...(m.insertion_order ? { insertion_order: m.insertion_order } : {}),
      },
    };
  }
  const fk = u.foreign_key_constraint_on;
  if (typeof fk === 'string') return { foreign_key_constraint_on: fk };
  if (Array.isArray(fk)) return { foreign_key_constraint_on: [...fk] };
  return {
    foreign_key_constraint_on: 'columns' in fk ? { table: qnJson(fk.table), columns: [...fk.columns] } : { table: qnJson(fk.table), column: fk.column },
  };
}

export function relationshipJson(r: Relationship): JsonObject {
  const out: JsonObject = { name: r.name, using: usingJson(r.using) };
  if (r.comment !== null) out['comment'] = r.comment;
  return out;
}

export type { Json };
