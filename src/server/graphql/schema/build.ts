import {
  GraphQLDeprecatedDirective, GraphQLIncludeDirective, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLSkipDirective,
  GraphQLSpecifiedByDirective, GraphQLString, type GraphQLFieldConfigArgumentMap, type GraphQLFieldConfigMap,
} from 'graphql';
import type { SchemaCache } from '../../schema-cache.js';
import { cachedClaims, type Claims } from './claims.js';
import { COLUMN_VALUE } from './extensions.js';
import { info, type RowSource } from './field-info.js';
import { tableNames } from './table-names.js';
import type { EnumTypes } from './enum-values.js';
import { ActionTypes } from './actions.js';
import { mutationFields } from './mutations.js';
import { TableTypes } from './tables.js';
import { ScalarRegistry } from './scalar-registry.js';
import { sharedNonNull } from './shared-types.js';
import { RoleView } from './visibility.js';
import { remoteRootFields, RoleRemotes } from './remotes.js';
import { DEFAULT_FUNCTION_SETTINGS, functionRootFields, type FunctionSettings } from './functions.js';
import { noSubscriptionFields, registerLiveSchema, STREAM_SUFFIX, streamField, subscriptionRoot } from './subscription-root.js';

/** Per-role GraphQL schemas (graphql-api.md §2): built lazily, cached for one schema cache. */

/**
 * A field map with thousands of keys: a null-prototype object is a hash table from the start, where a literal would
 * go through a hidden-class transition per key (most of a large schema's build time and garbage).
 */
const fieldMap = (): GraphQLFieldConfigMap<unknown, unknown> => Object.create(null) as GraphQLFieldConfigMap<unknown, unknown>;

/** The same map with its keys in code-point order (GraphQL names are ASCII: UTF-16 order is code-point order). */
function sorted(m: GraphQLFieldConfigMap<unknown, unknown>): GraphQLFieldConfigMap<unknown, unknown> {
  const out = fieldMap();
  for (const k of Object.keys(m).sort()) out[k] = m[k] as GraphQLFieldConfigMap<unknown, unknown>[string];
  return out;
}

/** The placeholder query's value and description: the incumbent's text (issue 30.5, decision in docs/decisions.md). */
const NO_QUERIES = "There are no queries available to the current role. Either there are no sources or remote schemas configured, or the current role doesn't have the required permissions.";

