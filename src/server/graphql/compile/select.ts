import { getNamedType, GraphQLObjectType, Kind, type FieldNode, type GraphQLField } from 'graphql';
import { quoteIdent, quoteTable } from '../../bool-exp/compile.js';
import { aggregateSql } from '../schema/index.js';
import { fieldInfo, type AggOp, type FieldInfo, type RowSource } from '../schema/index.js';
import { listClauses, type ListClauses } from './list-args.js';
import { outputExpr } from '../schema/index.js';
import type { StatementBuilder } from './sql-builder.js';
import { asList, isPlainObject, type GValue } from './values.js';
import { joinSql } from './where.js';
import { jsonPathSql } from './json-path.js';
import type { RoleView, TableView } from '../schema/index.js';
import type { SelectionContext } from './selection.js';
import { remoteJoinJson } from './remote-join.js';
import { gqlError } from '../errors.js';

/**
 * GraphQL selections → one SQL expression whose value is the field's JSON (graphql-api.md §4.3, §7): objects with
 * json_build_object, lists with json_agg in the order of a row_number window, nested fields as correlated subqueries.
 */

/** Where a function's arguments are written: its field and that field's path (for errors). */
export interface ArgSite {
  node: FieldNode;
  path: string;
}

/** Whether `args: {<name>: …}` is written in the document (its value may be a variable the request leaves out). */
function writtenArg(node: FieldNode, name: string): boolean {
  const v = node.arguments?.find((a) => a.name.value === 'args')?.value;
  return v?.kind === Kind.OBJECT && v.fields.some((f) => f.name.value === name);
}

/** A JSON object of key/expression pairs; json_build_object takes at most 50 pairs, wider objects use row_to_json. */
export function jsonObject(pairs: [string, string][]): string {
  if (pairs.length <= 50) return `json_build_object(${pairs.map(([k, e]) => `'${k}', ${e}`).join(', ')})`;
  return `(SELECT row_to_json("_o") FROM (SELECT ${pairs.map(([k, e]) => `${e} AS ${quoteIdent(k)}`).join(', ')}) AS "_o")`;
}

const col = (row: string, name: string): string => `(${row}).${quoteIdent(name)}`;

type Field = GraphQLField<unknown, unknown>;

/**
 * The rows of a list: `n` numbers them in the requested order (json_agg orders by it), then the filters, order,
 * DISTINCT ON, offset and limit of §4.3 in one SELECT; `expr` is the item, output as column `name`.
 */
function rowSelect(c: ListClauses, expr: string, name: string, from: string, where: string[]): string {
  const order = c.orderBy ? `ORDER BY ${c.orderBy}` : '';
  const rest = `FROM ${from}${c.joins}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}${order ? ` ${order}` : ''}` +
    `${c.limit ? ` LIMIT ${c.limit}` : ''}${c.offset ? ` OFFSET ${c.offset}` : ''}`;
  if (order && c.limit && !c.distinct) {
    // An ordered list with a limit (issue 30's benchmark: 20 of 10,000 rows): a window between the sort and the limit
    // would hide the limit from the sort, which would then order every row instead of keeping the first ones (a
    // top-N sort), so the rows are numbered after the limit, in the order the limited subquery yields them. A
    // volatile operand makes PostgreSQL compute the item after the sort, for the rows the limit keeps only (it
    // postpones volatile output expressions past ORDER BY), as the window did.
    return `SELECT row_number() OVER () AS "n", "_l".${quoteIdent(name)} FROM (SELECT CASE WHEN clock_timestamp() IS NULL THEN NULL ELSE ${expr} END AS ${quoteIdent(name)} ${rest}) AS "_l"`;
  }
  return `SELECT ${c.distinct ? `${c.distinct} ` : ''}row_number() OVER (${order}) AS "n", ${expr} AS ${quoteIdent(name)} ${rest}`;
}
const named = (f: Field): GraphQLObjectType => getNamedType(f.type) as GraphQLObjectType;

export class SelectionCompiler {
  constructor(readonly b: StatementBuilder, readonly role: RoleView, readonly sel: SelectionContext) {}

