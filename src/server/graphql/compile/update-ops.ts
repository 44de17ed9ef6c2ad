import { quoteIdent } from '../../bool-exp/compile.js';
import { pathKey } from '../../../metadata/json.js';
import { validationFailed } from '../errors.js';
import type { GqlColumn, MutationTable } from '../schema/index.js';
import type { StatementBuilder } from './sql-builder.js';
import { asList, isPlainObject, type GValue } from './values.js';

/**
 * The update operators of `update_<t>`, `update_<t>_by_pk` and each item of `update_<t>_many` (the incumbent's
 * `_set`, `_inc` and its jsonb operators), as `SET` items on the target alias. A column may be named by one
 * operator only; a column the role cannot update is not a field of the operator's input type.
 */

const PLACEHOLDER = '_PLACEHOLDER';

/** The operators in the order the incumbent lists them; `suffix` names the operator's input type. */
export const UPDATE_OPERATORS = ['_append', '_delete_at_path', '_delete_elem', '_delete_key', '_inc', '_prepend', '_set'] as const;
export type UpdateOperator = (typeof UPDATE_OPERATORS)[number];

const inputSuffix = (op: UpdateOperator): string => `${op.slice(1)}_input`;

/** The SQL of `col <op> value` for one operator; `cur` is the column on the target alias. */
function setItem(b: StatementBuilder, op: UpdateOperator, c: GqlColumn, cur: string, v: GValue, p: string, field: string): string {
  if (op === '_set') return b.param(v, c.castType);
  if (v === null) throw validationFailed(p, `null is not allowed for field "${field}"`);
  switch (op) {
    case '_inc':
      // money reads no exponent (`-2E-2`): the amount goes through numeric.
      return c.typeName === 'money' ? `${cur} + ${b.param(v, 'numeric')}::money` : `${cur} + ${b.param(v, c.castType)}`;
    case '_append':
      return `${cur} || ${b.param(v, 'jsonb')}`;
    case '_prepend':
      return `${b.param(v, 'jsonb')} || ${cur}`;
    case '_delete_key':
      return `${cur} - ${b.param(v, 'text')}`;
    case '_delete_elem':
      return `${cur} - ${b.param(v, 'integer')}`;
    case '_delete_at_path':
      return `${cur} #- ${b.param(asList(v), 'text[]')}`;
  }
}

/**
 * `SET` items for the operators given in `args` (GraphQL field names → update columns), in the order the operators
 * are listed; an empty list when no operator names a column (the caller then updates no row, as the incumbent does).
 */
export function updateSets(b: StatementBuilder, mt: MutationTable, args: ReadonlyMap<string, GValue> | Record<string, GValue>, alias: string, path: string): string[] {
  const get = (k: string): GValue | undefined => (args instanceof Map ? args.get(k) : (args as Record<string, GValue>)[k]);
  const allowed = new Map(mt.updateColumns.map((c) => [c.field, c]));
  const given: [UpdateOperator, string, GValue][] = [];
  for (const op of UPDATE_OPERATORS) {
    const v = get(op);
    if (!isPlainObject(v)) continue;
    for (const [k, x] of Object.entries(v)) if (k !== PLACEHOLDER) given.push([op, k, x]);
  }
  const seen = new Set<string>();
  const twice: string[] = [];
  for (const [, k] of given) {
    if (seen.has(k) && !twice.includes(k)) twice.push(k);
    seen.add(k);
  }
  if (twice.length > 0) throw validationFailed(path, `Column found in multiple operators: [${twice.map((k) => `'${k}'`).join(', ')}].`);
  return given.map(([op, k, v]) => {
    const c = allowed.get(k);
    const p = pathKey(`${path}.${op}`, k);
    if (!c) throw validationFailed(p, `field "${k}" not found in type: '${mt.name}_${inputSuffix(op)}'`);
    const cur = `${alias}.${quoteIdent(c.name)}`;
    return `${quoteIdent(c.name)} = ${setItem(b, op, c, cur, v, p, k)}`;
  });
}
