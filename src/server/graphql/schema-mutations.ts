import {
  GraphQLBoolean, GraphQLEnumType, GraphQLInputObjectType, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType,
  type GraphQLFieldConfigArgumentMap, type GraphQLFieldConfigMap, type GraphQLInputFieldConfigMap, type GraphQLNullableType,
} from 'graphql';
import { NUMERIC } from '../bool-exp/operators.js';
import type { ResolvedTable } from '../schema-cache.js';
import { tableColumns, type GqlColumn } from './columns.js';
import { info, type MutationTable } from './field-info.js';
import { isGraphqlName } from './names.js';
import type { TableNames } from './table-names.js';
import type { TableTypes } from './schema-tables.js';
import type { TableView } from './visibility.js';

/** The mutation root fields of one table for one role (graphql-api.md §2.7, §3), compiled by mutation-sql.ts. */

const PLACEHOLDER_INPUT = { _PLACEHOLDER: { type: GraphQLBoolean } };
const nn = <T extends GraphQLNullableType>(t: T) => new GraphQLNonNull(t);

/** The columns a role may write (permissions and presets name SQL columns), exposed under their GraphQL names. */
function inputColumns(rt: ResolvedTable, columns: string[] | '*' | undefined, presets: Record<string, unknown> | undefined): GqlColumn[] {
  return tableColumns(rt).exposed
    .filter((c) => !c.generated && (columns === undefined || columns === '*' || columns.includes(c.name)))
    .filter((c) => !presets || !(c.name in presets));
}

export function mutationFields(tt: TableTypes, rt: ResolvedTable, names: TableNames, view: TableView | null): GraphQLFieldConfigMap<unknown, unknown> {
  const name = names.type;
  const d = names.comments;
  const role = tt.role;
  const admin = role.admin;
  const ins = admin ? ((rt.db.updatable & 8) !== 0 ? {} : undefined) : role.permission(rt, 'insert');
  const upd = admin ? ((rt.db.updatable & 4) !== 0 ? {} : undefined) : role.permission(rt, 'update');
  const del = admin ? ((rt.db.updatable & 16) !== 0 ? {} : undefined) : role.permission(rt, 'delete');
  if (!ins && !upd && !del) return {};
  const out: GraphQLFieldConfigMap<unknown, unknown> = {};
  const scalar = (c: GqlColumn) => tt.columnType(rt, c);
  const inputType = (suffix: string, cols: GqlColumn[]) => new GraphQLInputObjectType({
    name: `${name}_${suffix}`,
    fields: () => {
      const f: GraphQLInputFieldConfigMap = {};
      for (const c of cols) f[c.field] = { type: scalar(c) };
      return cols.length > 0 ? f : PLACEHOLDER_INPUT;
    },
  });
  const response = new GraphQLObjectType({
    name: `${name}_mutation_response`,
    fields: () => ({
      affected_rows: { type: nn(GraphQLInt) },
      ...(view ? { returning: { type: nn(new GraphQLList(nn(tt.objectType(view)))) } } : {}),
    }),
  });
  const pk = view?.pk ?? null;
  const pkArgs = () => Object.fromEntries((pk ?? []).map((c) => [c.field, { type: nn(scalar(c)) }]));
  const boolExp = view ? tt.boolExp(view) : null;
  const updCols = upd ? inputColumns(rt, upd.columns, upd.set) : [];
  const insCols = ins ? inputColumns(rt, ins.columns, ins.set) : [];
  const table: MutationTable = {
    rt, name, view,
    insert: admin ? undefined : ins, update: admin ? undefined : upd, delete: admin ? undefined : del,
    allColumns: tableColumns(rt).all,
    insertColumns: insCols, updateColumns: updCols,
  };
  const constraints = rt.db.uniques.filter((u) => isGraphqlName(u.name));
  let onConflict: GraphQLInputObjectType | null = null;
  if (upd && constraints.length > 0 && boolExp) {
    onConflict = new GraphQLInputObjectType({
      name: `${name}_on_conflict`,
      fields: () => ({
        constraint: { type: nn(new GraphQLEnumType({ name: `${name}_constraint`, values: Object.fromEntries(constraints.map((c) => [c.name, { value: c.name }])) })) },
        update_columns: {
          type: nn(new GraphQLList(nn(new GraphQLEnumType({
            name: `${name}_update_column`,
            values: updCols.length > 0 ? Object.fromEntries(updCols.map((c) => [c.field, { value: c.field }])) : { _PLACEHOLDER: { value: null } },
          })))),
          defaultValue: [],
        },
        where: { type: boolExp },
      }),
    });
  }
  if (ins) {
    const insertInput = inputType('insert_input', insCols);
    const conflictArg: GraphQLFieldConfigArgumentMap = onConflict ? { on_conflict: { type: onConflict } } : {};
    out[names.insert] = { type: response, description: d.insert, args: { objects: { type: nn(new GraphQLList(nn(insertInput))) }, ...conflictArg }, extensions: info({ kind: 'insert', table, one: false }) };
    if (view) out[names.insert_one] = { type: tt.objectType(view), description: d.insert_one, args: { object: { type: nn(insertInput) }, ...conflictArg }, extensions: info({ kind: 'insert', table, one: true }) };
  }
  if (upd && boolExp) {
    const setArg: GraphQLFieldConfigArgumentMap = updCols.length > 0 ? { _set: { type: inputType('set_input', updCols) } } : {};
    const incCols = updCols.filter((c) => NUMERIC.has(c.typeName));
    const incArg: GraphQLFieldConfigArgumentMap = incCols.length > 0 ? { _inc: { type: inputType('inc_input', incCols) } } : {};
    out[names.update] = { type: response, description: d.update, args: { ...incArg, ...setArg, where: { type: nn(boolExp) } }, extensions: info({ kind: 'update', table, byPk: false }) };
    if (view && pk) {
      const pkInput = new GraphQLInputObjectType({ name: `${name}_pk_columns_input`, fields: () => pkArgs() });
      out[names.update_by_pk] = { type: tt.objectType(view), description: d.update_by_pk, args: { ...incArg, ...setArg, pk_columns: { type: nn(pkInput) } }, extensions: info({ kind: 'update', table, byPk: true }) };
    }
  }
  if (del && boolExp) {
    out[names.delete] = { type: response, description: d.delete, args: { where: { type: nn(boolExp) } }, extensions: info({ kind: 'delete', table, byPk: false }) };
    if (view && pk) out[names.delete_by_pk] = { type: tt.objectType(view), description: d.delete_by_pk, args: pkArgs(), extensions: info({ kind: 'delete', table, byPk: true }) };
  }
  return out;
}
