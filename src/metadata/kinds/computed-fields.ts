import type { JsonObject } from '../json.js';
import { at, comment, graphqlName, obj, optStr, qualifiedName, req } from '../reader.js';
import { qnJson } from '../names.js';
import type { ComputedField } from '../types.js';

export function parseComputedFieldDefinition(v: unknown, path: string): ComputedField['definition'] {
  const o = obj(v, path);
  const def: ComputedField['definition'] = { function: qualifiedName(req(o, 'function', path), at(path, 'function')) };
  const ta = optStr(o, 'table_argument', path);
  if (ta !== undefined) def.table_argument = ta;
  const sa = optStr(o, 'session_argument', path);
  if (sa !== undefined) def.session_argument = sa;
  return def;
}

/** A computed-field entry of table metadata, also the args of add_computed_field less `table`. */
export function parseComputedField(v: unknown, path: string): ComputedField {
  const o = obj(v, path);
  return {
    name: graphqlName(req(o, 'name', path), at(path, 'name')),
    definition: parseComputedFieldDefinition(req(o, 'definition', path), at(path, 'definition')),
    comment: comment(o, path),
  };
}

export function computedFieldJson(cf: ComputedField): JsonObject {
  const def: JsonObject = { function: qnJson(cf.definition.function) };
  if (cf.definition.table_argument !== undefined) def['table_argument'] = cf.definition.table_argument;
  if (cf.definition.session_argument !== undefined) def['session_argument'] = cf.definition.session_argument;
  const out: JsonObject = { name: cf.name, definition: def };
  if (cf.comment !== null) out['comment'] = cf.comment;
  return out;
}
