import { quoteIdent, quoteTable } from '../../bool-exp/compile.js';
import { pathIndex, pathKey } from '../../../metadata/json.js';
import { validationFailed } from '../errors.js';
import type { StatementBuilder } from './sql-builder.js';
import { asList, isPlainObject, NumLit, VarRef, type GValue } from './values.js';
import { joinSql, whereSql } from './where.js';
import type { RoleView, TableView } from '../schema/index.js';

/** The arguments of list fields (graphql-api.md §4.3): where, order_by, distinct_on, limit, offset. */

const DIRECTION: Record<string, string> = {
  asc: 'ASC NULLS LAST', asc_nulls_first: 'ASC NULLS FIRST', asc_nulls_last: 'ASC NULLS LAST',
  desc: 'DESC NULLS FIRST', desc_nulls_first: 'DESC NULLS FIRST', desc_nulls_last: 'DESC NULLS LAST',
};

export interface ListClauses {
  conditions: string[];
  distinct: string | null;
  orderBy: string | null;
  limit: string | null;
  offset: string | null;
}

interface OrderTerm { expr: string; dir: string; column: string | null }

function orderTerms(b: StatementBuilder, role: RoleView, v: GValue, view: TableView, alias: string, path: string, wrap: (e: string) => string, out: OrderTerm[]): void {
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
      if (!rel || !remote) continue;
      const a = b.alias();
      const conds = [joinSql(rel, alias, a), b.permission(remote, a), b.cellCondition(view, `r:${rel.name}`, alias) ?? 'true'].filter((c) => c !== 'true').join(' AND ');
      const inner = (e: string) => wrap(`(SELECT ${e} FROM ${quoteTable(remote.rt.entry.table)} AS ${a} WHERE ${conds} LIMIT 1)`);
      orderTerms(b, role, value, remote, a, pathKey(p, key), inner, out);
    }
  });
}

const identity = (e: string): string => e;

function count(v: GValue | undefined, path: string): number | null {
  if (v === undefined || v === null) return null;
  const n = v instanceof NumLit ? Number(v.text) : Number(v);
  if (n < 0) throw validationFailed(path, 'unexpected negative value');
  return n;
}

/**
 * Compiles the arguments of a list field over `alias`. `permLimit` applies (the smaller wins) unless null.
 * Argument checks that need values (§1.3 step 8) fail here with the §6.1 messages.
 */
export function listClauses(
  b: StatementBuilder, role: RoleView, args: Map<string, GValue>, view: TableView, alias: string, path: string, permLimit: number | null,
): ListClauses {
  const conditions: string[] = [];
  const perm = b.permission(view, alias);
  if (perm !== 'true') conditions.push(perm);
  const where = args.get('where');
  if (where !== undefined && where !== null) {
    const w = whereSql(b, role, where, view, alias, `${path}.args.where`);
    if (w !== 'true') conditions.push(w);
  }
  const terms: OrderTerm[] = [];
  const ob = args.get('order_by');
  if (ob !== undefined && ob !== null) orderTerms(b, role, ob, view, alias, `${path}.args.order_by`, identity, terms);
  const don = args.get('distinct_on');
  let distinct: string | null = null;
  if (don !== undefined && don !== null) {
    // `<T>_select_column` values are GraphQL names; the SQL names them by their columns.
    const cols = asList(don).map(String).flatMap((c) => view.columns.find((x) => x.field === c)?.name ?? []);
    if (cols.length > 0) {
      if (terms.length > 0) {
        const initial = terms.slice(0, cols.length).map((t) => t.column);
        const same = initial.length === cols.length && cols.every((c) => initial.includes(c)) && initial.every((c) => c !== null && cols.includes(c));
        if (!same) throw validationFailed(`${path}.args`, '"distinct_on" columns must match initial "order_by" columns');
      } else {
        for (const c of cols) terms.push({ expr: b.cell(view, `c:${c}`, alias, `${alias}.${quoteIdent(c)}`), dir: 'ASC', column: c });
      }
      // The very expressions of the ORDER BY (PostgreSQL compares them as written, parameters included).
      distinct = `DISTINCT ON (${cols.map((c) => terms.find((t) => t.column === c)?.expr ?? `${alias}.${quoteIdent(c)}`).join(', ')})`;
    }
  }
  const lv = args.get('limit');
  const ov = args.get('offset');
  let limit: string | null;
  let offset: string | null;
  if (lv instanceof VarRef) limit = b.count(lv, `${path}.args.limit`, permLimit);
  else {
    const l = count(lv, `${path}.args.limit`);
    const eff = l === null ? permLimit : permLimit === null ? l : Math.min(l, permLimit);
    limit = eff === null ? null : b.value(String(eff), 'integer');
  }
  if (ov instanceof VarRef) offset = b.count(ov, `${path}.args.offset`, null);
  else {
    const o = count(ov, `${path}.args.offset`);
    offset = o === null || o === 0 ? null : b.value(String(o), 'integer');
  }
  return { conditions, distinct, orderBy: terms.length > 0 ? terms.map((t) => `${t.expr} ${t.dir}`).join(', ') : null, limit, offset };
}
