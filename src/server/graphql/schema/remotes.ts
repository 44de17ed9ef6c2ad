import {
  GraphQLObjectType, type GraphQLArgumentConfig, type GraphQLField, type GraphQLFieldConfig, type GraphQLFieldConfigMap,
} from 'graphql';
import type { SchemaCache } from '../../schema-cache.js';
import type { RemoteRoot } from '../../remote-schemas/types.js';
import { info } from './field-info.js';
import { roleRemote, type RoleRemote } from '../../remote-schemas/role-schema.js';

/** The remote schemas' root fields in a role's schema (issue 35): the remote's own types, renamed by customisation. */

type FieldMap = GraphQLFieldConfigMap<unknown, unknown>;

function fieldConfig(f: GraphQLField<unknown, unknown>, root: RemoteRoot): GraphQLFieldConfig<unknown, unknown> {
  const args: Record<string, GraphQLArgumentConfig> = {};
  for (const a of f.args) {
    args[a.name] = { type: a.type, ...(a.defaultValue !== undefined ? { defaultValue: a.defaultValue } : {}), ...(a.description ? { description: a.description } : {}) };
  }
  return { type: f.type, args, ...(f.description ? { description: f.description } : {}), ...(f.deprecationReason ? { deprecationReason: f.deprecationReason } : {}), extensions: info({ kind: 'remote', root }) };
}

function addRoots(rr: RoleRemote, op: 'query' | 'mutation', type: GraphQLObjectType | null | undefined, out: FieldMap): void {
  if (!type) return;
  const { remote, presets } = rr;
  const fields = Object.values(type.getFields());
  if (fields.length === 0) return;
  if (remote.namespace === undefined) {
    for (const f of fields) out[f.name] = fieldConfig(f, { remote, operation: op, namespace: false, presets });
    return;
  }
  const inner: FieldMap = {};
  for (const f of fields) inner[f.name] = fieldConfig(f, { remote, operation: op, namespace: false, presets });
  out[remote.namespace] = {
    type: new GraphQLObjectType({ name: `${remote.namespace}_${op === 'query' ? 'query' : 'mutation'}`, fields: inner }),
    extensions: info({ kind: 'remote', root: { remote, operation: op, namespace: true, presets } }),
  };
}

/** The role's view of a consistent remote schema, or null (remote-schemas/role-schema.ts). */
export function remoteForRole(cache: SchemaCache, name: string, role: string): RoleRemote | null {
  const remote = cache.remotes?.get(name);
  const md = cache.metadata.remote_schemas.get(name);
  return remote && md ? roleRemote(remote, md.permissions, role) : null;
}

/**
 * Adds the root fields of every consistent remote schema the role may see: without permissions every role sees the
 * whole remote schema (the incumbent's default); with permissions only admin and the roles listed, each its SDL subset.
 */
export function remoteRootFields(cache: SchemaCache, role: string, query: FieldMap, mutation: FieldMap): void {
  for (const remote of cache.remotes?.values() ?? []) {
    const rr = remoteForRole(cache, remote.name, role);
    if (!rr) continue;
    addRoots(rr, 'query', rr.schema.getQueryType(), query);
    addRoots(rr, 'mutation', rr.schema.getMutationType(), mutation);
  }
}
