import { quoteIdent } from '../../bool-exp/compile.js';
import { validationFailed } from '../errors.js';
import type { StatementBuilder } from './sql-builder.js';
import { asList, NumLit, VarRef, type GValue } from './values.js';
import { whereSql } from './where.js';
import { orderTerms, type OrderTerm } from './order-by.js';
import type { RoleView, TableView } from '../schema/index.js';

/** The arguments of list fields (graphql-api.md §4.3): where, order_by, distinct_on, limit, offset. */

export interface ListClauses {
  conditions: string[];
  distinct: string | null;
  orderBy: string | null;
  limit: string | null;
  offset: string | null;
  /** FROM items the order needs after the list's own (order-by.ts GroupedJoins), or ''. */
  joins: string;
}

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
  b: StatementBuilder, role: RoleView, args: Map<string, GValue>, view: TableView, alias: string, path: string, permLimit: number | null, root = false,
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
  // A root list's filters again on another alias: what a grouped join restricts its related rows to.
  const restrict = (p: string): string[] => [b.permission(view, p), where !== undefined && where !== null ? whereSql(b, role, where, view, p, `${path}.args.where`) : 'true'];
  const grouped = root ? { joins: [] as string[], restrict } : null;
  if (ob !== undefined && ob !== null) orderTerms(b, role, ob, view, alias, `${path}.args.order_by`, terms, undefined, grouped);
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
  return { conditions, distinct, orderBy: terms.length > 0 ? terms.map((t) => `${t.expr} ${t.dir}`).join(', ') : null, limit, offset, joins: grouped?.joins.join('') ?? '' };
}
