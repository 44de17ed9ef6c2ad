import { compareCodePoints, isObject, type Json } from '../../metadata/json.js';
import { qnQuoted } from '../../metadata/names.js';
import { qualifiedName } from '../../metadata/reader.js';
import { appliesTo, canonicalKey, columnRef, isSessionRef, operatorOf, valueFits } from './operators.js';
import { emptyRefs, type BoolExpRefs, type BoolExpSchema, type BoolExpTable } from './schema.js';

/** A validation failure: its reason is one of §4.4.4's, to be prefixed with the owning object's context. */
class Invalid extends Error {}
const fail = (reason: string): never => {
  throw new Invalid(reason);
};

const show = (v: unknown): string => JSON.stringify(v);

/**
 * Validates a BoolExp against the table it applies to (engine-api.md §4.4). Keys are visited in ascending
 * code-point order, depth first; the first failure wins. Returns the reason, or the references it makes.
 */
export function validateBoolExp(exp: Json, table: BoolExpTable, schema: BoolExpSchema): { reason: string } | { refs: BoolExpRefs } {
  const refs = emptyRefs();
  try {
    expression(exp, table, schema, refs, table);
    return { refs };
  } catch (e) {
    if (e instanceof Invalid) return { reason: e.message };
    throw e;
  }
}

/** `root`: the table the whole expression applies to, which `_c*` operands `["$", column]` name (issue 29). */
function expression(exp: Json, table: BoolExpTable, schema: BoolExpSchema, refs: BoolExpRefs, root: BoolExpTable): void {
  if (!isObject(exp)) fail('expecting an object for boolean expression');
  const o = exp as Record<string, Json>;
  for (const key of Object.keys(o).sort(compareCodePoints)) {
    const value = o[key] as Json;
    switch (canonicalKey(key)) {
      case '_and':
      case '_or':
        if (!Array.isArray(value)) fail(`expecting an array for "${key}"`);
        for (const sub of value as Json[]) expression(sub, table, schema, refs, root);
        continue;
      case '_not':
        if (!isObject(value)) fail(`expecting an object for "${key}"`);
        expression(value, table, schema, refs, root);
        continue;
      case '_exists':
        exists(key, value, schema, refs, root);
        continue;
    }
    const column = table.columns.get(key);
    if (column) {
      refs.columns.push({ table: table.name, column: key });
      columnExpression(key, column.typeName, value, table, refs, root);
      continue;
    }
    const rel = table.relationships.get(key);
    if (rel) {
      if (!isObject(value)) fail(`expecting an object for relationship "${key}"`);
      refs.relationships.push({ table: table.name, name: key });
      const remote = schema.table(rel.remote);
      if (!remote) fail(`table ${qnQuoted(rel.remote)} does not exist`);
      expression(value, remote as BoolExpTable, schema, refs, root);
      continue;
    }
    const cf = table.computedFields?.get(key);
    if (cf) {
      if ('unusable' in cf) return fail(cf.unusable);
      refs.computedFields.push({ table: table.name, name: key });
      if (cf.rows) {
        if (!isObject(value)) fail(`expecting an object for computed field "${key}"`);
        const remote = schema.table(cf.rows);
        if (!remote) fail(`table ${qnQuoted(cf.rows)} does not exist`);
        expression(value, remote as BoolExpTable, schema, refs, root);
        continue;
      }
      columnExpression(key, cf.typeName, value, table, refs, root);
      continue;
    }
    fail(`column or relationship "${key}" does not exist in table ${qnQuoted(table.name)}`);
  }
}

function exists(key: string, value: Json, schema: BoolExpSchema, refs: BoolExpRefs, root: BoolExpTable): void {
  const shape = `expecting an object with keys "_table" and "_where" for "${key}"`;
  if (!isObject(value)) fail(shape);
  const o = value as Record<string, Json>;
  const keys = Object.keys(o).sort();
  if (keys.length !== 2 || keys[0] !== '_table' || keys[1] !== '_where') fail(shape);
  let name;
  try {
    name = qualifiedName(o['_table'], '$');
  } catch {
    return fail(shape);
  }
  const target = schema.table(name);
  if (!target) fail(`table ${qnQuoted(name)} does not exist`);
  refs.tables.push(name);
  expression(o['_where'] as Json, target as BoolExpTable, schema, refs, root);
}

