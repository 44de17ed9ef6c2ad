import { customTypesJson, namedType } from '../../metadata/kinds/actions.js';
import { duplicates } from '../../metadata/document.js';
import { qnKey, qnQuoted } from '../../metadata/names.js';
import type { Json, JsonObject } from '../../metadata/json.js';
import type { CustomTypes, QualifiedName } from '../../metadata/types.js';
import type { DbCatalog } from '../db-catalog.js';
import { objectId, type InconsistentObject } from '../inconsistency.js';
import type { ResolvedTable } from './resolved.js';
import { reasonList } from './computed-fields.js';

export const BUILTIN_SCALARS = ['String', 'Int', 'Float', 'Boolean', 'ID'];
export const CUSTOM_TYPES_ID = objectId('custom_types', null, '');

export type TypeKind = 'scalar' | 'enum' | 'input_object' | 'object';

/** Every type an action or custom type may name: built-ins, the custom types, and PostgreSQL scalars. */
export function typeKinds(ct: CustomTypes, catalog: DbCatalog): Map<string, TypeKind> {
  const kinds = new Map<string, TypeKind>();
  for (const t of catalog.scalarTypes) kinds.set(t, 'scalar');
  for (const t of BUILTIN_SCALARS) kinds.set(t, 'scalar');
  const name = (x: Json) => (x as JsonObject)['name'] as string;
  for (const x of ct.scalars) kinds.set(name(x), 'scalar');
  for (const x of ct.enums) kinds.set(name(x), 'enum');
  for (const x of ct.input_objects) kinds.set(name(x), 'input_object');
  for (const x of ct.objects) kinds.set(name(x), 'object');
  return kinds;
}

const quoted = (names: string[]) => names.map((n) => `"${n}"`).join(', ');

interface Field {
  name: string;
  type: string;
}

/** All reasons the custom types are invalid (engine-api.md §4.6.1), in the specified order. */
export function customTypeReasons(ct: CustomTypes, catalog: DbCatalog, tables: Map<string, ResolvedTable>): string[] {
  const reasons: string[] = [];
  const all = [...ct.scalars, ...ct.enums, ...ct.input_objects, ...ct.objects].map((x) => (x as JsonObject)['name'] as string);
  const dups = duplicates([...BUILTIN_SCALARS, ...all]);
  if (dups.length > 0) reasons.push(`duplicate type names: ${quoted(dups)}`);
  const kinds = typeKinds(ct, catalog);
  for (const e of ct.enums as JsonObject[]) {
    const values = (e['values'] as JsonObject[]).map((v) => v['value'] as string);
    if (values.length === 0) reasons.push(`the enum type "${e['name'] as string}" has no values`);
    const d = duplicates(values);
    if (d.length > 0) reasons.push(`the enum type "${e['name'] as string}" has duplicate values: ${quoted(d)}`);
  }
  for (const io of ct.input_objects as JsonObject[]) {
    const n = io['name'] as string;
    const fields = io['fields'] as unknown as Field[];
    if (fields.length === 0) reasons.push(`the input object type "${n}" has no fields`);
    const d = duplicates(fields.map((f) => f.name));
    if (d.length > 0) reasons.push(`the input object type "${n}" has duplicate fields: ${quoted(d)}`);
    for (const f of fields) {
      const kind = kinds.get(namedType(f.type));
      if (!kind) reasons.push(`the type "${namedType(f.type)}" for field "${f.name}" in input object type "${n}" does not exist`);
      else if (kind === 'object') reasons.push(`the type "${namedType(f.type)}" of field "${f.name}" in input object type "${n}" is not an input type`);
    }
  }
  for (const o of ct.objects as JsonObject[]) reasons.push(...objectReasons(o, ct, kinds, tables));
  return reasons;
}

function objectReasons(o: JsonObject, ct: CustomTypes, kinds: Map<string, TypeKind>, tables: Map<string, ResolvedTable>): string[] {
  const reasons: string[] = [];
  const n = o['name'] as string;
  const fields = o['fields'] as unknown as Field[];
  if (fields.length === 0) reasons.push(`the object type "${n}" has no fields`);
  const d = duplicates(fields.map((f) => f.name));
  if (d.length > 0) reasons.push(`the object type "${n}" has duplicate fields: ${quoted(d)}`);
  for (const f of fields) {
    const kind = kinds.get(namedType(f.type));
    if (!kind) reasons.push(`the type "${namedType(f.type)}" for field "${f.name}" in object type "${n}" does not exist`);
    // Object fields may nest other object types (issue 12: action outputs of real projects do), never input types.
    else if (kind === 'input_object') reasons.push(`the type "${namedType(f.type)}" of field "${f.name}" in object type "${n}" is not a scalar, enum or object type`);
  }
  for (const [obj, field] of ct.argumentFields) if (obj === n) reasons.push(`field "${field}" of object type "${n}" cannot have arguments`);
  const rels = (o['relationships'] as JsonObject[] | undefined) ?? [];
  const dr = duplicates(rels.map((r) => r['name'] as string));
  if (dr.length > 0) reasons.push(`the object type "${n}" has duplicate relationships: ${quoted(dr)}`);
  for (const r of rels) {
    const rn = r['name'] as string;
    if (fields.some((f) => f.name === rn)) reasons.push(`relationship "${rn}" of object type "${n}" conflicts with a field of the same name`);
    const remoteName = r['remote_table'] as unknown as QualifiedName;
    const remote = tables.get(qnKey(remoteName));
    if (!remote) {
      reasons.push(`the remote table ${qnQuoted(remoteName)} for relationship "${rn}" of object type "${n}" does not exist`);
      continue;
    }
    for (const [field, column] of Object.entries(r['field_mapping'] as Record<string, string>)) {
      const f = fields.find((x) => x.name === field);
      if (!f) reasons.push(`the field "${field}" for relationship "${rn}" in object type "${n}" does not exist`);
      else if (f.type.replace(/!$/, '').startsWith('[')) reasons.push(`the type of the field "${field}" for relationship "${rn}" in object type "${n}" is a list type`);
      if (!remote.db.columns.has(column)) {
        reasons.push(`the column "${column}" of remote table ${qnQuoted(remoteName)} for relationship "${rn}" of object type "${n}" does not exist`);
      }
    }
  }
  return reasons;
}

export function customTypesRecord(ct: CustomTypes, reasons: string[]): InconsistentObject {
  const reason = reasonList('validation for the given custom types failed', reasons);
  return { id: CUSTOM_TYPES_ID, type: 'custom_types', definition: customTypesJson(ct) ?? {}, reason };
}
