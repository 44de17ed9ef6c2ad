import {
  GraphQLEnumType, GraphQLInputObjectType, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLSchema,
  type GraphQLDirective, type GraphQLFieldConfig, type GraphQLFieldConfigMap, type GraphQLInputFieldConfigMap,
} from 'graphql';
import { NO_EXTENSIONS } from './extensions.js';
import type { TableTypes } from './tables.js';
import type { TableView } from './visibility.js';

/**
 * The subscription root of a role (issue 32), as the incumbent's: per table the root fields `subscription_root_fields`
 * grants (absent: select, select_by_pk, select_aggregate and `<T>_stream`), the function root fields, and the results
 * of asynchronous actions. A role's schema shows it (`__schema { subscriptionType }`); subscriptions are checked
 * against it. They run as the queries they read like, on the role's live schema: the same root fields as a query root
 * (named `subscription_root`), and each streamed table's select field, which a stream runs as.
 */

/** The stream cursor's ordering; one for every schema (it names nothing of a table). */
export const CURSOR_ORDERING = new GraphQLEnumType({
  name: 'cursor_ordering', description: 'ordering argument of a cursor', extensions: NO_EXTENSIONS,
  values: {
    ASC: { value: 'ASC', description: 'ascending ordering of the cursor', extensions: NO_EXTENSIONS },
    DESC: { value: 'DESC', description: 'descending ordering of the cursor', extensions: NO_EXTENSIONS },
  },
});

/** The suffix of a table's streaming root field (`<T>_stream`; subscriptions/stream.ts reads it the same way). */
export const STREAM_SUFFIX = '_stream';

type Fields = GraphQLFieldConfigMap<unknown, unknown>;

/** `<T>_stream(batch_size: Int!, cursor: [<T>_stream_cursor_input]!, where: <T>_bool_exp): [T!]!`. */
export function streamField(tt: TableTypes, v: TableView): GraphQLFieldConfig<unknown, unknown> {
  const value = new GraphQLInputObjectType({
    name: `${v.name}_stream_cursor_value_input`, description: 'Initial value of the column from where the streaming should start', extensions: NO_EXTENSIONS,
    fields: () => {
      const f: GraphQLInputFieldConfigMap = {};
      for (const c of v.columns) f[c.field] = { type: tt.columnType(v.rt, c), extensions: NO_EXTENSIONS };
      return f;
    },
  });
  const cursor = new GraphQLInputObjectType({
    name: `${v.name}_stream_cursor_input`, description: `Streaming cursor of the table "${v.name}"`, extensions: NO_EXTENSIONS,
    fields: {
      initial_value: { type: new GraphQLNonNull(value), description: 'Stream column input with initial value', extensions: NO_EXTENSIONS },
      ordering: { type: CURSOR_ORDERING, description: 'cursor ordering', extensions: NO_EXTENSIONS },
    },
  });
  return {
    type: tt.listOf(v), description: `fetch data from the table in a streaming manner: "${v.name}"`,
    args: {
      batch_size: { type: new GraphQLNonNull(GraphQLInt), description: 'maximum number of rows returned in a single batch', extensions: NO_EXTENSIONS },
      cursor: { type: new GraphQLNonNull(new GraphQLList(cursor)), description: 'cursor to stream the results returned by the query', extensions: NO_EXTENSIONS },
      where: { type: tt.boolExp(v), description: 'filter the rows which have to be returned', extensions: NO_EXTENSIONS },
    },
  };
}

/**
 * What buildRoleSchema gathers for the subscription roots: the fields a subscription may name (`streams`: those that
 * are `<T>_stream` fields), and (`hidden`) the select fields of tables a role may stream but not select at the
 * subscription root, which only the live schema has.
 */
export interface SubscriptionFields {
  shown: Fields;
  streams: Set<string>;
  hidden: Fields;
}

export const noSubscriptionFields = (): SubscriptionFields => ({ shown: Object.create(null) as Fields, streams: new Set(), hidden: Object.create(null) as Fields });

/** The public root type, or undefined when the role may subscribe to nothing (no subscriptionType, as the incumbent). */
export function subscriptionRoot(fields: SubscriptionFields, sorted: (m: Fields) => Fields): GraphQLObjectType | undefined {
  return Object.keys(fields.shown).length > 0 ? new GraphQLObjectType({ name: 'subscription_root', fields: () => sorted(fields.shown) }) : undefined;
}

/** Each public schema's live schema, made at its first subscription (most roles never subscribe). */
const builders = new WeakMap<GraphQLSchema, () => GraphQLSchema | null>();
const built = new WeakMap<GraphQLSchema, GraphQLSchema | null>();

/**
 * Registers the live schema of `schema`: its query root is the subscription root without the `_stream` fields (which
 * run as select fields) and with the hidden select fields. It shares every other type with the public schema.
 */
export function registerLiveSchema(schema: GraphQLSchema, fields: SubscriptionFields, sorted: (m: Fields) => Fields, directives: readonly GraphQLDirective[]): void {
  builders.set(schema, () => {
    const all = Object.create(null) as Fields;
    for (const [k, f] of Object.entries(fields.shown)) if (!fields.streams.has(k)) all[k] = f;
    for (const [k, f] of Object.entries(fields.hidden)) all[k] ??= f;
    if (Object.keys(all).length === 0) return null;
    return new GraphQLSchema({ query: new GraphQLObjectType({ name: 'subscription_root', fields: () => sorted(all) }), directives, assumeValid: true });
  });
}

/** The live schema of a role's public schema; null when the role may subscribe to nothing. */
export function liveSchemaOf(schema: GraphQLSchema): GraphQLSchema | null {
  let s = built.get(schema);
  if (s === undefined) {
    s = builders.get(schema)?.() ?? null;
    built.set(schema, s);
    builders.delete(schema);
  }
  return s;
}
