import {
  GraphQLInputObjectType, GraphQLInt, GraphQLList, GraphQLString, type GraphQLFieldConfigArgumentMap,
  type GraphQLInputFieldConfigMap, type GraphQLInputType,
} from 'graphql';
import { NUMERIC } from '../../bool-exp/operators.js';
import type { ResolvedTable } from '../../schema-cache.js';
import type { GqlColumn } from './columns.js';
import { COLUMN_VALUE, NO_EXTENSIONS } from './extensions.js';
import { sharedNonNull } from './shared-types.js';
import type { TableTypes } from './tables.js';

/**
 * The update operators' arguments of a table for a role, sorted by name as the incumbent lists them: `_set` and
 * `_inc` (numeric columns), and for jsonb columns `_append`, `_prepend` (jsonb), `_delete_key` (String),
 * `_delete_elem` (Int), `_delete_at_path` ([String!]). Only updatable columns are fields; compiled by
 * compile/update-ops.ts.
 */

const arg = <T>(type: T) => ({ type, extensions: NO_EXTENSIONS });
const STRING_LIST = new GraphQLList(sharedNonNull(GraphQLString));

export function updateOperatorArgs(tt: TableTypes, rt: ResolvedTable, name: string, cols: GqlColumn[]): GraphQLFieldConfigArgumentMap {
  const own = (c: GqlColumn): GraphQLInputType => tt.columnType(rt, c);
  const input = (suffix: string, of: GqlColumn[], type: (c: GqlColumn) => GraphQLInputType): GraphQLInputObjectType => {
    const f: GraphQLInputFieldConfigMap = {};
    // Only the column-typed operands take a column's value (`_delete_elem`'s Int is an array index).
    for (const c of of) f[c.field] = { type: type(c), extensions: type === own ? COLUMN_VALUE : NO_EXTENSIONS };
    return new GraphQLInputObjectType({ name: `${name}_${suffix}`, extensions: NO_EXTENSIONS, fields: f });
  };
  const out: GraphQLFieldConfigArgumentMap = {};
  const jsonb = cols.filter((c) => c.typeName === 'jsonb');
  if (jsonb.length > 0) {
    out['_append'] = arg(input('append_input', jsonb, own));
    out['_delete_at_path'] = arg(input('delete_at_path_input', jsonb, () => STRING_LIST));
    out['_delete_elem'] = arg(input('delete_elem_input', jsonb, () => GraphQLInt));
    out['_delete_key'] = arg(input('delete_key_input', jsonb, () => GraphQLString));
  }
  // money too, as the incumbent's numerics cases increment it.
  const numeric = cols.filter((c) => NUMERIC.has(c.typeName) || c.typeName === 'money');
  if (numeric.length > 0) out['_inc'] = arg(input('inc_input', numeric, own));
  if (jsonb.length > 0) out['_prepend'] = arg(input('prepend_input', jsonb, own));
  if (cols.length > 0) out['_set'] = arg(input('set_input', cols, own));
  return out;
}
