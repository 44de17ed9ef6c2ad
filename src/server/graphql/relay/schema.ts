import {
  GraphQLBoolean, GraphQLID, GraphQLInt, GraphQLInterfaceType, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString,
  GraphQLDeprecatedDirective, GraphQLIncludeDirective, GraphQLSkipDirective, GraphQLSpecifiedByDirective,
  type GraphQLFieldConfigArgumentMap, type GraphQLFieldConfigMap, type GraphQLOutputType,
} from 'graphql';
import type { SchemaCache } from '../../schema-cache.js';
import {
  cachedClaims, info, NO_EXTENSIONS, RoleView, ScalarRegistry, TableTypes, tableNames,
  DEFAULT_FUNCTION_SETTINGS, functionView, type EnumTypes, type FunctionSettings, type RowSource, type TableView,
} from '../schema/index.js';

/**
 * The Relay schema of one role (issue 30.6, the incumbent's `/v1beta1/relay`): tables whose primary key the role sees
 * implement `Node` with a global `id`, and are read through connections (`<t>_connection`, `<rel>_connection`) with
 * `edges { cursor node }` and `pageInfo`. A table whose key the role may not select is no node: its ids and cursors
 * would show the key's values.
 */

const nn = <T extends GraphQLOutputType>(t: T) => new GraphQLNonNull(t);

export const NODE = new GraphQLInterfaceType({
  name: 'Node',
  description: 'An object with globally unique ID',
  fields: { id: { type: new GraphQLNonNull(GraphQLID), description: 'A globally unique identifier', extensions: NO_EXTENSIONS } },
  extensions: NO_EXTENSIONS,
});

// The incumbent's PageInfo: its cursors are non-null in the schema (an empty page answers null, as it does).
export const PAGE_INFO = new GraphQLObjectType({
  name: 'PageInfo',
  fields: {
    endCursor: { type: new GraphQLNonNull(GraphQLString), extensions: NO_EXTENSIONS },
    hasNextPage: { type: new GraphQLNonNull(GraphQLBoolean), extensions: NO_EXTENSIONS },
    hasPreviousPage: { type: new GraphQLNonNull(GraphQLBoolean), extensions: NO_EXTENSIONS },
    startCursor: { type: new GraphQLNonNull(GraphQLString), extensions: NO_EXTENSIONS },
  },
  extensions: NO_EXTENSIONS,
});

const STRING_ARG = { type: GraphQLString, extensions: NO_EXTENSIONS };
const INT_ARG = { type: GraphQLInt, extensions: NO_EXTENSIONS };

/** A view is a node when it has a primary key the role sees whole (TableView.pk). */
export const isNode = (v: TableView | null): v is TableView => v !== null && v.pk !== null && v.pk.length > 0;

class RelayTypes extends TableTypes {
  private readonly relayObjects = new Map<string, GraphQLObjectType>();
  private readonly connections = new Map<string, GraphQLNonNull<GraphQLObjectType>>();
  private readonly connArgs = new Map<string, GraphQLFieldConfigArgumentMap>();

  override objectType(v: TableView): GraphQLObjectType {
    const known = this.relayObjects.get(v.name);
    if (known) return known;
    const t = new GraphQLObjectType({
      extensions: NO_EXTENSIONS,
      name: v.name,
      description: v.rt.db.comment ?? undefined,
      interfaces: isNode(v) ? [NODE] : [],
      fields: () => this.objectFields(v),
    });
    this.relayObjects.set(v.name, t);
    return t;
  }

  protected override objectFields(v: TableView): GraphQLFieldConfigMap<unknown, unknown> {
    const f = super.objectFields(v);
    // The incumbent's `id` is the global id: a column named `id` gives way to it.
    if (isNode(v)) f['id'] = { type: nn(GraphQLID), extensions: info({ kind: 'node_id', view: v }) };
    for (const r of v.arrRels) {
      const remote = this.role.table(r.remoteKey);
      const name = `${r.name}_connection`;
      if (!isNode(remote) || f[name]) continue;
      f[name] = { type: this.connection(remote), args: this.connectionArgs(remote), description: r.comment ?? undefined, extensions: info({ kind: 'connection', view: remote, source: { kind: 'rel', rel: r } }) };
    }
    return f;
  }

