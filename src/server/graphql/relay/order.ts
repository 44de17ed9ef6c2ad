import { quoteIdent, quoteTable } from '../../bool-exp/compile.js';
import { pathIndex, pathKey } from '../../../metadata/json.js';
import { validationFailed } from '../errors.js';
import { cfCall, eachAggregate, isPlainObject, joinSql, type GValue, type StatementBuilder } from '../compile/index.js';
import type { RoleView, TableView } from '../schema/index.js';

/**
 * A connection's order (issue 30.6): the `order_by` terms, then the primary key, so that every row has a distinct
 * position. Each term is also a key of the cursor (`{"title" : …, "id" : …}`, nested for object relationships).
 */
export interface OrderTerm {
  expr: string;
  desc: boolean;
  nullsFirst: boolean;
  /** The term's place in the cursor object. */
  key: string[];
  castType: string;
}

const DIRECTIONS: Record<string, { desc: boolean; nullsFirst: boolean }> = {
  asc: { desc: false, nullsFirst: false }, asc_nulls_first: { desc: false, nullsFirst: true }, asc_nulls_last: { desc: false, nullsFirst: false },
  desc: { desc: true, nullsFirst: true }, desc_nulls_first: { desc: true, nullsFirst: true }, desc_nulls_last: { desc: true, nullsFirst: false },
};

function collect(b: StatementBuilder, role: RoleView, v: GValue, view: TableView, alias: string, key: string[], wrap: (e: string) => string, out: OrderTerm[], path: string): void {
  (Array.isArray(v) ? v : [v]).forEach((entry, i) => {
    if (!isPlainObject(entry)) return;
    const p = Array.isArray(v) ? pathIndex(path, i) : path;
    for (const [k, value] of Object.entries(entry)) {
      if (value === null) continue;
      const column = view.columns.find((c) => c.field === k);
      if (column) {
        const d = DIRECTIONS[String(value)];
        if (!d) continue;
        const expr = wrap(b.cell(view, `c:${column.name}`, alias, `${alias}.${quoteIdent(column.name)}`));
        out.push({ expr, ...d, key: [...key, k], castType: column.castType });
        continue;
      }
      const scalar = view.scalarCfs.find((c) => c.name === k);
      if (scalar) {
        // A computed field's value is compared as the type its function returns (format_type's text of it).
        const d = DIRECTIONS[String(value)];
        if (d) out.push({ expr: wrap(b.cell(view, `f:${scalar.name}`, alias, cfCall(b, scalar, alias))), ...d, key: [...key, k], castType: scalar.cf.fn.returnTypeName });
        continue;
      }
      if (aggregateTerms(b, role, k, value, view, alias, key, wrap, out)) continue;
      const rel = view.objRels.find((r) => r.name === k);
      const remote = rel && role.table(rel.remoteKey);
      if (!rel || !remote) throw validationFailed(pathKey(p, k), `ordering by "${k}" is not supported in a connection`);
      const a = b.alias();
      const conds = [joinSql(rel, alias, a), b.permission(remote, a), b.cellCondition(view, `r:${rel.name}`, alias) ?? 'true'].filter((c) => c !== 'true').join(' AND ');
      const inner = (e: string): string => wrap(`(SELECT ${e} FROM ${quoteTable(remote.rt.entry.table)} AS ${a} WHERE ${conds} LIMIT 1)`);
      collect(b, role, value, remote, a, [...key, k], inner, out, pathKey(p, k));
    }
  });
}

/**
 * `<rel>_aggregate` and `<computed field>_aggregate` terms: each aggregate over the related rows the role may see (a
 * correlated subquery), keyed in the cursor as the incumbent keys it (`{"articles_aggregate" : {"count" : 2}}`).
 */
