import {
  getNamedType, GraphQLEnumType, GraphQLInputObjectType, GraphQLInterfaceType, GraphQLList, GraphQLNonNull, GraphQLObjectType,
  GraphQLScalarType, GraphQLSchema, GraphQLUnionType, isInterfaceType, isLeafType, isListType, isNonNullType, isObjectType,
  isSpecifiedScalarType, isUnionType, Kind, type FieldNode, type GraphQLArgumentConfig, type GraphQLField,
  type GraphQLFieldConfigMap, type GraphQLInputFieldConfigMap, type GraphQLNamedType, type GraphQLType,
  type SelectionNode, type SelectionSetNode,
} from 'graphql';
import { badRequest, parseFailed } from '../../errors.js';
import type { Json, JsonObject } from '../../metadata/json.js';
import { qnKey, qnQuoted } from '../../metadata/names.js';
import { arr, at, graphqlName, idx, obj, oneOf, opt, qualifiedName, req, str } from '../../metadata/reader.js';
import type { QualifiedName } from '../../metadata/types.js';
import type { InconsistentObject } from '../inconsistency.js';
import type { ResolvedTable } from '../kinds/resolved.js';
import type { RemoteIntrospection } from './types.js';
import { digitsText } from './literals.js';

/**
 * Remote schema → table relationships (`to_source`, issue 35.3): a field added to an object type of a remote schema
 * whose value is the rows of a table joined on the remote object's fields (`field_mapping`: remote field → column).
 * The engine asks the remote for the mapped fields (under aliases of its own) in place of the relationship's field,
 * then answers every occurrence of the field with one statement per field of the operation.
 */

export interface ToTableRel {
  remote: string;
  typeName: string;
  name: string;
  table: QualifiedName;
  array: boolean;
  /** Remote field → column. */
  mapping: [string, string][];
}

/** The alias under which the remote's value of a mapped field is asked for. */
export const joinKey = (field: string): string => `_engine_jk_${field}`;

export const toTableId = (remote: string, type: string, name: string): string => `remote_schema_remote_relationship::${remote}\u0000${type}\u0000${name}`;

export function parseToTable(remote: string, typeName: string, entry: JsonObject, path: string): ToTableRel {
  const name = graphqlName(req(entry, 'name', path), at(path, 'name'));
  const dp = at(path, 'definition');
  const d = obj(req(entry, 'definition', path), dp);
  if (opt(d, 'to_remote_schema') !== undefined) throw badRequest('not-supported', at(dp, 'to_remote_schema'), 'remote schema → remote schema relationships are not supported');
  const sp = at(dp, 'to_source');
  const s = obj(req(d, 'to_source', dp), sp);
  const source = opt(s, 'source');
  if (source !== undefined && str(source, at(sp, 'source')) !== 'default') throw badRequest('not-supported', at(sp, 'source'), `source "${String(source)}" is not the database: engine has one, "default"`);
  const table = qualifiedName(req(s, 'table', sp), at(sp, 'table'));
  const array = oneOf(req(s, 'relationship_type', sp), at(sp, 'relationship_type'), ['object', 'array']) === 'array';
  const mp = at(sp, 'field_mapping');
  const m = obj(req(s, 'field_mapping', sp), mp);
  const mapping = Object.entries(m).map(([k, v]) => [k, str(v, at(mp, k))] as [string, string]);
  if (mapping.length === 0) throw parseFailed(mp, 'field_mapping cannot be empty');
  return { remote, typeName, name, table, array, mapping };
}

/** The `remote_relationships` entries of a remote schema, as the incumbent writes them: by type, then by name. */
export function toTableEntries(remote: string, list: JsonObject[]): { rel: ToTableRel | string; entry: JsonObject; typeName: string; name: string }[] {
  const out: { rel: ToTableRel | string; entry: JsonObject; typeName: string; name: string }[] = [];
  list.forEach((t, i) => {
    const p = idx('$.remote_relationships', i);
    const typeName = String(t['type_name']);
    for (const [j, r] of arr(t['relationships'] ?? [], at(p, 'relationships')).entries()) {
      const entry = obj(r, idx(at(p, 'relationships'), j));
      try {
        out.push({ rel: parseToTable(remote, typeName, entry, idx(at(p, 'relationships'), j)), entry, typeName, name: String(entry['name']) });
      } catch (e) {
        out.push({ rel: e instanceof Error ? e.message : String(e), entry, typeName, name: String(entry['name']) });
      }
    }
  });
  return out;
}

function check(rel: ToTableRel, remote: RemoteIntrospection, tables: ReadonlyMap<string, ResolvedTable>): string | null {
  const t = remote.schema.getType(rel.typeName);
  if (!t || !isObjectType(t)) return `object type "${rel.typeName}" does not exist in the remote schema`;
  if (t.getFields()[rel.name]) return `"${rel.name}" conflicts with a field of type "${rel.typeName}" of the remote schema`;
  const rt = tables.get(qnKey(rel.table));
  if (!rt) return `table ${qnQuoted(rel.table)} does not exist`;
  for (const [f, c] of rel.mapping) {
    const field = t.getFields()[f];
    if (!field || !isLeafType(getNamedType(field.type)) || isListType(isNonNullType(field.type) ? field.type.ofType : field.type)) {
      return `field "${f}" is not a scalar field of type "${rel.typeName}" of the remote schema`;
    }
    if (!rt.db.columns.has(c)) return `column "${c}" does not exist in table ${qnQuoted(rel.table)}`;
  }
  return null;
}

