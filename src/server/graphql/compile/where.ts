import { quoteIdent, quoteTable } from '../../bool-exp/compile.js';
import { pathIndex, pathKey } from '../../../metadata/json.js';
import { validationFailed } from '../errors.js';
import type { StatementBuilder } from './sql-builder.js';
import { extraComparison } from './operators-extra.js';
import { asList, isPlainObject, type GValue } from './values.js';
import type { RelView, RoleView, TableView } from '../schema/index.js';

/**
 * `T_bool_exp` → SQL (graphql-api.md §4.4): the permission BoolExp semantics in GraphQL form. A relationship key
 * also applies the remote table's select filter, so rows the role cannot see cannot be probed.
 */

const COMPARE: Record<string, string> = { _gt: '>', _lt: '<', _gte: '>=', _lte: '<=', _like: 'LIKE', _nlike: 'NOT LIKE', _ilike: 'ILIKE', _nilike: 'NOT ILIKE', _similar: 'SIMILAR TO', _nsimilar: 'NOT SIMILAR TO', _contains: '@>', _contained_in: '<@' };

const conj = (parts: string[], op: 'AND' | 'OR'): string =>
  parts.length === 0 ? (op === 'AND' ? 'true' : 'false') : parts.length === 1 ? (parts[0] as string) : `(${parts.join(` ${op} `)})`;

/** The join of a relationship between the parent row (an alias or a row expression) and the remote alias. */
export function joinSql(rel: RelView, parent: string, remote: string): string {
  return rel.rel.mapping.map(([l, r]) => `${remote}.${quoteIdent(r)} = (${parent}).${quoteIdent(l)}`).join(' AND ');
}

/** A computed field's call on `row`: its table argument and, if it takes one, the session (no user arguments). */
export function cfCall(b: StatementBuilder, cf: TableView['scalarCfs'][number], row: string): string {
  const parts: string[] = [];
  const ta = cf.fnArgs.tableArg;
  if (ta) parts.push(ta.name ? `${quoteIdent(ta.name)} => ${row}` : row);
  const sa = cf.fnArgs.sessionArg;
  if (sa) parts.push(`${quoteIdent(sa)} => ${b.sessionJson(cf.cf.fn.inputs.find((a) => a.name === sa)?.castType ?? 'json')}`);
  return `${quoteTable({ schema: cf.cf.fn.schema, name: cf.cf.fn.name })}(${parts.join(', ')})`;
}

export function whereSql(b: StatementBuilder, role: RoleView, v: GValue, view: TableView, alias: string, path: string): string {
  if (!isPlainObject(v)) return 'true';
  const parts: string[] = [];
  for (const [key, value] of Object.entries(v)) {
    const p = pathKey(path, key);
    if (value === null) throw validationFailed(p, `null is not allowed for field "${key}"`);
    if (key === '_and' || key === '_or') {
      parts.push(conj(asList(value).map((x, i) => whereSql(b, role, x, view, alias, pathIndex(p, i))), key === '_and' ? 'AND' : 'OR'));
    } else if (key === '_not') {
      parts.push(`(NOT ${whereSql(b, role, value, view, alias, p)})`);
    } else {
      const column = view.columns.find((c) => c.field === key);
      if (column) {
        // An inherited role filters on what it sees: a hidden cell is null (issue 27), so it cannot be probed.
        parts.push(comparison(b, b.cell(view, `c:${column.name}`, alias, `${alias}.${quoteIdent(column.name)}`), column.castType, value, p));
        continue;
      }
      // A computed field without arguments (the incumbent's): a scalar one compared, a set-returning one as a
      // relationship to the rows it returns (their table's select filter inside).
      const cf = [...view.scalarCfs, ...view.tableCfs].find((c) => c.name === key && c.fnArgs.args.length === 0);
      if (cf) {
        const call = cfCall(b, cf, alias);
        const remote = cf.target === null ? undefined : role.table(cf.target);
        if (cf.target === null) parts.push(comparison(b, b.cell(view, `f:${cf.name}`, alias, call), cf.cf.fn.returnTypeName, value, p));
        else if (remote) {
          const a = b.alias();
          const conds = [b.permission(remote, a), b.cellCondition(view, `f:${cf.name}`, alias) ?? 'true', whereSql(b, role, value, remote, a, p)].filter((c) => c !== 'true');
          parts.push(`EXISTS (SELECT 1 FROM ${call} AS ${a} WHERE ${conj(conds, 'AND')})`);
        }
        continue;
      }
      const rel = [...view.objRels, ...view.arrRels].find((r) => r.name === key);
      const remote = rel && role.table(rel.remoteKey);
      if (!rel || !remote) continue; // validation admits only visible keys
      const a = b.alias();
      const conds = [joinSql(rel, alias, a), b.permission(remote, a), b.cellCondition(view, `r:${rel.name}`, alias) ?? 'true', whereSql(b, role, value, remote, a, p)].filter((c) => c !== 'true');
      parts.push(`EXISTS (SELECT 1 FROM ${quoteTable(remote.rt.entry.table)} AS ${a} WHERE ${conj(conds, 'AND')})`);
    }
  }
  return conj(parts, 'AND');
}

function comparison(b: StatementBuilder, col: string, castType: string, ops: GValue, path: string): string {
  if (!isPlainObject(ops)) return 'true';
  const parts: string[] = [];
  for (const [op, operand] of Object.entries(ops)) {
    const p = pathKey(path, op);
    if (operand === null) {
      if (op === '_eq') parts.push(`${col} IS NULL`);
      else if (op === '_neq') parts.push(`${col} IS NOT NULL`);
      else throw validationFailed(p, `null is not allowed for operator "${op}"`);
      continue;
    }
    switch (op) {
      case '_eq':
        // IS NOT DISTINCT FROM for a non-null operand, in a form an index can serve.
        parts.push(`(${col} = ${b.param(operand, castType)} AND ${col} IS NOT NULL)`);
        break;
      case '_neq':
        parts.push(`${col} IS DISTINCT FROM ${b.param(operand, castType)}`);
        break;
      case '_in':
      case '_nin': {
        const list = b.param(asList(operand), `${castType}[]`);
        parts.push(op === '_in' ? `${col} = ANY(${list})` : `NOT (${col} = ANY(${list}))`);
        break;
      }
      case '_is_null':
        parts.push(`${col} ${operand === true ? 'IS NULL' : 'IS NOT NULL'}`);
        break;
      case '_has_key':
        parts.push(`${col} ? ${b.param(operand, 'text')}`);
        break;
      case '_has_keys_any':
      case '_has_keys_all':
        parts.push(`${col} ${op === '_has_keys_any' ? '?|' : '?&'} ${b.param(asList(operand), 'text[]')}`);
        break;
      default: {
        const extra = extraComparison(b, col, castType, op, operand, p, (c, t, o, q) => comparison(b, c, t, o, q));
        if (extra !== null) {
          parts.push(extra);
          break;
        }
        const sqlOp = COMPARE[op];
        if (!sqlOp) continue;
        const t = op === '_contains' || op === '_contained_in' ? 'jsonb' : castType;
        parts.push(`${col} ${sqlOp} ${b.param(operand, t)}`);
      }
    }
  }
  return conj(parts, 'AND');
}