function columnExpression(column: string, typeName: string, value: Json, table: BoolExpTable, refs: BoolExpRefs, root: BoolExpTable): void {
  if (!isObject(value)) {
    // Shorthand for {"_eq": value}.
    if (value !== null && !valueFits(value, typeName)) invalidValue(column, typeName, value);
    if (typeName === 'json') fail(`operator "_eq" cannot be used with column "${column}" of type "${typeName}"`);
    return;
  }
  for (const opKey of Object.keys(value).sort(compareCodePoints)) {
    operator(column, typeName, opKey, value[opKey] as Json, table, refs, root);
  }
}

const invalidValue = (column: string, typeName: string, v: unknown): never =>
  fail(`invalid value for column "${column}" of type "${typeName}": ${show(v)}`);

function operator(column: string, typeName: string, opKey: string, operand: Json, table: BoolExpTable, refs: BoolExpRefs, root: BoolExpTable): void {
  const op = operatorOf(opKey);
  if (!op) return fail(`unknown operator "${opKey}" for column "${column}"`);
  if (!appliesTo(op, typeName)) fail(`operator "${opKey}" cannot be used with column "${column}" of type "${typeName}"`);
  switch (op.cls) {
    case 'null-compare':
      if (operand !== null && !valueFits(operand, typeName)) invalidValue(column, typeName, operand);
      return;
    case 'compare':
    case 'text':
      if (operand === null) fail(`null is not allowed for operator "${opKey}"`);
      if (!valueFits(operand, typeName)) invalidValue(column, typeName, operand);
      return;
    case 'in':
      if (operand === null) fail(`null is not allowed for operator "${opKey}"`);
      if (isSessionRef(operand)) return;
      if (!Array.isArray(operand)) fail(`expecting an array for operator "${opKey}"`);
      for (const v of operand as Json[]) if (v !== null && !valueFits(v, typeName)) invalidValue(column, typeName, v);
      return;
    case 'is-null':
      if (typeof operand !== 'boolean') fail(`expecting a boolean for operator "${opKey}"`);
      return;
    case 'column': {
      if (operand === null) fail(`null is not allowed for operator "${opKey}"`);
      const ref = columnRef(operand);
      if (!ref) return fail(`expecting a column name, [column] or ["$", column] for operator "${opKey}"`);
      const on = ref.root ? root : table;
      const other = on.columns.get(ref.column);
      if (!other) fail(`column "${ref.column}" does not exist in table ${qnQuoted(on.name)}`);
      if (other && other.typeName !== typeName) {
        fail(`incompatible column types: "${column}" is of type "${typeName}", "${ref.column}" is of type "${other.typeName}"`);
      }
      refs.columns.push({ table: on.name, column: ref.column });
      return;
    }
    case 'jsonb-value':
      if (operand === null) fail(`null is not allowed for operator "${opKey}"`);
      return;
    case 'jsonb-key':
      if (operand === null) fail(`null is not allowed for operator "${opKey}"`);
      if (typeof operand !== 'string') fail(`expecting a string for operator "${opKey}"`);
      return;
    case 'jsonb-keys':
      if (operand === null) fail(`null is not allowed for operator "${opKey}"`);
      if (isSessionRef(operand)) return;
      if (!Array.isArray(operand) || !operand.every((k) => typeof k === 'string')) {
        fail(`expecting an array of strings for operator "${opKey}"`);
      }
      return;
    case 'spatial':
      if (!isSessionRef(operand) && !isObject(operand)) fail(`expecting a GeoJSON object for operator "${opKey}"`);
      return;
    case 'spatial-distance': {
      const o = isObject(operand) ? operand : null;
      const d = o?.['distance'];
      const from = o?.['from'];
      const sph = o?.['use_spheroid'];
      if (!o || (typeof d !== 'number' && !isSessionRef(d)) || (!isObject(from) && !isSessionRef(from)) || (sph !== undefined && typeof sph !== 'boolean')) {
        fail(`expecting {"distance": <number>, "from": <GeoJSON>, "use_spheroid"?: <boolean>} for operator "${opKey}"`);
      }
      return;
    }
  }
}