  /** The JSON object of a selection set over the row expression `row`, a row of `view` (its cells' visibility). */
  objectJson(type: GraphQLObjectType, nodes: FieldNode[], row: string, path: string, view: TableView | null): string {
    const pairs: [string, string][] = [];
    for (const [key, fieldNodes] of this.sel.subfields(nodes)) {
      const node = fieldNodes[0] as FieldNode;
      const p = `${path}.selectionSet.${key}`;
      if (node.name.value === '__typename') {
        pairs.push([key, `'${type.name}'::text`]);
        continue;
      }
      const field = type.getFields()[node.name.value] as Field;
      pairs.push([key, this.fieldJson(field, fieldNodes, row, p, view)]);
    }
    return jsonObject(pairs);
  }

  protected fieldJson(field: Field, nodes: FieldNode[], row: string, path: string, parent: TableView | null): string {
    const i = fieldInfo(field) as FieldInfo;
    const node = nodes[0] as FieldNode;
    // An inherited role's cell that no member selecting this row grants is null (issue 27).
    const cell = (key: string, expr: string): string => this.b.cell(parent, key, row, expr);
    const relKey = (source: RowSource): string => (source.kind === 'rel' ? `r:${source.rel.name}` : `f:${field.name}`);
    switch (i.kind) {
      case 'column': {
        const value = field.args.length > 0 ? jsonPathSql(this.b, col(row, i.column.name), this.sel.args(node).get('path'), `${path}.args.path`) : col(row, i.column.name);
        return cell(`c:${i.column.name}`, outputExpr(value, i.column.typeName, this.sel.stringifyNumeric));
      }
      case 'scalar_cf': {
        const call = this.functionCall(i.cf.cf.fn.schema, i.cf.cf.fn.name, { kind: 'function', fn: i.cf.cf.fn, fnArgs: i.cf.fnArgs, viaRow: true }, this.sel.args(node), row, { node, path });
        return cell(`f:${i.cf.name}`, outputExpr(call, i.cf.cf.fn.returnTypeName, this.sel.stringifyNumeric));
      }
      case 'object':
        return cell(relKey(i.source), this.objectRow(field, i.view, i.source, nodes, row, path));
      case 'rows': {
        const rows = this.rowsJson(field, i.view, i.source, nodes, row, path);
        const c = parent ? this.b.cellCondition(parent, relKey(i.source), row) : null;
        return c ? `CASE WHEN ${c} THEN ${rows} ELSE '[]'::json END` : rows;
      }
      case 'aggregate':
        return this.aggregateJson(field, i.view, i.source, nodes, row, path, parent ? this.b.cellCondition(parent, relKey(i.source), row) : null);
      case 'constant':
        return `'${i.json}'::json`;
      case 'remote_rel':
        return remoteJoinJson(this.b, i.rel, i.remote, nodes, row, path);
      default:
        throw new Error(`field ${field.name} cannot be selected here`);
    }
  }

  /** FROM item and join/correlation conditions of a row source, given the parent row. */
  protected from(view: TableView, source: RowSource, args: Map<string, GValue>, alias: string, parentRow: string | null, site: ArgSite): { from: string; conds: string[] } {
    if (source.kind === 'table') return { from: `${quoteTable(view.rt.entry.table)} AS ${alias}`, conds: [] };
    if (source.kind === 'rel') return { from: `${quoteTable(view.rt.entry.table)} AS ${alias}`, conds: [joinSql(source.rel, parentRow ?? '', alias)] };
    if (source.kind === 'json') {
      // The handler's field value cast to the column's type; a null or absent value matches no row.
      const conds = source.mapping.map((m) => `${alias}.${quoteIdent(m.column)} = ((${parentRow ?? 'NULL'}) ->> '${m.field}')::${m.castType}`);
      return { from: `${quoteTable(view.rt.entry.table)} AS ${alias}`, conds };
    }
    const call = this.functionCall(source.fn.schema, source.fn.name, source, args, parentRow, site);
    // A function returning one composite row gives an all-NULL row for NULL: that is "no row".
    return { from: `${call} AS ${alias}`, conds: source.fn.returnsSet ? [] : [`NOT (${alias} IS NULL)`] };
  }

