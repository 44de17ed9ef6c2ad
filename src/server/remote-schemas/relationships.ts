import { randomBytes } from 'node:crypto';
import { getNamedType, isObjectType, type FieldNode, type GraphQLField, type GraphQLObjectType } from 'graphql';
import type { JsonObject } from '../../metadata/json.js';
import { qnQuoted } from '../../metadata/names.js';
import { parseRemoteRelDefinition, type RemoteFieldStep } from '../../metadata/kinds/remote-relationships.js';
import type { QualifiedName } from '../../metadata/types.js';
import { objectId, tablePrefix, withTable, type InconsistentObject } from '../inconsistency.js';
import type { ResolvedTable } from '../kinds/resolved.js';
import type { RemoteIntrospection } from './types.js';
import type { RoleRemote } from './role-schema.js';

/**
 * Table → remote schema relationships (issue 35 point 3), resolved: the table's join columns exist, the remote
 * schema is consistent, and its query root has the field path with the arguments named. The remote field is named
 * as the engine's schema shows it (after customisation, without the root-field namespace).
 */

export interface RemoteRel {
  name: string;
  table: QualifiedName;
  remote: string;
  lhs: string[];
  path: RemoteFieldStep[];
}

/** The key of the object a statement answers in place of a remote relationship's value: random per process, so that no stored JSON can pass for one. */
export const JOIN_MARK = `__engine_join_${randomBytes(8).toString('hex')}`;

/** A remote relationship's field in a compiled statement (graphql/compile/remote-join.ts). */
export interface RemoteJoinSpec {
  /** The marker's number within its statement. */
  id: number;
  rel: RemoteRel;
  remote: RoleRemote;
  /** The field's nodes (its arguments and sub-selection). */
  nodes: FieldNode[];
  /** The field's path in the operation, for errors. */
  path: string;
}

export const remoteRelId = (t: QualifiedName, name: string): string => objectId('remote_relationship', t, name);
export const remoteRelPrefix = (t: QualifiedName, name: string): string => `${tablePrefix(t)}in remote relationship "${name}": `;

export function remoteRelRecord(t: QualifiedName, entry: JsonObject, reason: string): InconsistentObject {
  const name = String(entry['name']);
  return { id: remoteRelId(t, name), type: 'remote_relationship', definition: withTable(t, entry), reason: remoteRelPrefix(t, name) + reason };
}

/** The remote field at the end of `path`, or why there is none. */
export function remoteFieldAt(root: GraphQLObjectType | null | undefined, path: RemoteFieldStep[]): GraphQLField<unknown, unknown> | string {
  let type = root;
  let field: GraphQLField<unknown, unknown> | undefined;
  for (const [i, step] of path.entries()) {
    if (!type) return `field "${path[i - 1]?.field ?? ''}" has no fields to select`;
    field = type.getFields()[step.field];
    if (!field) return `field "${step.field}" does not exist in type "${type.name}" of the remote schema`;
    for (const a of Object.keys(step.args)) {
      if (!field.args.some((x) => x.name === a)) return `argument "${a}" does not exist in field "${type.name}.${step.field}" of the remote schema`;
    }
    const next = getNamedType(field.type);
    type = isObjectType(next) ? next : null;
  }
  return field ?? 'the remote field is empty';
}

function resolveOne(entry: JsonObject, rt: ResolvedTable, remotes: ReadonlyMap<string, RemoteIntrospection>): RemoteRel | string {
  let def;
  try {
    def = parseRemoteRelDefinition(entry['definition'], '$.definition');
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
  const name = String(entry['name']);
  if (rt.fields.has(name)) return `"${name}" conflicts with an existing ${String(rt.fields.get(name))} of table ${qnQuoted(rt.entry.table)}`;
  for (const c of def.lhsFields) if (!rt.db.columns.has(c)) return `column "${c}" does not exist in table ${qnQuoted(rt.entry.table)}`;
  const remote = remotes.get(def.remoteSchema);
  if (!remote) return `remote schema "${def.remoteSchema}" does not exist or is inconsistent`;
  const f = remoteFieldAt(remote.schema.getQueryType(), def.path);
  if (typeof f === 'string') return f;
  return { name, table: rt.entry.table, remote: def.remoteSchema, lhs: def.lhsFields, path: def.path };
}

/** Every consistent table's remote relationships, by table key, and the records of those that are not consistent. */
export function resolveRemoteRels(tables: ReadonlyMap<string, ResolvedTable>, remotes: ReadonlyMap<string, RemoteIntrospection>): { rels: Map<string, RemoteRel[]>; records: InconsistentObject[] } {
  const rels = new Map<string, RemoteRel[]>();
  const records: InconsistentObject[] = [];
  for (const [key, rt] of tables) {
    const list = rt.entry.extras?.remote_relationships ?? [];
    for (const entry of list) {
      const got = resolveOne(entry, rt, remotes);
      if (typeof got === 'string') {
        records.push(remoteRelRecord(rt.entry.table, entry, got));
        continue;
      }
      const mine = rels.get(key) ?? [];
      mine.push(got);
      rels.set(key, mine);
    }
  }
  return { rels, records };
}