  /** `<T>Connection!`. */
  connection(v: TableView): GraphQLNonNull<GraphQLObjectType> {
    let t = this.connections.get(v.name);
    if (!t) {
      const edge = new GraphQLObjectType({
        name: `${v.name}Edge`,
        fields: { cursor: { type: nn(GraphQLString), extensions: NO_EXTENSIONS }, node: { type: nn(this.objectType(v)), extensions: NO_EXTENSIONS } },
        extensions: NO_EXTENSIONS,
      });
      t = nn(new GraphQLObjectType({
        name: `${v.name}Connection`,
        fields: { edges: { type: nn(new GraphQLList(nn(edge))), extensions: NO_EXTENSIONS }, pageInfo: { type: nn(PAGE_INFO), extensions: NO_EXTENSIONS } },
        extensions: NO_EXTENSIONS,
      }));
      this.connections.set(v.name, t);
    }
    return t;
  }

  /** after, before, first, last, order_by, where (the list arguments without limit and offset). */
  connectionArgs(v: TableView): GraphQLFieldConfigArgumentMap {
    let a = this.connArgs.get(v.name);
    if (!a) {
      const list = this.listArgs(v);
      a = { after: STRING_ARG, before: STRING_ARG, first: INT_ARG, last: INT_ARG, order_by: list['order_by'] as GraphQLFieldConfigArgumentMap[string], where: list['where'] as GraphQLFieldConfigArgumentMap[string] };
      this.connArgs.set(v.name, a);
    }
    return a;
  }
}

const fieldMap = (): GraphQLFieldConfigMap<unknown, unknown> => Object.create(null) as GraphQLFieldConfigMap<unknown, unknown>;

/** The Relay schema of a role: `node` and the connections of its node tables and of functions returning them. */
export function buildRelaySchema(cache: SchemaCache, role: string, enums: EnumTypes = new Map(), functions: FunctionSettings = DEFAULT_FUNCTION_SETTINGS): GraphQLSchema {
  const c = cachedClaims(cache);
  const view = new RoleView(cache, role, false);
  const tt = new RelayTypes(view, new ScalarRegistry(c.typeTaken), enums, c.hiddenCfs, c.cfArgTypes);
  const query = fieldMap();
  const table: RowSource = { kind: 'table' };
  for (const key of c.tables) {
    const v = view.table(key);
    const rt = cache.tables.get(key);
    if (!rt || !isNode(v) || !(v.queryRoots?.has('select') ?? true)) continue;
    const n = tableNames(rt.entry);
    query[`${n.select}_connection`] = { type: tt.connection(v), args: tt.connectionArgs(v), description: n.comments.select, extensions: info({ kind: 'connection', view: v, source: table }) };
  }
  for (const f of c.functions) {
    const v = functionView(view, f, functions);
    if (!isNode(v)) continue;
    const source: RowSource = { kind: 'function', fn: f.fn, fnArgs: f.args, viaRow: false };
    query[`${f.name}_connection`] = { type: tt.connection(v), args: { ...tt.fnArgsArg(f.name, f.args), ...tt.connectionArgs(v) }, description: f.fn.comment ?? undefined, extensions: info({ kind: 'connection', view: v, source }) };
  }
  // Every node type is in the schema, so that `... on T` of any of them validates under `node`.
  const types: GraphQLObjectType[] = [];
  for (const key of c.tables) {
    const v = view.table(key);
    if (isNode(v)) types.push(tt.objectType(v));
  }
  query['node'] = { type: NODE, args: { id: { type: nn(GraphQLID), extensions: NO_EXTENSIONS } }, extensions: info({ kind: 'constant', json: 'null' }) };
  const sortedQuery = fieldMap();
  for (const k of Object.keys(query).sort()) sortedQuery[k] = query[k] as GraphQLFieldConfigMap<unknown, unknown>[string];
  const directives = [GraphQLIncludeDirective, GraphQLSkipDirective, GraphQLDeprecatedDirective, GraphQLSpecifiedByDirective];
  return new GraphQLSchema({ query: new GraphQLObjectType({ name: 'query_root', fields: sortedQuery }), types, directives, assumeValid: true });
}

const MAX_ROLES = 256;

/** The Relay schemas of the current schema cache by role (a new schema cache discards them). */
export class RelaySchemaStore {
  /** How function root fields are granted (schema/functions.ts); set before the first schema is built. */
  functions: FunctionSettings = DEFAULT_FUNCTION_SETTINGS;
  private cache: SchemaCache | null = null;
  private readonly schemas = new Map<string, GraphQLSchema>();

  get(cache: SchemaCache, role: string, enums: EnumTypes = new Map()): GraphQLSchema {
    if (cache !== this.cache) {
      this.cache = cache;
      this.schemas.clear();
    }
    let s = this.schemas.get(role);
    if (!s) {
      // Roles are few; a flood of unknown role names only rebuilds.
      if (this.schemas.size >= MAX_ROLES) this.schemas.clear();
      s = buildRelaySchema(cache, role, enums, this.functions);
      this.schemas.set(role, s);
    }
    return s;
  }
}
