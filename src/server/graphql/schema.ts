import {
  GraphQLDeprecatedDirective, GraphQLIncludeDirective, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLSkipDirective,
  GraphQLSpecifiedByDirective, GraphQLString, specifiedScalarTypes, type GraphQLFieldConfigArgumentMap, type GraphQLFieldConfigMap,
} from 'graphql';
import { compareCodePoints } from '../../metadata/json.js';
import { qnKey } from '../../metadata/names.js';
import { sortedFunctions, sortedTables } from '../../metadata/document.js';
import type { Action, FunctionEntry } from '../../metadata/types.js';
import type { DbFunction } from '../db-catalog.js';
import { functionId } from '../kinds/functions.js';
import type { SchemaCache } from '../schema-cache.js';
import { NO_EXTENSIONS } from './extensions.js';
import { info, type RowSource } from './field-info.js';
import { gqlName, isGraphqlName } from './names.js';
import { rootFieldNames, tableNames } from './table-names.js';
import type { EnumTypes } from './enum-values.js';
import { ActionTypes } from './schema-actions.js';
import { mutationFields } from './schema-mutations.js';
import { TableTypes } from './schema-tables.js';
import { ScalarRegistry } from './scalar-registry.js';
import { sharedNonNull } from './shared-types.js';
import { fnArgs, RoleView, type FnArgs } from './visibility.js';

/** Per-role GraphQL schemas (graphql-api.md §2): built lazily, cached for one schema cache. */

const TABLE_TYPES = ['', '_aggregate', '_aggregate_fields', '_sum_fields', '_avg_fields', '_max_fields', '_min_fields', '_bool_exp',
  '_order_by', '_select_column', '_insert_input', '_set_input', '_inc_input', '_pk_columns_input', '_on_conflict', '_constraint',
  '_update_column', '_mutation_response'];

interface TrackedFunction { entry: FunctionEntry; fn: DbFunction; name: string; args: FnArgs; returns: string }

/** Which tables, functions and actions keep their names (§2.2: the first in order wins, the others are absent). */
interface Claims { tables: Set<string>; functions: TrackedFunction[]; actions: Action[] }

function claims(cache: SchemaCache): Claims {
  const roots = new Set<string>(['no_queries_available']);
  const types = new Set<string>(['query_root', 'mutation_root', 'order_by', ...specifiedScalarTypes.map((s) => s.name)]);
  const free = (rs: string[], ts: string[]) => rs.every((r) => !roots.has(r)) && ts.every((t) => !types.has(t));
  const take = (rs: string[], ts: string[]) => {
    rs.forEach((r) => roots.add(r));
    ts.forEach((t) => types.add(t));
  };
  const tables = new Set<string>();
  for (const entry of sortedTables(cache.metadata)) {
    const key = qnKey(entry.table);
    const names = tableNames(entry);
    const name = names.type;
    if (!cache.tables.has(key) || !isGraphqlName(name)) continue;
    const rs = rootFieldNames(names);
    const ts = TABLE_TYPES.map((s) => name + s);
    if (!free(rs, ts)) continue;
    take(rs, ts);
    tables.add(key);
  }
  const functions: TrackedFunction[] = [];
  for (const entry of sortedFunctions(cache.metadata)) {
    const fn = cache.catalog.functions.get(qnKey(entry.function))?.[0];
    const name = gqlName(entry.function);
    if (!fn || cache.inconsistentIds.has(functionId(entry.function)) || !isGraphqlName(name)) continue;
    const returned = cache.catalog.tablesByOid.get(fn.returnRelid);
    const args = fnArgs(fn, null, entry.configuration.session_argument);
    if (!returned || !args || !tables.has(qnKey(returned))) continue;
    const rs = [name, `${name}_aggregate`];
    if (!free(rs, [`${name}_args`])) continue;
    take(rs, [`${name}_args`]);
    functions.push({ entry, fn, name, args, returns: qnKey(returned) });
  }
  const actions: Action[] = [];
  for (const a of [...cache.metadata.actions.values()].sort((x, y) => compareCodePoints(x.name, y.name))) {
    if (!cache.consistentActions.has(a.name)) continue;
    const ts = a.definition.kind === 'asynchronous' ? [`${a.name}_async_result`] : [];
    if (!free([a.name], ts)) continue;
    take([a.name], ts);
    actions.push(a);
  }
  return { tables, functions, actions };
}

/** The claims depend only on the schema cache: computed once for all its roles. */
const claimsByCache = new WeakMap<SchemaCache, Claims>();