function aggregateTerms(b: StatementBuilder, role: RoleView, k: string, value: GValue, view: TableView, alias: string, key: string[], wrap: (e: string) => string, out: OrderTerm[]): boolean {
  if (!k.endsWith('_aggregate')) return false;
  const name = k.slice(0, -'_aggregate'.length);
  const a = b.alias();
  let from: string;
  let conds: string[];
  let remote: TableView | null;
  const rel = view.arrRels.find((r) => r.name === name);
  const cf = rel ? undefined : view.tableCfs.find((c) => c.name === name);
  if (rel) {
    remote = role.table(rel.remoteKey);
    if (!remote) return false;
    from = `${quoteTable(remote.rt.entry.table)} AS ${a}`;
    conds = [joinSql(rel, alias, a), b.permission(remote, a), b.cellCondition(view, `r:${rel.name}`, alias) ?? 'true'];
  } else if (cf?.target) {
    remote = role.table(cf.target);
    if (!remote) return false;
    from = `${cfCall(b, cf, alias)} AS ${a}`;
    conds = [b.permission(remote, a), b.cellCondition(view, `f:${cf.name}`, alias) ?? 'true'];
  } else return false;
  const where = conds.filter((c) => c !== 'true');
  eachAggregate(b, value, remote, (aggOf, _count, dir, agg) => {
    const expr = wrap(`(SELECT ${aggOf(a)} FROM ${from}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''})`);
    out.push({ expr, desc: dir.startsWith('DESC'), nullsFirst: dir.endsWith('FIRST'), key: [...key, k, ...agg.key], castType: agg.castType });
  });
  return true;
}

/** The connection's terms over `alias`: `order_by`'s, then the primary-key columns it does not already order by. */
export function connectionOrder(b: StatementBuilder, role: RoleView, orderBy: GValue | undefined, view: TableView, alias: string, path: string): OrderTerm[] {
  const terms: OrderTerm[] = [];
  if (orderBy !== undefined && orderBy !== null) collect(b, role, orderBy, view, alias, [], (e) => e, terms, `${path}.args.order_by`);
  for (const c of view.pk ?? []) {
    if (terms.some((t) => t.key.length === 1 && t.key[0] === c.field)) continue;
    terms.push({ expr: `${alias}.${quoteIdent(c.name)}`, desc: false, nullsFirst: false, key: [c.field], castType: c.castType });
  }
  return terms;
}

export const orderSql = (terms: OrderTerm[]): string =>
  terms.map((t) => `${t.expr} ${t.desc ? 'DESC' : 'ASC'} NULLS ${t.nullsFirst ? 'FIRST' : 'LAST'}`).join(', ');

type Tree = Map<string, string | Tree>;

/** The cursor's JSON object (PostgreSQL's text of it is what the incumbent encodes). */
export function cursorSql(terms: OrderTerm[]): string {
  const root: Tree = new Map();
  for (const t of terms) {
    let node = root;
    for (const k of t.key.slice(0, -1)) {
      let next = node.get(k);
      if (typeof next !== 'object') {
        next = new Map();
        node.set(k, next);
      }
      node = next;
    }
    node.set(t.key[t.key.length - 1] as string, t.expr);
  }
  const render = (tree: Tree): string => `json_build_object(${[...tree].map(([k, v]) => `'${k}', ${typeof v === 'string' ? v : render(v)}`).join(', ')})`;
  return render(root);
}

/**
 * Where a row lies strictly after (or before) the cursor's position in the order: lexicographic over the terms,
 * each with its direction and the place of nulls. A cursor missing a term's value is not one of this order's.
 */
export function splitSql(b: StatementBuilder, terms: OrderTerm[], cursor: Record<string, unknown>, after: boolean, path: string): string {
  const ors: string[] = [];
  const equal: string[] = [];
  for (const t of terms) {
    let v: unknown = cursor;
    for (const k of t.key) {
      if (v === null || typeof v !== 'object' || Array.isArray(v) || !(k in v)) throw validationFailed(path, 'the cursor is invalid');
      v = (v as Record<string, unknown>)[k];
    }
    // "Later" in the order: beyond the value in the term's direction; nulls are last or first.
    const nullsLater = after ? !t.nullsFirst : t.nullsFirst;
    if (v === null || v === undefined) {
      if (!nullsLater) ors.push(conj([...equal, `${t.expr} IS NOT NULL`]));
      equal.push(`${t.expr} IS NULL`);
      continue;
    }
    const value = b.value(typeof v === 'string' ? v : JSON.stringify(v), t.castType);
    const op = after !== t.desc ? '>' : '<';
    ors.push(conj([...equal, nullsLater ? `(${t.expr} ${op} ${value} OR ${t.expr} IS NULL)` : `${t.expr} ${op} ${value}`]));
    equal.push(`${t.expr} = ${value}`);
  }
  return ors.length === 0 ? 'false' : `(${ors.join(' OR ')})`;
}

const conj = (parts: string[]): string => (parts.length === 1 ? (parts[0] as string) : `(${parts.join(' AND ')})`);
