import { gqlError } from '../errors.js';
import type { StatementBuilder } from './sql-builder.js';
import { asList, isPlainObject, type GValue } from './values.js';
import { castTarget, spatialComparison } from './spatial-operators.js';

/**
 * The comparison operators of schema/operators-extra.ts as SQL: POSIX regular expressions, ltree's ancestry and
 * matching, jsonb's `_cast` (and PostGIS's, with its operators). Null when `op` is none of them.
 */

const REGEX: Record<string, string> = { _regex: '~', _iregex: '~*', _nregex: '!~', _niregex: '!~*' };
/** Operator, and operand type, of the ltree operators. */
const LTREE: Record<string, [string, string]> = {
  _ancestor: ['@>', 'ltree'], _descendant: ['<@', 'ltree'], _matches: ['~', 'lquery'], _matches_fulltext: ['@', 'ltxtquery'],
  _ancestor_any: ['@>', 'ltree[]'], _descendant_any: ['<@', 'ltree[]'], _matches_any: ['?', 'lquery[]'],
};
/** A label path: zero or more labels (letters, digits, `_`, `-`) separated by dots. */
const LABEL_PATH = /^(?:[\p{L}\p{N}_-]+(?:\.[\p{L}\p{N}_-]+)*)?$/u;

/** The incumbent parses an ltree operand itself and answers parse-failed for one that is not a label path. */
function ltreeOperand(v: GValue, path: string): GValue {
  if (typeof v === 'string' && !LABEL_PATH.test(v)) {
    throw gqlError('parse-failed', path, 'Expecting label path: a sequence of zero or more labels separated by dots, for example L1.L2.L3');
  }
  return v;
}

export function extraComparison(
  b: StatementBuilder, col: string, castType: string, op: string, operand: GValue, path: string,
  compare: (col: string, castType: string, ops: GValue, path: string) => string,
): string | null {
  const spatial = spatialComparison(b, col, castType, op, operand);
  if (spatial !== null) return spatial;
  const re = REGEX[op];
  if (re) return `${col} ${re} ${b.param(operand, 'text')}`;
  const lt = LTREE[op];
  if (lt) {
    const [sqlOp, type] = lt;
    if (type === 'ltree') return `${col} ${sqlOp} ${b.param(ltreeOperand(operand, path), type)}`;
    if (type === 'ltree[]') return `${col} ${sqlOp} ${b.param(asList(operand).map((x, i) => ltreeOperand(x, `${path}[${i}]`)), type)}`;
    return `${col} ${sqlOp} ${b.param(type.endsWith('[]') ? asList(operand) : operand, type)}`;
  }
  if (op === '_cast') {
    if (!isPlainObject(operand)) return 'true';
    // `String` (jsonb), `geography` (geometry), `geometry` (geography): validation admits only the column's own.
    const parts = Object.entries(operand).flatMap(([t, ops]) => {
      const to = castTarget(castType, t);
      return to === null ? [] : [compare(`(${col})::${to}`, to, ops, `${path}.${t}`)];
    });
    return parts.length === 0 ? 'true' : parts.join(' AND ');
  }
  return null;
}
