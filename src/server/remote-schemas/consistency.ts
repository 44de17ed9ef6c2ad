import { getNamedType, isInterfaceType, isObjectType, isUnionType, printType, type GraphQLNamedType, type GraphQLSchema } from 'graphql';
import { compareCodePoints } from '../../metadata/json.js';
import { remoteSchemaJson, type RemoteSchema } from '../../metadata/kinds/remote-schemas.js';
import type { Metadata } from '../../metadata/types.js';
import type { InconsistentObject } from '../inconsistency.js';
import { introspected } from './store.js';
import type { RemoteIntrospection } from './types.js';

/**
 * Which remote schemas can be merged (issue 35 point 1, 4): introspected, and none of their root fields or types
 * taken by the database's schema or by a remote schema merged before them (in name order). A collision is an
 * inconsistency naming both sides.
 */

export const remoteSchemaId = (name: string): string => `remote_schema::${name}`;

const SHARED = new Set(['Int', 'Float', 'String', 'Boolean', 'ID']);

const record = (r: RemoteSchema, reason: string): InconsistentObject => ({
  id: remoteSchemaId(r.name), type: 'remote_schema', definition: remoteSchemaJson(r), reason: `in remote schema "${r.name}": ${reason}`,
});

function rootNames(remote: RemoteIntrospection, op: 'query' | 'mutation'): string[] {
  const t = op === 'query' ? remote.schema.getQueryType() : remote.schema.getMutationType();
  if (!t) return [];
  return remote.namespace !== undefined ? [remote.namespace] : Object.keys(t.getFields());
}

const ownTypes = (s: GraphQLSchema): GraphQLNamedType[] =>
  Object.values(s.getTypeMap()).filter((t) => !t.name.startsWith('__') && !SHARED.has(t.name));

/** Whether a field or argument of another type refers to the named type. */
function referenced(s: GraphQLSchema, name: string): boolean {
  for (const t of Object.values(s.getTypeMap())) {
    if (t.name === name || t.name.startsWith('__')) continue;
    const fields = isObjectType(t) || isInterfaceType(t) ? Object.values(t.getFields()) : [];
    for (const f of fields) {
      if (getNamedType(f.type).name === name) return true;
    }
    if (isUnionType(t) && t.getTypes().some((m) => m.name === name)) return true;
  }
  return false;
}

/**
 * The remote's types that enter the merged schema: its root operation types do not (their fields are merged into
 * the engine's roots), unless another of its types refers to one. Two remotes whose query roots are both `Query`
 * (or a Hasura remote's `query_root`) do not collide, as with the incumbent.
 */
function mergedTypes(s: GraphQLSchema): GraphQLNamedType[] {
  const roots = new Set([s.getQueryType(), s.getMutationType(), s.getSubscriptionType()].flatMap((t) => (t ? [t.name] : [])));
  return ownTypes(s).filter((t) => !roots.has(t.name) || referenced(s, t.name));
}

export function resolveRemotes(md: Metadata, base: GraphQLSchema): { remotes: Map<string, RemoteIntrospection>; records: InconsistentObject[] } {
  const remotes = new Map<string, RemoteIntrospection>();
  const records: InconsistentObject[] = [];
  const owner = (what: string) => `the database schema's ${what}`;
  const roots = { query: new Map<string, string>(), mutation: new Map<string, string>() };
  for (const f of Object.keys(base.getQueryType()?.getFields() ?? {})) roots.query.set(f, owner(`query root field "${f}"`));
  for (const f of Object.keys(base.getMutationType()?.getFields() ?? {})) roots.mutation.set(f, owner(`mutation root field "${f}"`));
  const types = new Map<string, string>();
  const remoteTypes = new Map<string, GraphQLNamedType>();
  for (const t of ownTypes(base)) types.set(t.name, owner(`type "${t.name}"`));
  for (const r of [...md.remote_schemas.values()].sort((a, b) => compareCodePoints(a.name, b.name))) {
    const got = introspected(r);
    if (!got) {
      records.push(record(r, 'the remote schema was not introspected; reload it'));
      continue;
    }
    if (!got.ok) {
      records.push(record(r, got.message));
      continue;
    }
    const remote = got.remote;
    const clashes: string[] = [];
    const namespaceTypes = remote.namespace !== undefined ? [`${remote.namespace}_query`, `${remote.namespace}_mutation`] : [];
    const mergedHere = mergedTypes(remote.schema);
    for (const t of [...mergedHere.map((x) => x.name), ...namespaceTypes]) {
      // The same definition in two remotes is one type of the merged schema, as with the incumbent.
      const theirs = remoteTypes.get(t);
      const mine = remote.schema.getType(t);
      if (theirs && mine && printType(theirs) === printType(mine)) continue;
      const other = types.get(t);
      // The incumbent's words first; a type-name prefix or mapping in `customization` resolves it.
      if (other) clashes.push(`Found conflicting definitions for GraphQL type '${t}': type "${t}" conflicts with ${other}`);
    }
    for (const op of ['query', 'mutation'] as const) {
      for (const f of rootNames(remote, op)) {
        const other = roots[op].get(f);
        if (other) clashes.push(`${op} root field "${f}" conflicts with ${other}`);
      }
    }
    if (clashes.length > 0) {
      records.push(record(r, clashes.join('; ')));
      continue;
    }
    const mine = `remote schema "${r.name}"'s`;
    for (const t of [...mergedHere.map((x) => x.name), ...namespaceTypes]) if (!types.has(t)) types.set(t, `${mine} type "${t}"`);
    for (const t of mergedHere) if (!remoteTypes.has(t.name)) remoteTypes.set(t.name, t);
    for (const op of ['query', 'mutation'] as const) for (const f of rootNames(remote, op)) roots[op].set(f, `${mine} ${op} root field "${f}"`);
    remotes.set(r.name, remote);
  }
  return { remotes, records };
}
