/**
 * Offline BoolExp checks (cli.md §4.13, engine-api.md §4.4): the grammar and operand shapes only — columns,
 * relationships and types need the database and are the engine's. Every problem is reported, not only the first.
 */
import { columnRef, isSessionRef, OPERATORS, type OperatorClass } from '../../server/bool-exp/operators.js';
import { BOOL_EXP_LOGICAL } from './shapes-core.js';
import { didYouMean, isObj, type Ctx, type Path } from './core.js';

const LOGICAL = new Set<string>(Object.values(BOOL_EXP_LOGICAL).flat());
const UNDERSCORE_OPERATORS = Object.keys(OPERATORS);
const DOLLAR_OPERATORS = UNDERSCORE_OPERATORS.map((op) => `$${op.slice(1)}`);

const canonical = (key: string): string => (key.startsWith('$') ? `_${key.slice(1)}` : key);

/** Keys starting with `_` or `$` other than the four logical ones (cli.md §4.13). */
const isOperatorKey = (key: string): boolean => (key.startsWith('_') || key.startsWith('$')) && !LOGICAL.has(key);

const isScalar = (v: unknown): boolean => v === null || ['string', 'number', 'boolean'].includes(typeof v);

/** Per operator class: whether an operand fits, and the `<shape>` of `operator "<op>" expects <shape>`. */
const OPERANDS: Record<OperatorClass, [(v: unknown) => boolean, string]> = {
  'null-compare': [isScalar, 'a scalar'],
  compare: [(v) => v !== null && isScalar(v), 'a non-null scalar'],
  in: [(v) => Array.isArray(v) || isSessionRef(v), 'a list or a session variable'],
  text: [(v) => typeof v === 'string', 'a string'],
  'is-null': [(v) => typeof v === 'boolean', 'a boolean'],
  column: [(v) => (columnRef(v)?.column ?? '') !== '', 'a column name, [column] or ["$", column]'],
  'jsonb-value': [() => true, 'any value'],
  'jsonb-key': [(v) => typeof v === 'string', 'a string'],
  'jsonb-keys': [
    (v) => (Array.isArray(v) && v.every((x) => typeof x === 'string')) || isSessionRef(v),
    'a list of strings or a session variable',
  ],
  spatial: [(v) => isObj(v) || isSessionRef(v), 'a GeoJSON object or a session variable'],
  'spatial-distance': [(v) => isObj(v) && 'distance' in v && 'from' in v, '{distance, from}'],
};

const invalid = (c: Ctx, message: string, path: Path, key = false): void => c.error('bool-exp-invalid', message, path, key);

export function checkBoolExp(c: Ctx, v: unknown, path: Path): void {
  if (!isObj(v)) {
    invalid(c, 'expected a mapping for the boolean expression', path);
    return;
  }
  for (const [key, value] of Object.entries(v)) {
    const p = [...path, key];
    switch (canonical(key)) {
      case '_and':
      case '_or':
        if (Array.isArray(value)) value.forEach((item, i) => checkBoolExp(c, item, [...p, i]));
        else invalid(c, `"${key}" expects a list of boolean expressions`, p);
        continue;
      case '_not':
        checkBoolExp(c, value, p);
        continue;
      case '_exists':
        exists(c, key, value, p);
        continue;
      default:
        field(c, key, value, p);
    }
  }
}

function exists(c: Ctx, key: string, value: unknown, path: Path): void {
  const keys = isObj(value) ? Object.keys(value).sort() : [];
  const table = isObj(value) ? value['_table'] : undefined;
  const tableOk = typeof table === 'string' || (isObj(table) && typeof table['name'] === 'string' &&
    (table['schema'] === undefined || table['schema'] === null || typeof table['schema'] === 'string'));
  if (keys.length !== 2 || keys[0] !== '_table' || keys[1] !== '_where' || !tableOk) {
    invalid(c, `"${key}" expects a mapping with "_table" and "_where"`, path);
  }
  if (isObj(value) && '_where' in value) checkBoolExp(c, value['_where'], [...path, '_where']);
}

/** A column or relationship key: a scalar (equality shorthand), an operator map, or a nested BoolExp. */
function field(c: Ctx, name: string, value: unknown, path: Path): void {
  if (!isObj(value)) return;
  const keys = Object.keys(value);
  const operators = keys.filter(isOperatorKey);
  if (operators.length === 0) {
    checkBoolExp(c, value, path);
    return;
  }
  if (operators.length < keys.length) {
    invalid(c, `cannot mix operators and field names under "${name}"`, path);
    return;
  }
  for (const op of operators) operator(c, op, value[op], [...path, op]);
}

function operator(c: Ctx, op: string, operand: unknown, path: Path): void {
  const name = canonical(op);
  const info = Object.hasOwn(OPERATORS, name) ? OPERATORS[name] : undefined;
  if (!info) {
    invalid(c, `unknown operator "${op}"${didYouMean(op, op.startsWith('$') ? DOLLAR_OPERATORS : UNDERSCORE_OPERATORS)}`, path, true);
    return;
  }
  const [fits, shape] = OPERANDS[info.cls];
  if (!fits(operand)) invalid(c, `operator "${op}" expects ${shape}`, path);
}
