import { quoteIdent, quoteTable } from '../../bool-exp/compile.js';
import { pathIndex, pathKey } from '../../../metadata/json.js';
import type { StatementBuilder } from './sql-builder.js';
import { asList, isPlainObject, type GValue } from './values.js';
import { cfCall, joinSql } from './where.js';
import type { RoleView, TableView } from '../schema/index.js';

/**
 * `order_by` → ORDER BY terms (graphql-api.md §4.3, issue 30.2): columns, object relationships (the related row's
 * terms), array-relationship aggregates, scalar computed fields and aggregates of set-returning computed fields.
 * An aggregate is a correlated subquery over the related rows the role may see (its select filter inside, never
 * its `limit`): the incumbent's semantics, and PostgreSQL runs it once per ordered row through the join's index.
 */

const DIRECTION: Record<string, string> = {
  asc: 'ASC NULLS LAST', asc_nulls_first: 'ASC NULLS FIRST', asc_nulls_last: 'ASC NULLS LAST',
  desc: 'DESC NULLS FIRST', desc_nulls_first: 'DESC NULLS FIRST', desc_nulls_last: 'DESC NULLS LAST',
};

/** `column`: the SQL column when the term is a plain column of the listed table (distinct_on compares them). */
export interface OrderTerm { expr: string; dir: string; column: string | null }

/** The SQL aggregate of each op of `R_aggregate_order_by` (the GraphQL names are PostgreSQL's). */
const OPS = new Set(['avg', 'max', 'min', 'stddev', 'stddev_pop', 'stddev_samp', 'sum', 'var_pop', 'var_samp', 'variance']);

const identity = (e: string): string => e;

/**
 * A root list's grouped joins (issue 30's benchmark): there, an array-relationship aggregate is one GROUP BY over the
 * related rows whose parent the list may return — `restrict` gives the list's filters on another alias of its table —
 * LEFT JOINed to the list, instead of a subquery per listed row (PostgreSQL then hashes where there are many rows and
 * follows the index where there are few). `joins` collects the FROM items.
 */
export interface GroupedJoins { joins: string[]; restrict: (alias: string) => string[] }

/**
 * The terms of one `R_aggregate_order_by` value over the related rows `from` (a FROM item aliased `a`) where `conds`
 * hold, in key order; `wrap` puts each into the enclosing object relationships' subqueries.
 */
function aggregateTerms(b: StatementBuilder, v: GValue, remote: TableView, from: string, a: string, conds: string[], wrap: (e: string) => string, out: OrderTerm[]): void {
  if (!isPlainObject(v)) return;
  const where = conds.filter((c) => c !== 'true');
  const sub = (agg: string): string => wrap(`(SELECT ${agg} FROM ${from}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''})`);
  eachAggregate(b, v, remote, (aggOf, _isCount, dir) => out.push({ expr: sub(aggOf(a)), dir, column: null }));
}

export function orderTerms(b: StatementBuilder, role: RoleView, v: GValue, view: TableView, alias: string, path: string, out: OrderTerm[], wrap: (e: string) => string = identity, grouped: GroupedJoins | null = null): void {
  asList(v).forEach((entry, i) => {
    if (!isPlainObject(entry)) return;
    const p = Array.isArray(v) ? pathIndex(path, i) : path;
    for (const [key, value] of Object.entries(entry)) {
      if (value === null) continue;
      const column = view.columns.find((c) => c.field === key);
      if (column) {
        const dir = DIRECTION[String(value)];
        if (dir) out.push({ expr: wrap(b.cell(view, `c:${column.name}`, alias, `${alias}.${quoteIdent(column.name)}`)), dir, column: wrap === identity ? column.name : null });
        continue;
      }
      const rel = view.objRels.find((r) => r.name === key);
      const remote = rel && role.table(rel.remoteKey);
      if (rel && remote) {
        const a = b.alias();
        const conds = [joinSql(rel, alias, a), b.permission(remote, a), b.cellCondition(view, `r:${rel.name}`, alias) ?? 'true'].filter((c) => c !== 'true').join(' AND ');
        const inner = (e: string) => wrap(`(SELECT ${e} FROM ${quoteTable(remote.rt.entry.table)} AS ${a} WHERE ${conds} LIMIT 1)`);
        orderTerms(b, role, value, remote, a, pathKey(p, key), out, inner);
        continue;
      }
      extraTerm(b, role, key, value, view, alias, wrap, out, wrap === identity ? grouped : null);
    }
  });
}