/** The consistent remotes' consistent `to_source` relationships by remote name, and the records of the others. */
export function resolveToTables(defs: Iterable<{ name: string; remote_relationships: JsonObject[] }>, remotes: ReadonlyMap<string, RemoteIntrospection>, tables: ReadonlyMap<string, ResolvedTable>): { rels: Map<string, ToTableRel[]>; records: InconsistentObject[] } {
  const rels = new Map<string, ToTableRel[]>();
  const records: InconsistentObject[] = [];
  for (const d of defs) {
    const remote = remotes.get(d.name);
    for (const e of toTableEntries(d.name, d.remote_relationships)) {
      const reason = typeof e.rel === 'string' ? e.rel : remote ? check(e.rel, remote, tables) : 'the remote schema is inconsistent';
      if (reason !== null || typeof e.rel === 'string') {
        records.push({
          id: toTableId(d.name, e.typeName, e.name), type: 'remote_schema_remote_relationship',
          definition: { remote_schema: d.name, type_name: e.typeName, ...e.entry } as Json,
          reason: `in remote schema "${d.name}": in remote relationship "${e.typeName}.${e.name}": ${reason ?? ''}`,
        });
        continue;
      }
      const list = rels.get(d.name) ?? [];
      list.push(e.rel);
      rels.set(d.name, list);
    }
  }
  return { rels, records };
}

type Extra = (type: GraphQLObjectType) => GraphQLFieldConfigMap<unknown, unknown>;

/**
 * A copy of a remote's schema whose object types get the fields `extra` gives (a role's to-table relationships):
 * every type is rebuilt, since each refers to the others; the standard scalars stay the shared ones.
 */
export interface ExtendedTypes {
  query: GraphQLObjectType | undefined;
  mutation: GraphQLObjectType | undefined;
  subscription: GraphQLObjectType | undefined;
  types: GraphQLNamedType[];
}

/**
 * The schema of extended types, built when first needed: building it resolves every field, and the fields to tables
 * need the role's table types, whose own fields may need this remote again (a table's relationship to it).
 */
export const schemaOf = (x: ExtendedTypes): GraphQLSchema => new GraphQLSchema({ ...x, assumeValid: true });

export function extendedTypes(schema: GraphQLSchema, extra: Extra): ExtendedTypes {
  const map = new Map<string, GraphQLNamedType>();
  const get = (t: GraphQLNamedType): GraphQLNamedType => map.get(t.name) ?? t;
  const ref = (t: GraphQLType): GraphQLType => {
    if (isNonNullType(t)) return new GraphQLNonNull(ref(t.ofType) as never);
    if (isListType(t)) return new GraphQLList(ref(t.ofType));
    return get(t);
  };
  const args = (a: Record<string, GraphQLArgumentConfig> | undefined): Record<string, GraphQLArgumentConfig> =>
    Object.fromEntries(Object.entries(a ?? {}).map(([k, v]) => [k, { ...v, type: ref(v.type) as never }]));
  const fields = (f: GraphQLFieldConfigMap<unknown, unknown>): GraphQLFieldConfigMap<unknown, unknown> =>
    Object.fromEntries(Object.entries(f).map(([k, v]) => [k, { ...v, type: ref(v.type) as never, args: args(v.args) }]));
  for (const t of Object.values(schema.getTypeMap())) {
    if (t.name.startsWith('__') || isSpecifiedScalarType(t)) continue;
    if (isObjectType(t)) {
      const c = t.toConfig();
      const made: GraphQLObjectType = new GraphQLObjectType({
        ...c, interfaces: () => c.interfaces.map((i) => get(i) as GraphQLInterfaceType), fields: () => ({ ...fields(c.fields), ...extra(made) }),
      });
      map.set(t.name, made);
    } else if (isInterfaceType(t)) {
      const c = t.toConfig();
      map.set(t.name, new GraphQLInterfaceType({ ...c, interfaces: () => c.interfaces.map((i) => get(i) as GraphQLInterfaceType), fields: () => fields(c.fields) }));
    } else if (isUnionType(t)) {
      const c = t.toConfig();
      map.set(t.name, new GraphQLUnionType({ ...c, types: () => c.types.map((m) => get(m) as GraphQLObjectType) }));
    } else if (t instanceof GraphQLInputObjectType) {
      const c = t.toConfig();
      map.set(t.name, new GraphQLInputObjectType({
        ...c, fields: (): GraphQLInputFieldConfigMap => Object.fromEntries(Object.entries(c.fields).map(([k, v]) => [k, { ...v, type: ref(v.type) as never }])),
      }));
    } else if (t instanceof GraphQLEnumType) map.set(t.name, new GraphQLEnumType(t.toConfig()));
    else if (t instanceof GraphQLScalarType) map.set(t.name, new GraphQLScalarType(t.toConfig()));
  }
  const root = (t: GraphQLObjectType | null | undefined) => (t ? get(t) as GraphQLObjectType : undefined);
  return { query: root(schema.getQueryType()), mutation: root(schema.getMutationType()), subscription: root(schema.getSubscriptionType()), types: [...map.values()] };
}