  /**
   * `"s"."f"(<row>, "arg" => $n::type, …)`: named notation, so omitted defaulted arguments take their defaults. The
   * schema types every argument nullable (the incumbent's): an argument without a default must be given, null or not;
   * one written with a variable the request leaves out is null, not its default (the incumbent's absent variable).
   */
  private functionCall(schema: string, name: string, source: Extract<RowSource, { kind: 'function' }>, args: Map<string, GValue>, row: string | null, site: ArgSite): string {
    const parts: string[] = [];
    const ta = source.fnArgs.tableArg;
    if (source.viaRow && ta) parts.push(ta.name ? `${quoteIdent(ta.name)} => ${row ?? 'NULL'}` : (row ?? 'NULL'));
    const given = args.get('args');
    const values = isPlainObject(given) ? given : {};
    for (const { arg, required } of source.fnArgs.args) {
      const written = arg.name in values || writtenArg(site.node, arg.name);
      if (!written) {
        if (required) throw gqlError('not-supported', `${site.path}.args.args`, 'Non default arguments cannot be omitted');
        continue;
      }
      parts.push(`${quoteIdent(arg.name)} => ${this.b.param(values[arg.name] ?? null, arg.castType)}`);
    }
    const sa = source.fnArgs.sessionArg;
    if (sa) {
      const t = source.fn.inputs.find((a) => a.name === sa)?.castType ?? 'json';
      parts.push(`${quoteIdent(sa)} => ${this.b.sessionJson(t)}`);
    }
    return `${quoteTable({ schema, name })}(${parts.join(', ')})`;
  }

  objectRow(field: Field, view: TableView, source: RowSource, nodes: FieldNode[], row: string | null, path: string): string {
    const a = this.b.alias();
    const args = this.sel.args(nodes[0] as FieldNode);
    const { from, conds } = this.from(view, source, args, a, row, { node: nodes[0] as FieldNode, path });
    const perm = this.b.permission(view, a);
    const where = [...conds, perm].filter((c) => c !== 'true');
    const obj = this.objectJson(named(field), nodes, a, path, view);
    return `(SELECT ${obj} FROM ${from}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} LIMIT 1)`;
  }

  /** `T_by_pk`: the row with the given key that the role may see, or null. */
  byPk(field: Field, view: TableView, nodes: FieldNode[], path: string): string {
    const a = this.b.alias();
    const args = this.sel.args(nodes[0] as FieldNode);
    const where = (view.pk ?? []).map((c) => `${a}.${quoteIdent(c.name)} = ${this.b.param(args.get(c.field) ?? null, c.castType)}`);
    const perm = this.b.permission(view, a);
    if (perm !== 'true') where.push(perm);
    const obj = this.objectJson(named(field), nodes, a, path, view);
    return `(SELECT ${obj} FROM ${quoteTable(view.rt.entry.table)} AS ${a} WHERE ${where.join(' AND ')} LIMIT 1)`;
  }

  rowsJson(field: Field, view: TableView, source: RowSource, nodes: FieldNode[], row: string | null, path: string): string {
    const a = this.b.alias();
    const args = this.sel.args(nodes[0] as FieldNode);
    const { from, conds } = this.from(view, source, args, a, row, { node: nodes[0] as FieldNode, path });
    const c = listClauses(this.b, this.role, args, view, a, path, view.limit, source.kind === 'table');
    const where = [...conds, ...c.conditions];
    const obj = this.objectJson(named(field), nodes, a, path, view);
    const e = this.b.alias();
    return `(SELECT coalesce(json_agg(${e}."j" ORDER BY ${e}."n"), '[]'::json) FROM (${rowSelect(c, obj, 'j', from, where)}) AS ${e})`;
  }

