import {
  GraphQLObjectType, type GraphQLArgumentConfig, type GraphQLField, type GraphQLFieldConfig, type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap, type GraphQLOutputType, type GraphQLSchema,
} from 'graphql';
import { qnKey } from '../../../metadata/names.js';
import type { SchemaCache } from '../../schema-cache.js';
import type { RemoteRoot } from '../../remote-schemas/types.js';
import { info } from './field-info.js';
import { rootType, type RoleRemote } from '../../remote-schemas/role-schema.js';
import { inheritedRoleRemote } from '../../remote-schemas/inherited.js';
import { extendedTypes, schemaOf, type ToTableRel } from '../../remote-schemas/to-table.js';
import type { RoleView, TableView } from './visibility.js';
import { RemoteTypeUnifier, sharedRemoteTypes } from './remote-types.js';

/** The remote schemas' root fields in a role's schema (issue 35): the remote's own types, renamed by customisation. */

type FieldMap = GraphQLFieldConfigMap<unknown, unknown>;

function fieldConfig(f: GraphQLField<unknown, unknown>, root: RemoteRoot, u: RemoteTypeUnifier): GraphQLFieldConfig<unknown, unknown> {
  const args: Record<string, GraphQLArgumentConfig> = {};
  for (const a of f.args) {
    args[a.name] = { type: u.type(a.type), ...(a.defaultValue !== undefined ? { defaultValue: a.defaultValue } : {}), ...(a.description ? { description: a.description } : {}) };
  }
  return { type: u.type(f.type), args, ...(f.description ? { description: f.description } : {}), ...(f.deprecationReason ? { deprecationReason: f.deprecationReason } : {}), extensions: info({ kind: 'remote', root }) };
}

function addRoots(rr: RoleRemote, op: 'query' | 'mutation', type: GraphQLObjectType | null | undefined, out: FieldMap, u: RemoteTypeUnifier): void {
  if (!type) return;
  const { remote, presets } = rr;
  const view = rr.extended ? rr : null;
  const fields = Object.values(type.getFields());
  if (fields.length === 0) return;
  if (remote.namespace === undefined) {
    for (const f of fields) out[f.name] = fieldConfig(f, { remote, operation: op, namespace: false, presets, view }, u);
    return;
  }
  const inner: FieldMap = {};
  for (const f of fields) inner[f.name] = fieldConfig(f, { remote, operation: op, namespace: false, presets, view }, u);
  out[remote.namespace] = {
    type: new GraphQLObjectType({ name: `${remote.namespace}_${op === 'query' ? 'query' : 'mutation'}`, fields: inner }),
    extensions: info({ kind: 'remote', root: { remote, operation: op, namespace: true, presets, view } }),
  };
}

/** The role's view of a consistent remote schema, or null (remote-schemas/role-schema.ts), without table fields. */
export function remoteForRole(cache: SchemaCache, name: string, role: string): RoleRemote | null {
  const remote = cache.remotes?.get(name);
  const md = cache.metadata.remote_schemas.get(name);
  return remote && md ? inheritedRoleRemote(remote, md.permissions, role, (r) => cache.metadata.inherited_roles.get(r)?.role_set) : null;
}

/** What a remote's types need of the role's table types to get its relationships to tables. */
export interface TableTypesOf {
  role: RoleView;
  objectType(v: TableView): GraphQLObjectType;
  listOf(v: TableView): GraphQLOutputType;
  listArgs(v: TableView): GraphQLFieldConfigArgumentMap;
}

/**
 * The remotes of one role's schema, each once: its part of the remote, and where the remote has relationships to
 * tables (`to_source`) a copy of its types with those fields, typed by the role's own table types.
 */
export class RoleRemotes {
  private readonly known = new Map<string, RoleRemote | null>();
  /** The role schema's remote types by name, when remotes share names. */
  readonly unify: RemoteTypeUnifier;

  constructor(private readonly cache: SchemaCache, private readonly tt: TableTypesOf) {
    this.unify = new RemoteTypeUnifier(sharedRemoteTypes(cache.remotes));
  }

  get(name: string): RoleRemote | null {
    if (this.known.has(name)) return this.known.get(name) ?? null;
    const base = remoteForRole(this.cache, name, this.tt.role.role);
    const rels = this.cache.remoteToTable?.get(name) ?? [];
    if (!base || rels.length === 0) {
      this.known.set(name, base);
      return base;
    }
    const x = extendedTypes(base.schema, (t) => this.tableFields(t, rels));
    let built: GraphQLSchema | undefined;
    const got: RoleRemote = {
      ...base, extended: true, roots: { query: x.query ?? null, mutation: x.mutation ?? null },
      get schema() {
        return (built ??= schemaOf(x));
      },
    };
    this.known.set(name, got);
    return got;
  }

  private tableFields(type: GraphQLObjectType, rels: ToTableRel[]): FieldMap {
    const out: FieldMap = {};
    for (const r of rels) {
      if (r.typeName !== type.name) continue;
      const view = this.tt.role.table(qnKey(r.table));
      if (!view) continue;
      const mapping = r.mapping.map(([field, column]) => ({ field, column, castType: view.rt.db.columns.get(column)?.castType ?? 'text' }));
      out[r.name] = {
        type: r.array ? this.tt.listOf(view) : this.tt.objectType(view), args: r.array ? this.tt.listArgs(view) : {},
        extensions: info({ kind: 'action_rel', view, source: { kind: 'json', mapping }, array: r.array }),
      };
    }
    return out;
  }
}

/**
 * Adds the root fields of every consistent remote schema the role may see: without permissions every role sees the
 * whole remote schema (the incumbent's default); with permissions only admin and the roles listed, each its SDL subset.
 */
export function remoteRootFields(cache: SchemaCache, remotes: RoleRemotes, query: FieldMap, mutation: FieldMap): void {
  for (const remote of cache.remotes?.values() ?? []) {
    const rr = remotes.get(remote.name);
    if (!rr) continue;
    addRoots(rr, 'query', rootType(rr, 'query'), query, remotes.unify);
    addRoots(rr, 'mutation', rootType(rr, 'mutation'), mutation, remotes.unify);
  }
}