interface JoinInfo {
  kind: string;
}
const isToTable = (f: GraphQLField<unknown, unknown> | undefined): boolean =>
  ((f?.extensions as { engine?: JoinInfo } | undefined)?.engine?.kind) === 'action_rel';
const mappingOf = (f: GraphQLField<unknown, unknown>): { field: string }[] =>
  ((f.extensions as { engine: { source: { mapping: { field: string }[] } } }).engine.source.mapping);

/**
 * The forwarded selection: each to-table relationship's field replaced by its mapped fields under the engine's
 * aliases (`joinKey`), at any depth; `schema` is the role's extended schema.
 */
export function withoutTableFields(set: SelectionSetNode, type: GraphQLNamedType, schema: GraphQLSchema): SelectionSetNode {
  const fieldsOf = isObjectType(type) || isInterfaceType(type) ? type.getFields() : {};
  const selections: SelectionNode[] = [];
  const keys = new Set<string>();
  for (const s of set.selections) {
    if (s.kind === Kind.INLINE_FRAGMENT) {
      const inner = s.typeCondition ? schema.getType(s.typeCondition.name.value) ?? type : type;
      selections.push({ ...s, selectionSet: withoutTableFields(s.selectionSet, inner, schema) });
      continue;
    }
    if (s.kind !== Kind.FIELD) {
      selections.push(s);
      continue;
    }
    const f = fieldsOf[s.name.value];
    if (f && isToTable(f)) {
      for (const m of mappingOf(f)) {
        if (keys.has(m.field)) continue;
        keys.add(m.field);
        selections.push({ kind: Kind.FIELD, alias: { kind: Kind.NAME, value: joinKey(m.field) }, name: { kind: Kind.NAME, value: m.field } });
      }
      continue;
    }
    selections.push(s.selectionSet && f ? { ...s, selectionSet: withoutTableFields(s.selectionSet, getNamedType(f.type), schema) } : s);
  }
  return { ...set, selections };
}

/** One to-table field of the operation: where its values go, and the remote objects' mapped values. */
export interface TableJoin {
  field: GraphQLField<unknown, unknown>;
  nodes: FieldNode[];
  /** The field's path in the operation, for errors. */
  path: string;
  objects: JsonObject[];
  targets: { obj: JsonObject; key: string }[];
}

/** Finds every to-table field's occurrences in a remote's answer (`value`, for the selection `set` of `type`). */
export function tableJoins(value: Json | undefined, set: SelectionSetNode, type: GraphQLNamedType, schema: GraphQLSchema, path: string, out: Map<FieldNode, TableJoin> = new Map()): Map<FieldNode, TableJoin> {
  if (value === null || value === undefined) return out;
  if (Array.isArray(value)) {
    for (const v of value) tableJoins(v, set, type, schema, path, out);
    return out;
  }
  if (typeof value !== 'object') return out;
  const fieldsOf = isObjectType(type) || isInterfaceType(type) ? type.getFields() : {};
  for (const s of set.selections) {
    if (s.kind === Kind.INLINE_FRAGMENT) {
      tableJoins(value, s.selectionSet, s.typeCondition ? schema.getType(s.typeCondition.name.value) ?? type : type, schema, path, out);
      continue;
    }
    if (s.kind !== Kind.FIELD) continue;
    const key = s.alias?.value ?? s.name.value;
    const f = fieldsOf[s.name.value];
    if (!f) continue;
    if (isToTable(f)) {
      const mapping = mappingOf(f);
      // An object of another type of a union or interface has none of the mapped values.
      if (!mapping.every((m) => Object.hasOwn(value, joinKey(m.field)))) continue;
      let j = out.get(s);
      if (!j) {
        j = { field: f, nodes: [s], path: `${path}.selectionSet.${key}`, objects: [], targets: [] };
        out.set(s, j);
      }
      j.objects.push(Object.fromEntries(mapping.map((m) => [m.field, digitsText(value[joinKey(m.field)] ?? null)])));
      j.targets.push({ obj: value, key });
      continue;
    }
    if (s.selectionSet) tableJoins(value[key], s.selectionSet, getNamedType(f.type), schema, `${path}.selectionSet.${key}`, out);
  }
  return out;
}

/** Removes the engine's aliases from the answer (after the joins). */
export function dropJoinKeys(value: Json | undefined): void {
  if (Array.isArray(value)) {
    for (const v of value) dropJoinKeys(v);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const k of Object.keys(value)) {
    if (k.startsWith('_engine_jk_')) delete value[k];
    else dropJoinKeys(value[k]);
  }
}