/** `<rel>_aggregate`, `<cf>` and `<cf>_aggregate` keys; the schema offers only those the role may use. */
function extraTerm(b: StatementBuilder, role: RoleView, key: string, value: GValue, view: TableView, alias: string, wrap: (e: string) => string, out: OrderTerm[], grouped: GroupedJoins | null): void {
  const scalar = view.scalarCfs.find((c) => c.name === key);
  if (scalar) {
    const dir = DIRECTION[String(value)];
    if (dir) out.push({ expr: wrap(b.cell(view, `f:${scalar.name}`, alias, cfCall(b, scalar, alias))), dir, column: null });
    return;
  }
  if (!key.endsWith('_aggregate')) return;
  const name = key.slice(0, -'_aggregate'.length);
  const rel = view.arrRels.find((r) => r.name === name);
  const relRemote = rel && role.table(rel.remoteKey);
  if (rel && relRemote && grouped && view.cells?.get(`r:${rel.name}`) === undefined) {
    groupedTerms(b, value, view, relRemote, rel, alias, grouped, out);
    return;
  }
  if (rel && relRemote) {
    const a = b.alias();
    const conds = [joinSql(rel, alias, a), b.permission(relRemote, a), b.cellCondition(view, `r:${rel.name}`, alias) ?? 'true'];
    aggregateTerms(b, value, relRemote, `${quoteTable(relRemote.rt.entry.table)} AS ${a}`, a, conds, wrap, out);
    return;
  }
  const cf = view.tableCfs.find((c) => c.name === name);
  const cfRemote = cf?.target ? role.table(cf.target) : null;
  if (cf && cfRemote) {
    const a = b.alias();
    const conds = [b.permission(cfRemote, a), b.cellCondition(view, `f:${cf.name}`, alias) ?? 'true'];
    aggregateTerms(b, value, cfRemote, `${cfCall(b, cf, alias)} AS ${a}`, a, conds, wrap, out);
  }
}

/** The terms of `R_aggregate_order_by` as grouped joins (GroupedJoins); the related rows' select filter inside. */
function groupedTerms(b: StatementBuilder, v: GValue, view: TableView, remote: TableView, rel: TableView['arrRels'][number], alias: string, g: GroupedJoins, out: OrderTerm[]): void {
  if (!isPlainObject(v)) return;
  const join = (aggOf: (a: string) => string, isCount: boolean, dir: string): void => {
    const a = b.alias();
    const p = b.alias();
    const j = b.alias();
    const keys = rel.rel.mapping.map(([, r], i) => `${a}.${quoteIdent(r)} AS "k${i}"`).join(', ');
    const remoteCols = rel.rel.mapping.map(([, r]) => `${a}.${quoteIdent(r)}`).join(', ');
    const parentCols = rel.rel.mapping.map(([l]) => `${p}.${quoteIdent(l)}`).join(', ');
    const parentWhere = [...g.restrict(p)].filter((c) => c !== 'true');
    // Without filters every parent is a candidate: groups of no parent simply find nothing to join.
    const within = parentWhere.length === 0 ? 'true' : `(${remoteCols}) IN (SELECT ${parentCols} FROM ${quoteTable(view.rt.entry.table)} AS ${p} WHERE ${parentWhere.join(' AND ')})`;
    const agg = aggOf(a);
    const where = [b.permission(remote, a), within].filter((c) => c !== 'true').join(' AND ');
    const groupBy = rel.rel.mapping.map((_, i) => String(i + 1)).join(', ');
    const on = rel.rel.mapping.map(([l], i) => `${j}."k${i}" = ${alias}.${quoteIdent(l)}`).join(' AND ');
    g.joins.push(` LEFT JOIN (SELECT ${keys}, ${agg} AS "v" FROM ${quoteTable(remote.rt.entry.table)} AS ${a}${where ? ` WHERE ${where}` : ''} GROUP BY ${groupBy}) AS ${j} ON ${on}`);
    // No related row: no group, so no join row; count is then 0 and every other aggregate null.
    out.push({ expr: isCount ? `coalesce(${j}."v", 0)` : `${j}."v"`, dir, column: null });
  };
  eachAggregate(b, v, remote, join);
}

/** What an aggregate term is besides its SQL: its keys in the value (`count`, `max.id`) and the SQL type it yields. */
export interface AggregateKey { key: string[]; castType: string }

/** The SQL type of `op(column)`: min and max keep the column's, the others are compared as numbers. */
const aggregateType = (op: string, castType: string): string => (op === 'min' || op === 'max' ? castType : 'numeric');

/**
 * The terms of an `R_aggregate_order_by` value in order: `count`, then `op(column)` for each column of the related
 * table the role sees, with its direction; `aggOf` gives the aggregate over the related rows' alias.
 */
export function eachAggregate(b: StatementBuilder, v: GValue, remote: TableView, term: (aggOf: (a: string) => string, isCount: boolean, dir: string, k: AggregateKey) => void): void {
  if (!isPlainObject(v)) return;
  for (const [op, value] of Object.entries(v)) {
    if (value === null) continue;
    if (op === 'count') {
      const dir = DIRECTION[String(value)];
      if (dir) term(() => 'count(*)', true, dir, { key: ['count'], castType: 'bigint' });
      continue;
    }
    if (!OPS.has(op) || !isPlainObject(value)) continue;
    for (const [field, d] of Object.entries(value)) {
      const column = remote.columns.find((c) => c.field === field);
      const dir = d === null ? undefined : DIRECTION[String(d)];
      if (!column || !dir) continue;
      // An inherited role's hidden cells are null: aggregated as such (issue 27).
      term((a) => `${op}(${b.cell(remote, `c:${column.name}`, a, `${a}.${quoteIdent(column.name)}`)})`, false, dir, { key: [op, field], castType: aggregateType(op, column.castType) });
    }
  }
}
