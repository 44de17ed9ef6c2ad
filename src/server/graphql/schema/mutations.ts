import {
  GraphQLInputObjectType, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType,
  type GraphQLFieldConfigArgumentMap, type GraphQLFieldConfigMap, type GraphQLNullableType,
} from 'graphql';
import type { ResolvedTable } from '../../schema-cache.js';
import { COLUMN_VALUE, NO_EXTENSIONS } from './extensions.js';
import { info } from './field-info.js';
import { insertInputs } from './insert-inputs.js';
import type { TableNames } from './table-names.js';
import type { TableTypes } from './tables.js';
import { NO_INTERFACES, sharedNonNull } from './shared-types.js';
import { updateOperatorArgs } from './update-ops.js';
import type { TableView } from './visibility.js';

/** The mutation root fields of one table for one role (graphql-api.md §2.7, §3), compiled by compile/mutations.ts. */

const nn = <T extends GraphQLNullableType>(t: T) => new GraphQLNonNull(t);
const AFFECTED_ROWS = { type: sharedNonNull(GraphQLInt), extensions: NO_EXTENSIONS };
const arg = <T>(type: T) => ({ type, extensions: NO_EXTENSIONS });

/** Adds the mutation root fields of one table for the role to `out`. */
export function mutationFields(tt: TableTypes, rt: ResolvedTable, names: TableNames, view: TableView | null, out: GraphQLFieldConfigMap<unknown, unknown>): void {
  const name = names.type;
  const d = names.comments;
  const inputs = insertInputs(tt);
  const table = inputs.table(rt);
  if (!table) return;
  const ins = table.insertable;
  const upd = table.updatable;
  const del = table.delete !== undefined || (tt.role.admin && (rt.db.updatable & 16) !== 0);
  const response = new GraphQLObjectType({
    name: `${name}_mutation_response`,
    extensions: NO_EXTENSIONS,
    interfaces: NO_INTERFACES,
    fields: view ? { affected_rows: AFFECTED_ROWS, returning: arg(tt.listOf(view)) } : { affected_rows: AFFECTED_ROWS },
  });
  const pk = view?.pk ?? null;
  let pkArgs: GraphQLFieldConfigArgumentMap | null = null;
  if (pk) {
    pkArgs = {};
    for (const c of pk) pkArgs[c.field] = { type: sharedNonNull(tt.columnType(rt, c)), extensions: COLUMN_VALUE };
  }
  const boolExp = view ? tt.boolExp(view) : null;
  const updCols = table.updateColumns;
  const onConflict = inputs.onConflict(table);
  const conflictArg: GraphQLFieldConfigArgumentMap | null = onConflict ? { on_conflict: arg(onConflict) } : null;
  const where = boolExp ? arg(nn(boolExp)) : null;
  if (ins) {
    const insertInput = nn(inputs.insertInput(table));
    const objects = arg(nn(new GraphQLList(insertInput)));
    out[names.insert] = { type: response, description: d.insert, args: conflictArg ? { objects, ...conflictArg } : { objects }, extensions: info({ kind: 'insert', table, one: false }) };
    if (view) {
      const object = arg(insertInput);
      out[names.insert_one] = { type: tt.objectType(view), description: d.insert_one, args: conflictArg ? { object, ...conflictArg } : { object }, extensions: info({ kind: 'insert', table, one: true }) };
    }
  }
  if (upd && where) {
    const setInc = updateOperatorArgs(tt, rt, name, updCols);
    out[names.update] = { type: response, description: d.update, args: { ...setInc, where }, extensions: info({ kind: 'update', table, byPk: false }) };
    if (view && pkArgs) {
      const pkInput = new GraphQLInputObjectType({ name: `${name}_pk_columns_input`, extensions: NO_EXTENSIONS, fields: pkArgs });
      out[names.update_by_pk] = { type: tt.objectType(view), description: d.update_by_pk, args: { ...setInc, pk_columns: arg(nn(pkInput)) }, extensions: info({ kind: 'update', table, byPk: true }) };
    }
    const updates = new GraphQLInputObjectType({ name: `${name}_updates`, extensions: NO_EXTENSIONS, fields: { ...setInc, where } });
    out[names.update_many] = { type: new GraphQLList(response), description: d.update_many, args: { updates: arg(nn(new GraphQLList(nn(updates)))) }, extensions: info({ kind: 'update_many', table }) };
  }
  if (del && where) {
    out[names.delete] = { type: response, description: d.delete, args: { where }, extensions: info({ kind: 'delete', table, byPk: false }) };
    if (view && pkArgs) out[names.delete_by_pk] = { type: tt.objectType(view), description: d.delete_by_pk, args: pkArgs, extensions: info({ kind: 'delete', table, byPk: true }) };
  }
}