/** Builds the schema of one role. */
export function buildRoleSchema(
  cache: SchemaCache, role: string, c: Claims = cachedClaims(cache), backendOnly = false, enums: EnumTypes = new Map(), functions: FunctionSettings = DEFAULT_FUNCTION_SETTINGS,
): GraphQLSchema {
  const view = new RoleView(cache, role, backendOnly);
  const tt = new TableTypes(view, new ScalarRegistry(c.typeTaken), enums, c.hiddenCfs, c.cfArgTypes);
  const query = fieldMap();
  const mutation = fieldMap();
  const subs = noSubscriptionFields();
  const table: RowSource = { kind: 'table' };
  for (const key of c.tables) {
    const v = view.table(key);
    const rt = cache.tables.get(key);
    if (!rt) continue;
    const n = tableNames(rt.entry);
    if (v) {
      const root = (f: string): boolean => v.queryRoots?.has(f) ?? true;
      const sub = (f: string): boolean => v.subscriptionRoots?.has(f) ?? true;
      // A stream needs a cursor column: without a visible column there is none.
      const streams = sub('select_stream') && v.columns.length > 0;
      // §2.10: a table's comment describes its type T, not its root fields. One config serves both roots.
      if (root('select') || sub('select') || streams) {
        const select = { type: tt.listOf(v), args: tt.listArgs(v), description: n.comments.select, extensions: info({ kind: 'rows', view: v, source: table }) };
        if (root('select')) query[n.select] = select;
        if (sub('select')) subs.shown[n.select] = select;
        else if (streams) subs.hidden[n.select] = select;
      }
      if (v.aggregates && (root('select_aggregate') || sub('select_aggregate'))) {
        const aggregate = { type: tt.aggregateNonNull(v), args: tt.listArgs(v), description: n.comments.select_aggregate, extensions: info({ kind: 'aggregate', view: v, source: table }) };
        if (root('select_aggregate')) query[n.select_aggregate] = aggregate;
        if (sub('select_aggregate')) subs.shown[n.select_aggregate] = aggregate;
      }
      if (v.pk && (root('select_by_pk') || sub('select_by_pk'))) {
        const args: GraphQLFieldConfigArgumentMap = {};
        // A key column referencing an enum table is typed by its enum, as in the table type (the incumbent's).
        for (const col of v.pk) args[col.field] = { type: sharedNonNull(tt.columnType(rt, col)), extensions: COLUMN_VALUE };
        const byPk = { type: tt.objectType(v), args, description: n.comments.select_by_pk, extensions: info({ kind: 'by_pk', view: v }) };
        if (root('select_by_pk')) query[n.select_by_pk] = byPk;
        if (sub('select_by_pk')) subs.shown[n.select_by_pk] = byPk;
      }
      if (streams) {
        subs.shown[`${v.name}${STREAM_SUFFIX}`] = streamField(tt, v);
        subs.streams.add(`${v.name}${STREAM_SUFFIX}`);
      }
    }
    mutationFields(tt, rt, n, v, mutation);
  }
  // Function root fields are subscription root fields too (the incumbent's).
  const fns = fieldMap();
  functionRootFields(tt, c.functions, functions, fns);
  Object.assign(query, fns);
  Object.assign(subs.shown, fns);
  const at = new ActionTypes(tt, cache.metadata.custom_types);
  for (const a of c.actions) {
    if (role !== 'admin' && !a.permissions.some((p) => p.role === role)) continue;
    const fields = at.actionFields(a);
    Object.assign(query, fields.query);
    Object.assign(mutation, fields.mutation);
    // An asynchronous action's result is subscribed to (issue 32.5); a query action is not a subscription root field.
    if (a.definition.kind === 'asynchronous') Object.assign(subs.shown, fields.query);
  }
  const remotes = new RoleRemotes(cache, tt);
  tt.remoteFor = (name) => remotes.get(name);
  tt.unifyRemote = (t) => remotes.unify.type(t);
  remoteRootFields(cache, remotes, query, mutation);
  const queryRoot = new GraphQLObjectType({
    name: 'query_root',
    fields: Object.keys(query).length > 0 ? sorted(query) : {
      no_queries_available: { type: new GraphQLNonNull(GraphQLString), description: NO_QUERIES, extensions: info({ kind: 'constant', json: JSON.stringify(NO_QUERIES) }) },
    },
  });
  const mutationRoot = Object.keys(mutation).length > 0 ? new GraphQLObjectType({ name: 'mutation_root', fields: sorted(mutation) }) : undefined;
  // §4.8: @skip and @include are the only executable directives; @oneOf (graphql 16.9+) is not part of this API.
  const directives = [GraphQLIncludeDirective, GraphQLSkipDirective, GraphQLDeprecatedDirective, GraphQLSpecifiedByDirective];
  // Generated, so valid by construction (the tests validate it): graphql-js would otherwise check all of it again
  // at the first request's document validation.
  const schema = new GraphQLSchema({ query: queryRoot, mutation: mutationRoot, subscription: subscriptionRoot(subs, sorted), directives, assumeValid: true });
  registerLiveSchema(schema, subs, sorted, directives);
  return schema;
}

/** Roles named by some permission: every other role has the same (empty) schema, built once. */
function knownRoles(cache: SchemaCache): Set<string> {
  const roles = new Set<string>(['admin']);
  for (const e of cache.metadata.tables.values()) {
    for (const list of [e.select_permissions, e.insert_permissions, e.update_permissions, e.delete_permissions]) for (const p of list) roles.add(p.role);
  }
  for (const a of cache.metadata.actions.values()) for (const p of a.permissions) roles.add(p.role);
  for (const r of cache.metadata.inherited_roles.keys()) roles.add(r);
  for (const r of cache.metadata.remote_schemas.values()) for (const p of r.permissions) roles.add(p.role);
  return roles;
}

/** The schemas of the current schema cache by role; a new schema cache discards them all (§2.1). */
export class SchemaStore {
  /** How function root fields are granted (functions.ts); set before the first schema is built. */
  functions: FunctionSettings = DEFAULT_FUNCTION_SETTINGS;
  private cache: SchemaCache | null = null;
  private claims: Claims | null = null;
  private roles = new Set<string>();
  private readonly schemas = new Map<string, GraphQLSchema>();

  /** `enums`: the enum tables' types of this schema cache (enum-values.ts). */
  get(cache: SchemaCache, role: string, backendOnly = false, enums: EnumTypes = new Map()): GraphQLSchema {
    if (cache !== this.cache) {
      this.cache = cache;
      this.claims = cachedClaims(cache);
      this.roles = knownRoles(cache);
      this.schemas.clear();
    }
    // Backend-only permissions give a role's backend callers a schema of their own (insert fields may differ).
    const key = `${this.roles.has(role) ? role : '\u0000'}${backendOnly ? '\u0001' : ''}`;
    let s = this.schemas.get(key);
    if (!s) {
      s = buildRoleSchema(cache, role, this.claims ?? undefined, backendOnly, enums, this.functions);
      this.schemas.set(key, s);
    }
    return s;
  }
}
