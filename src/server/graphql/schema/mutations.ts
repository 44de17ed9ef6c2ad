import {
  GraphQLBoolean, GraphQLEnumType, GraphQLInputObjectType, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType,
  type GraphQLFieldConfigArgumentMap, type GraphQLFieldConfigMap, type GraphQLInputFieldConfigMap, type GraphQLNullableType,
} from 'graphql';
import type { ResolvedTable } from '../../schema-cache.js';
import { tableColumns, type GqlColumn } from './columns.js';
import { NO_EXTENSIONS } from './extensions.js';
import { info, type MutationTable } from './field-info.js';
import { isEnumValueName } from './names.js';
import { tableNames, type TableNames } from './table-names.js';
import { memoByObject } from './memo.js';
import type { TableTypes } from './tables.js';
import { NO_INTERFACES, sharedNonNull } from './shared-types.js';
import { updateOperatorArgs } from './update-ops.js';
import type { TableView } from './visibility.js';

/** The mutation root fields of one table for one role (graphql-api.md §2.7, §3), compiled by compile/mutations.ts. */

const nn = <T extends GraphQLNullableType>(t: T) => new GraphQLNonNull(t);
const PLACEHOLDER_INPUT = { _PLACEHOLDER: { type: GraphQLBoolean, extensions: NO_EXTENSIONS } };
const AFFECTED_ROWS = { type: sharedNonNull(GraphQLInt), extensions: NO_EXTENSIONS };
const NO_COLUMNS = { _PLACEHOLDER: { value: null, extensions: NO_EXTENSIONS } };
const arg = <T>(type: T) => ({ type, extensions: NO_EXTENSIONS });

const constraintsOf = (rt: ResolvedTable) => rt.db.uniques.filter((u) => isEnumValueName(u.name));

/** `T_constraint` depends on the table only: one per resolved table, shared by its roles' schemas. */
const constraintEnum = memoByObject((rt: ResolvedTable): GraphQLEnumType => {
  const values: Record<string, { value: string; extensions: typeof NO_EXTENSIONS }> = {};
  for (const c of constraintsOf(rt)) values[c.name] = { value: c.name, extensions: NO_EXTENSIONS };
  return new GraphQLEnumType({ name: `${tableNames(rt.entry).type}_constraint`, values, extensions: NO_EXTENSIONS });
});

/** The columns a role may write (permissions and presets name SQL columns), exposed under their GraphQL names. */
function inputColumns(rt: ResolvedTable, columns: string[] | '*' | undefined, presets: Record<string, unknown> | undefined): GqlColumn[] {
  return tableColumns(rt).exposed
    .filter((c) => !c.generated && (columns === undefined || columns === '*' || columns.includes(c.name)))
    .filter((c) => !presets || !(c.name in presets));
}

/** Adds the mutation root fields of one table for the role to `out`. */
export function mutationFields(tt: TableTypes, rt: ResolvedTable, names: TableNames, view: TableView | null, out: GraphQLFieldConfigMap<unknown, unknown>): void {
  const name = names.type;
  const d = names.comments;
  const role = tt.role;
  const admin = role.admin;
  const ins = admin ? ((rt.db.updatable & 8) !== 0 ? {} : undefined) : role.permission(rt, 'insert');
  const upd = admin ? ((rt.db.updatable & 4) !== 0 ? {} : undefined) : role.permission(rt, 'update');
  const del = admin ? ((rt.db.updatable & 16) !== 0 ? {} : undefined) : role.permission(rt, 'delete');
  if (!ins && !upd && !del) return;
  // The types reference only types that exist already: their fields need no thunks (a closure each).
  const inputType = (suffix: string, cols: GqlColumn[]): GraphQLInputObjectType => {
    const f: GraphQLInputFieldConfigMap = {};
    for (const c of cols) f[c.field] = arg(tt.columnType(rt, c));
    return new GraphQLInputObjectType({ name: `${name}_${suffix}`, extensions: NO_EXTENSIONS, fields: cols.length > 0 ? f : PLACEHOLDER_INPUT });
  };
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
    for (const c of pk) pkArgs[c.field] = arg(sharedNonNull(tt.columnType(rt, c)));
  }
  const boolExp = view ? tt.boolExp(view) : null;
  const updCols = upd ? inputColumns(rt, upd.columns, upd.set) : [];
  const insCols = ins ? inputColumns(rt, ins.columns, ins.set) : [];
  const table: MutationTable = {
    rt, name, view,
    insert: admin ? undefined : ins, update: admin ? undefined : upd, delete: admin ? undefined : del,
    allColumns: tableColumns(rt).all,
    insertColumns: insCols, updateColumns: updCols,
  };
  let conflictArg: GraphQLFieldConfigArgumentMap | null = null;
  if (upd && boolExp && constraintsOf(rt).length > 0) {
    const values: Record<string, { value: string | null; extensions: typeof NO_EXTENSIONS }> = {};
    for (const c of updCols) if (isEnumValueName(c.field)) values[c.field] = { value: c.field, extensions: NO_EXTENSIONS };
    const columns = new GraphQLEnumType({ name: `${name}_update_column`, values: Object.keys(values).length > 0 ? values : NO_COLUMNS, extensions: NO_EXTENSIONS });
    const onConflict = new GraphQLInputObjectType({
      name: `${name}_on_conflict`,
      extensions: NO_EXTENSIONS,
      fields: {
        constraint: arg(nn(constraintEnum(rt))),
        update_columns: { type: nn(new GraphQLList(nn(columns))), defaultValue: [], extensions: NO_EXTENSIONS },
        where: arg(boolExp),
      },
    });
    conflictArg = { on_conflict: arg(onConflict) };
  }
  const where = boolExp ? arg(nn(boolExp)) : null;
  if (ins) {
    const insertInput = nn(inputType('insert_input', insCols));
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
