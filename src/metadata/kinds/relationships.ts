import { parseFailed } from '../../errors.js';
import { isObject, setOwn, sortKeysDeep, type Json, type JsonObject } from '../json.js';
import { at, comment, exclusive, graphqlName, obj, oneOf, opt, qualifiedName, req, str } from '../reader.js';
import { qnJson } from '../names.js';
import type { ManualConfiguration, RelKind, Relationship } from '../types.js';

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

/** Parses `using` of a relationship of the given kind (engine-api.md §4.2). */
export function parseUsing(kind: RelKind, v: unknown, path: string): Relationship['using'] {
  const o = obj(v, path);
  const which = exclusive(o, 'foreign_key_constraint_on', 'manual_configuration', path);
  if (which === 'manual_configuration') {
    return { manual_configuration: manualConfiguration(o['manual_configuration'], at(path, 'manual_configuration')) };
  }
  const fkPath = at(path, 'foreign_key_constraint_on');
  const fk = o['foreign_key_constraint_on'];
  if (kind === 'object') {
    if (isObject(fk)) throw parseFailed(fkPath, 'expected String, encountered Object');
    return { foreign_key_constraint_on: str(fk, fkPath) };
  }
  const fo = obj(fk, fkPath);
  return {
    foreign_key_constraint_on: {
      table: qualifiedName(req(fo, 'table', fkPath), at(fkPath, 'table')),
      column: str(req(fo, 'column', fkPath), at(fkPath, 'column')),
    },
  };
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
  return { foreign_key_constraint_on: { table: qnJson(fk.table), column: fk.column } };
}

export function relationshipJson(r: Relationship): JsonObject {
  const out: JsonObject = { name: r.name, using: usingJson(r.using) };
  if (r.comment !== null) out['comment'] = r.comment;
  return out;
}

export type { Json };
