import {
  GraphQLObjectType, type GraphQLArgumentConfig, type GraphQLField, type GraphQLFieldConfig, type GraphQLFieldConfigMap,
} from 'graphql';
import type { SchemaCache } from '../../schema-cache.js';
import type { RemoteIntrospection, RemoteRoot } from '../../remote-schemas/types.js';
import { info } from './field-info.js';
import { remoteSubset } from './remote-subset.js';

/** The remote schemas' root fields in a role's schema (issue 35): the remote's own types, renamed by customisation. */

type FieldMap = GraphQLFieldConfigMap<unknown, unknown>;

function fieldConfig(f: GraphQLField<unknown, unknown>, root: RemoteRoot): GraphQLFieldConfig<unknown, unknown> {
  const args: Record<string, GraphQLArgumentConfig> = {};
  for (const a of f.args) {
    args[a.name] = { type: a.type, ...(a.defaultValue !== undefined ? { defaultValue: a.defaultValue } : {}), ...(a.description ? { description: a.description } : {}) };
  }
  return { type: f.type, args, ...(f.description ? { description: f.description } : {}), ...(f.deprecationReason ? { deprecationReason: f.deprecationReason } : {}), extensions: info({ kind: 'remote', root }) };
}

function addRoots(remote: RemoteIntrospection, op: 'query' | 'mutation', type: GraphQLObjectType | null | undefined, allowed: Set<string> | null, out: FieldMap): void {
  if (!type) return;
  const fields = Object.values(type.getFields()).filter((f) => allowed === null || allowed.has(f.name));
  if (fields.length === 0) return;
  if (remote.namespace === undefined) {
    for (const f of fields) out[f.name] = fieldConfig(f, { remote, operation: op, namespace: false });
    return;
  }
  const inner: FieldMap = {};
  for (const f of fields) inner[f.name] = fieldConfig(f, { remote, operation: op, namespace: false });
  out[remote.namespace] = {
    type: new GraphQLObjectType({ name: `${remote.namespace}_${op === 'query' ? 'query' : 'mutation'}`, fields: inner }),
    extensions: info({ kind: 'remote', root: { remote, operation: op, namespace: true } }),
  };
}

/** Adds the root fields of every consistent remote schema the role may see. */
export function remoteRootFields(cache: SchemaCache, role: string, query: FieldMap, mutation: FieldMap): void {
  for (const remote of cache.remotes?.values() ?? []) {
    const md = cache.metadata.remote_schemas.get(remote.name);
    if (!md) continue;
    // Without permissions every role sees the whole remote schema (the incumbent's default); with permissions only
    // admin and the roles listed, each its SDL subset.
    let subset: ReturnType<typeof remoteSubset> | null = null;
    if (role !== 'admin' && md.permissions.length > 0) {
      const p = md.permissions.find((x) => x.role === role);
      if (!p) continue;
      subset = remoteSubset(remote, p.schema);
    }
    addRoots(remote, 'query', remote.schema.getQueryType(), subset ? subset.query : null, query);
    addRoots(remote, 'mutation', remote.schema.getMutationType(), subset ? subset.mutation : null, mutation);
  }
}
