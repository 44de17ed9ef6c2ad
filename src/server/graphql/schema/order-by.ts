import { GraphQLInputObjectType, type GraphQLEnumType, type GraphQLInputFieldConfigMap } from 'graphql';
import { NUMERIC } from '../../bool-exp/operators.js';
import type { QualifiedName } from '../../../metadata/types.js';
import { NO_EXTENSIONS } from './extensions.js';
import type { CfView, RoleView, TableView } from './visibility.js';

/**
 * The parts of `T_order_by` beyond columns and object relationships (issue 30.2), as the incumbent has them:
 * `<rel>_aggregate: R_aggregate_order_by` per array relationship, `<cf>: order_by` per scalar computed field and
 * `<cf>_aggregate: R_aggregate_order_by` per computed field returning a set of rows — computed fields only when the
 * function takes no argument besides the row and the session.
 */

/** Aggregates over numeric columns, and over columns with an order (max and min), in the incumbent's names. */
export const NUMERIC_ORDER_OPS = ['avg', 'stddev', 'stddev_pop', 'stddev_samp', 'sum', 'var_pop', 'var_samp', 'variance'] as const;
export const COMPARABLE_ORDER_OPS = ['max', 'min'] as const;
export type OrderOp = (typeof NUMERIC_ORDER_OPS)[number] | (typeof COMPARABLE_ORDER_OPS)[number];

const baseType = (typeName: string): string => typeName.replace(/\(.*\)$/, '');

/** `"name"`, or `"schema.name"` outside public: how the incumbent names a table in descriptions. */
export function tableLabel(t: QualifiedName): string {
  return `"${t.schema === 'public' ? t.name : `${t.schema}.${t.name}`}"`;
}

/** A computed field that can order rows: no user arguments, so it needs nothing but the row and the session. */
export const orderableCf = (cf: CfView): boolean => cf.fnArgs.args.length === 0;

/** A column an op orders by; `comparable`: whether the column has max/min (decided by the aggregate field types). */
export function opColumns(v: TableView, op: OrderOp, comparable: (typeName: string) => boolean): TableView['columns'] {
  const numeric = (NUMERIC_ORDER_OPS as readonly string[]).includes(op);
  return v.columns.filter((c) => (numeric ? NUMERIC.has(baseType(c.typeName)) : comparable(c.typeName)));
}

export interface OrderTypes {
  role: RoleView;
  orderEnum: GraphQLEnumType;
  inputs: Map<string, GraphQLInputObjectType>;
  comparable: (typeName: string) => boolean;
  orderBy: (v: TableView) => GraphQLInputObjectType;
}

/** `R_aggregate_order_by`: `count` and, per op with columns, `R_<op>_order_by` of those columns. */
export function aggregateOrderBy(t: OrderTypes, v: TableView): GraphQLInputObjectType {
  const name = `${v.name}_aggregate_order_by`;
  let type = t.inputs.get(name);
  if (type) return type;
  const label = tableLabel(v.rt.entry.table);
  const fields: GraphQLInputFieldConfigMap = {};
  const order = { type: t.orderEnum, extensions: NO_EXTENSIONS };
  for (const op of [...NUMERIC_ORDER_OPS, ...COMPARABLE_ORDER_OPS, 'count'].sort()) {
    if (op === 'count') {
      fields[op] = order;
      continue;
    }
    const cols = opColumns(v, op as OrderOp, t.comparable);
    if (cols.length === 0) continue;
    const opName = `${v.name}_${op}_order_by`;
    let opType = t.inputs.get(opName);
    if (!opType) {
      const f: GraphQLInputFieldConfigMap = {};
      for (const c of cols) f[c.field] = { type: t.orderEnum, description: c.comment ?? undefined, extensions: NO_EXTENSIONS };
      opType = new GraphQLInputObjectType({ extensions: NO_EXTENSIONS, name: opName, description: `order by ${op}() on columns of table ${label}`, fields: f });
      t.inputs.set(opName, opType);
    }
    fields[op] = { type: opType, extensions: NO_EXTENSIONS };
  }
  type = new GraphQLInputObjectType({ extensions: NO_EXTENSIONS, name, description: `order by aggregate values of table ${label}`, fields });
  t.inputs.set(name, type);
  return type;
}

/** Adds the aggregate and computed-field keys of `T_order_by` to `f` (its columns and object relationships). */
export function extraOrderFields(t: OrderTypes, v: TableView, f: GraphQLInputFieldConfigMap, hiddenCf: (cf: CfView) => boolean): void {
  for (const r of v.arrRels) {
    const remote = t.role.table(r.remoteKey);
    const key = `${r.name}_aggregate`;
    // Ordering by an aggregate reveals it: only where the role may aggregate the related rows.
    if (remote?.aggregates && !(key in f)) f[key] = { type: aggregateOrderBy(t, remote), extensions: NO_EXTENSIONS };
  }
  for (const cf of v.scalarCfs) {
    if (hiddenCf(cf) || !orderableCf(cf) || baseType(cf.cf.fn.returnTypeName) === 'json' || cf.name in f) continue;
    f[cf.name] = { type: t.orderEnum, extensions: NO_EXTENSIONS };
  }
  for (const cf of v.tableCfs) {
    const key = `${cf.name}_aggregate`;
    const remote = cf.target ? t.role.table(cf.target) : null;
    if (hiddenCf(cf) || !orderableCf(cf) || !cf.cf.returnsSet || !remote?.aggregates || key in f) continue;
    f[key] = { type: aggregateOrderBy(t, remote), extensions: NO_EXTENSIONS };
  }
}