function cachedClaims(cache: SchemaCache): Claims {
  let c = claimsByCache.get(cache);
  if (!c) {
    c = claims(cache);
    claimsByCache.set(cache, c);
  }
  return c;
}

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

/** Builds the schema of one role. */
export function buildRoleSchema(cache: SchemaCache, role: string, c: Claims = cachedClaims(cache), backendOnly = false, enums: EnumTypes = new Map()): GraphQLSchema {
  const view = new RoleView(cache, role, backendOnly);
  const tt = new TableTypes(view, new ScalarRegistry(), enums);
  const query = fieldMap();
  const mutation = fieldMap();
  const table: RowSource = { kind: 'table' };
  for (const key of c.tables) {
    const v = view.table(key);
    const rt = cache.tables.get(key);
    if (!rt) continue;
    const n = tableNames(rt.entry);
    if (v) {
      // §2.10: a table's comment describes its type T, not its root fields.
      query[n.select] = { type: tt.listOf(v), args: tt.listArgs(v), description: n.comments.select, extensions: info({ kind: 'rows', view: v, source: table }) };
      if (v.aggregates) query[n.select_aggregate] = { type: tt.aggregateNonNull(v), args: tt.listArgs(v), description: n.comments.select_aggregate, extensions: info({ kind: 'aggregate', view: v, source: table }) };
      if (v.pk) {
        const args: GraphQLFieldConfigArgumentMap = {};
        for (const col of v.pk) args[col.field] = { type: sharedNonNull(tt.scalars.column(col.typeName)), extensions: NO_EXTENSIONS };
        query[n.select_by_pk] = { type: tt.objectType(v), args, description: n.comments.select_by_pk, extensions: info({ kind: 'by_pk', view: v }) };
      }
    }
    mutationFields(tt, rt, n, v, mutation);
  }
  for (const f of c.functions) {
    const v = view.table(f.returns);
    if (!v) continue;
    const source: RowSource = { kind: 'function', fn: f.fn, fnArgs: f.args, viaRow: false };
    const args = { ...tt.fnArgsArg(f.name, f.args), ...tt.listArgs(v) };
    const description = f.fn.comment ?? undefined;
    query[f.name] = { type: tt.listOf(v), args, description, extensions: info({ kind: 'rows', view: v, source }) };
    if (v.aggregates) query[`${f.name}_aggregate`] = { type: tt.aggregateNonNull(v), args, description, extensions: info({ kind: 'aggregate', view: v, source }) };
  }
  const at = new ActionTypes(tt, cache.metadata.custom_types);
  for (const a of c.actions) {
    if (role !== 'admin' && !a.permissions.some((p) => p.role === role)) continue;
    const fields = at.actionFields(a);
    Object.assign(query, fields.query);
    Object.assign(mutation, fields.mutation);
  }
  const queryRoot = new GraphQLObjectType({
    name: 'query_root',
    fields: Object.keys(query).length > 0 ? sorted(query) : {
      no_queries_available: { type: new GraphQLNonNull(GraphQLString), extensions: info({ kind: 'constant', json: JSON.stringify('there are no queries available to the current role') }) },
    },
  });
  const mutationRoot = Object.keys(mutation).length > 0 ? new GraphQLObjectType({ name: 'mutation_root', fields: sorted(mutation) }) : undefined;
  // §4.8: @skip and @include are the only executable directives; @oneOf (graphql 16.9+) is not part of this API.
  const directives = [GraphQLIncludeDirective, GraphQLSkipDirective, GraphQLDeprecatedDirective, GraphQLSpecifiedByDirective];
  // Generated, so valid by construction (the tests validate it): graphql-js would otherwise check all of it again
  // at the first request's document validation.
  return new GraphQLSchema({ query: queryRoot, mutation: mutationRoot, directives, assumeValid: true });
}

/** Roles named by some permission: every other role has the same (empty) schema, built once. */
function knownRoles(cache: SchemaCache): Set<string> {
  const roles = new Set<string>(['admin']);
  for (const e of cache.metadata.tables.values()) {
    for (const list of [e.select_permissions, e.insert_permissions, e.update_permissions, e.delete_permissions]) for (const p of list) roles.add(p.role);
  }
  for (const a of cache.metadata.actions.values()) for (const p of a.permissions) roles.add(p.role);
  for (const r of cache.metadata.inherited_roles.keys()) roles.add(r);
  return roles;
}

/** The schemas of the current schema cache by role; a new schema cache discards them all (§2.1). */
export class SchemaStore {
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
      s = buildRoleSchema(cache, role, this.claims ?? undefined, backendOnly, enums);
      this.schemas.set(key, s);
    }
    return s;
  }
}