  /** `visible`: where the parent row's relationship is visible to an inherited role (else it aggregates no rows). */
  aggregateJson(field: Field, view: TableView, source: RowSource, nodes: FieldNode[], row: string | null, path: string, visible: string | null = null): string {
    const a = this.b.alias();
    const args = this.sel.args(nodes[0] as FieldNode);
    const { from, conds } = this.from(view, source, args, a, row, { node: nodes[0] as FieldNode, path });
    // The permission limit caps `nodes`, not the rows aggregated (the incumbent's rule, issue 30.5): with aggregate
    // fields selected, only the field's own limit applies to the rows and the nodes keep the first `limit` of them.
    const subs = this.sel.subfields(nodes);
    const capNodes = view.limit !== null && [...subs.values()].some((fns) => (fns[0] as FieldNode).name.value === 'aggregate');
    const c = listClauses(this.b, this.role, args, view, a, path, capNodes ? null : view.limit, source.kind === 'table');
    const where = [...conds, ...c.conditions, ...(visible ? [visible] : [])];
    const e = this.b.alias();
    const r = `${e}."r"`;
    // Bound only where the nodes are selected: an unused parameter has no type PostgreSQL can infer.
    const cap = (): string => (capNodes ? ` FILTER (WHERE ${e}."k" <= ${this.b.value(String(view.limit), 'integer')})` : '');
    const aggType = named(field);
    const pairs: [string, string][] = [];
    for (const [key, fns] of subs) {
      const n = fns[0] as FieldNode;
      const p = `${path}.selectionSet.${key}`;
      if (n.name.value === '__typename') pairs.push([key, `'${aggType.name}'::text`]);
      else if (n.name.value === 'nodes') pairs.push([key, `coalesce(json_agg(${this.objectJson(this.typeOfField(aggType, 'nodes'), fns, r, p, view)} ORDER BY ${e}."n")${cap()}, '[]'::json)`]);
      else pairs.push([key, this.aggregateFields(this.typeOfField(aggType, 'aggregate'), view, fns, r)]);
    }
    // The rows are selected whole ("r") so that nodes can pass them to computed fields after aggregation.
    const rows = rowSelect(c, a, 'r', from, where);
    // "k" numbers the rows after offset and DISTINCT ON ("n" is numbered before them): the nodes are the first k.
    const numbered = capNodes ? `(SELECT "n", "r", row_number() OVER (ORDER BY "n") AS "k" FROM (${rows}) AS "_k")` : `(${rows})`;
    return `(SELECT ${jsonObject(pairs)} FROM ${numbered} AS ${e})`;
  }

  /** An aggregate object's JSON: `term` gives each subfield's SQL (undefined: left out); `__typename` is constant. */
  private aggregatePairs(type: GraphQLObjectType, nodes: FieldNode[], term: (i: FieldInfo | undefined, field: GraphQLField<unknown, unknown> | undefined, n: FieldNode, fns: FieldNode[]) => string | undefined): string {
    const pairs: [string, string][] = [];
    for (const [key, fns] of this.sel.subfields(nodes)) {
      const n = fns[0] as FieldNode;
      const field = type.getFields()[n.name.value];
      const sql = n.name.value === '__typename' ? `'${type.name}'::text` : term(field ? fieldInfo(field) : undefined, field, n, fns);
      if (sql !== undefined) pairs.push([key, sql]);
    }
    return jsonObject(pairs);
  }

  private aggregateFields(type: GraphQLObjectType, view: TableView, nodes: FieldNode[], r: string): string {
    return this.aggregatePairs(type, nodes, (i, field, n, fns) => {
      if (i?.kind === 'agg_count') return this.count(n, view, r);
      if (i?.kind === 'agg_op' && field) return this.aggregateOp(getNamedType(field.type) as GraphQLObjectType, view, i.op, fns, r);
      return undefined;
    });
  }

  private count(n: FieldNode, view: TableView, r: string): string {
    const args = this.sel.args(n);
    // The `<T>_select_column` values are GraphQL names: each stands for its SQL column.
    const given = args.has('columns') && args.get('columns') !== null ? asList(args.get('columns') as GValue).map(String) : [];
    const cols = given.flatMap((g) => view.columns.find((c) => c.field === g)?.name ?? []);
    const distinct = args.get('distinct') === true;
    if (cols.length === 0) return distinct ? `count(DISTINCT ${r})` : 'count(*)';
    // An inherited role's hidden cells are null: counted as such (issue 27).
    const exprs = cols.map((c) => this.b.cell(view, `c:${c}`, r, col(r, c)));
    const nonNull = exprs.map((x) => `${x} IS NOT NULL`).join(' AND ');
    if (!distinct) return `count(*) FILTER (WHERE ${nonNull})`;
    return exprs.length === 1 ? `count(DISTINCT ${exprs[0] as string})` : `count(DISTINCT ROW(${exprs.join(', ')})) FILTER (WHERE ${nonNull})`;
  }

  private aggregateOp(type: GraphQLObjectType, view: TableView, op: AggOp, nodes: FieldNode[], r: string): string {
    return this.aggregatePairs(type, nodes, (i) => (i?.kind === 'agg_col'
      // Stringified as the incumbent does: by the aggregated column's type (an integer column's sum and avg stay numbers).
      ? outputExpr(aggregateSql(op, this.b.cell(view, `c:${i.column.name}`, r, col(r, i.column.name)), i.column), i.column.typeName, this.sel.stringifyNumeric)
      : undefined));
  }

  private typeOfField(t: GraphQLObjectType, name: string): GraphQLObjectType {
    return getNamedType(t.getFields()[name]?.type) as GraphQLObjectType;
  }
}
