import {
  getNamedType, getNullableType, GraphQLEnumType, GraphQLInputObjectType, GraphQLList, GraphQLObjectType, isNonNullType,
  isSpecifiedScalarType, type GraphQLScalarType,
  Kind, type FieldNode, type GraphQLField, type GraphQLInputType, type GraphQLOutputType, type GraphQLSchema,
  type OperationDefinitionNode, type SelectionSetNode, type FragmentDefinitionNode,
} from 'graphql';
import type { ApiError } from '../../../errors.js';
import { setOwn, type Json } from '../../../metadata/json.js';
import type { Action } from '../../../metadata/types.js';
import { gqlError, validationFailed } from '../errors.js';
import { fieldInfo } from '../schema/index.js';
import type { SelectionContext } from '../compile/index.js';
import { isPlainObject, jsonText, NumLit, parseJsonDigits, resolveVars, type GValue } from '../compile/index.js';

/**
 * The GraphQL side of a synchronous action (graphql-api.md §4.1, §5.1): the combination rule, the `input` object,
 * and the handler's answer checked against the output type (engine-api.md §5.2.2) and shaped by the selection.
 */

type Field = GraphQLField<unknown, unknown>;

const isSyncAction = (f: Field | undefined): boolean => (f ? fieldInfo(f)?.kind === 'action' : false);

function rootFieldNames(ss: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, out: string[], seen: Set<string>): void {
  for (const s of ss.selections) {
    if (s.kind === Kind.FIELD) out.push(s.name.value);
    else if (s.kind === Kind.INLINE_FRAGMENT) rootFieldNames(s.selectionSet, fragments, out, seen);
    else if (!seen.has(s.name.value)) {
      seen.add(s.name.value);
      const f = fragments.get(s.name.value);
      if (f) rootFieldNames(f.selectionSet, fragments, out, seen);
    }
  }
}

/**
 * §4.1: a mutation with a synchronous action root field holds only synchronous action root fields and `__typename`.
 * Checked on the document (§1.3 step 6), before directives are evaluated.
 */
export function checkActionCombination(schema: GraphQLSchema, op: OperationDefinitionNode, fragments: Map<string, FragmentDefinitionNode>): ApiError | null {
  const root = op.operation === 'mutation' ? schema.getMutationType() : null;
  if (!root) return null;
  const names: string[] = [];
  rootFieldNames(op.selectionSet, fragments, names, new Set());
  const fields = root.getFields();
  if (!names.some((n) => isSyncAction(fields[n]))) return null;
  if (names.every((n) => n === '__typename' || isSyncAction(fields[n]))) return null;
  return validationFailed('$', 'synchronous actions cannot be combined with other root fields in one mutation');
}

/** An argument value after input coercion: lists wrap single values, input objects follow their type's field order. */
function coerceInput(v: GValue, type: GraphQLInputType): GValue {
  if (v === null) return null;
  const t = getNullableType(type) as GraphQLInputType;
  if (t instanceof GraphQLList) {
    const el = t.ofType as GraphQLInputType;
    return Array.isArray(v) ? v.map((x) => coerceInput(x, el)) : [coerceInput(v, el)];
  }
  if (t instanceof GraphQLInputObjectType && isPlainObject(v)) {
    const out: Record<string, GValue> = {};
    for (const f of Object.values(t.getFields())) if (f.name in v) out[f.name] = coerceInput(v[f.name] as GValue, f.type);
    return out;
  }
  if (t instanceof GraphQLEnumType && v instanceof NumLit) return v.text;
  return v;
}

/** The `input` object's JSON text: arguments in declaration order, those not supplied omitted (§5.2.1). */
export function actionInput(action: Action, field: Field, node: FieldNode, sel: SelectionContext): string {
  const given = sel.args(node);
  const out: Record<string, GValue> = {};
  for (const a of action.definition.arguments) {
    const def = field.args.find((x) => x.name === a.name);
    if (given.has(a.name) && def) out[a.name] = coerceInput(resolveVars(given.get(a.name) as GValue, sel.variables), def.type);
  }
  return jsonText(out);
}

/**
 * The `input` object with bound variables left in place (an asynchronous action's plan serves every value of them):
 * a bound variable is a scalar, which a list position wraps like any single value.
 */
export function actionInputValue(action: Action, field: Field, node: FieldNode, sel: SelectionContext): GValue {
  const given = sel.args(node);
  const out: Record<string, GValue> = {};
  for (const a of action.definition.arguments) {
    const def = field.args.find((x) => x.name === a.name);
    if (given.has(a.name) && def) out[a.name] = coerceInput(given.get(a.name) as GValue, def.type);
  }
  return out;
}

/**
 * The `input` JSON text of a stored asynchronous call (jsonb keeps neither key order): arguments in declaration
 * order, input objects in their type's field order, digits as stored; keys no longer declared follow as stored.
 */
export function storedInputText(action: Action, field: Field, stored: string): string {
  const v = parseJsonDigits(stored);
  if (!isPlainObject(v)) return stored;
  const out: Record<string, GValue> = {};
  for (const a of action.definition.arguments) {
    const def = field.args.find((x) => x.name === a.name);
    if (a.name in v) out[a.name] = def ? coerceInput(v[a.name] as GValue, def.type) : (v[a.name] as GValue);
  }
  for (const [k, x] of Object.entries(v)) if (!Object.hasOwn(out, k)) setOwn(out, k, x);
  return jsonText(out);
}

const isObject = (v: unknown): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A coerced value to write back into the answer once all of it is checked. */
type Coerced = [Record<string, Json> | Json[], string | number, Json];

const jsonKind = (v: Json): string =>
  Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v === 'object' ? 'object' : typeof v === 'string' ? 'scalar String' : typeof v === 'number' ? 'scalar Number' : 'scalar Boolean';

/**
 * A scalar or enum field's value coerced as GraphQL result coercion does (graphql-js `serialize` of the built-in
 * scalars and of enums: `"12"` for an Int is 12, `"yes"` for a Boolean fails); custom and PostgreSQL-named scalars
 * pass as received (issue 28, replacing "without scalar coercion" of graphql-api.md §8 decision 8).
 */
function coerceLeaf(type: GraphQLOutputType, v: Json, field: string, into: [Record<string, Json> | Json[], string | number], out: Coerced[], fail: (m: string) => ApiError): void {
  const t = getNullableType(type);
  const wrong = (): ApiError => fail(`got ${jsonKind(v)} for field "${field}" of the action webhook response, expecting ${String(t)}`);
  if (t instanceof GraphQLList) {
    if (!Array.isArray(v)) throw wrong();
    const el = t.ofType as GraphQLOutputType;
    v.forEach((x, i) => {
      if (x === null) {
        if (isNonNullType(el)) throw fail(`expecting not null value for field "${field}"`);
        return;
      }
      coerceLeaf(el, x, field, [v, i], out, fail);
    });
    return;
  }
  if (!(t instanceof GraphQLEnumType) && !isSpecifiedScalarType(t as GraphQLScalarType)) return;
  if (typeof v === 'object' && v !== null) throw wrong();
  let c: unknown;
  try {
    c = (t as GraphQLScalarType | GraphQLEnumType).serialize(v);
  } catch {
    throw wrong();
  }
  if (c !== v) out.push([...into, c as Json]);
}

/** Checks a value of an object-typed position (the answer, or a nested object field) per §5.2.2. */
function checkValue(type: GraphQLOutputType, v: Json | undefined, fail: (m: string) => ApiError, out: Coerced[] = []): void {
  if (v === null || v === undefined) {
    if (isNonNullType(type)) throw fail('expecting object or array of objects for action webhook response');
    return;
  }
  const t = getNullableType(type);
  if (t instanceof GraphQLList) {
    if (!Array.isArray(v)) throw fail(isObject(v) ? 'expecting array for action webhook response but got object' : 'expecting object or array of objects for action webhook response');
    const el = t.ofType as GraphQLOutputType;
    for (const x of v) {
      // A null element is allowed where the element type is nullable (decision), as in any GraphQL list.
      if (x === null && !isNonNullType(el)) continue;
      if (!isObject(x)) throw fail('expecting object or array of objects for action webhook response');
      checkObject(getNamedType(el) as GraphQLObjectType, x, fail, out);
    }
    return;
  }
  if (Array.isArray(v)) throw fail('expecting object for action webhook response but got array');
  if (!isObject(v)) throw fail('expecting object or array of objects for action webhook response');
  checkObject(t as GraphQLObjectType, v, fail, out);
}

function checkObject(type: GraphQLObjectType, o: Record<string, Json>, fail: (m: string) => ApiError, out: Coerced[]): void {
  for (const f of Object.values(type.getFields())) {
    if (fieldInfo(f) !== undefined) continue; // a relationship, resolved by the engine, not given by the handler
    const v = o[f.name];
    if (isNonNullType(f.type)) {
      if (v === undefined) throw fail(`field "${f.name}" expected in webhook response, but not found`);
      if (v === null) throw fail(`expecting not null value for field "${f.name}"`);
    }
    if (getNamedType(f.type) instanceof GraphQLObjectType) checkValue(f.type, v, fail, out);
    else if (v !== undefined && v !== null) coerceLeaf(f.type, v, f.name, [o, f.name], out, fail);
  }
}

/**
 * The answer checked against the field's output type, its scalar values coerced in place once all of it is valid
 * (so that `internal` shows the answer as received); errors carry `internal` `{"webhook_response":…}` for admin.
 */
export function checkAnswer(field: Pick<Field, 'type'>, answer: Json): void {
  const out: Coerced[] = [];
  checkValue(field.type, answer, (m) => gqlError('unexpected', '$', m, { webhook_response: answer }), out);
  for (const [target, key, value] of out) (target as Record<string | number, Json>)[key] = value;
}

/**
 * The checked answer shaped by the selection (§5.1 step 3): requested fields taken as received, absent nullable fields
 * `null`, extra fields dropped, `__typename` the object type's name.
 */
export function shapeAnswer(type: GraphQLOutputType, v: Json | undefined, nodes: FieldNode[], sel: SelectionContext): Json {
  if (v === null || v === undefined) return null;
  const t = getNullableType(type);
  if (t instanceof GraphQLList) return (v as Json[]).map((x) => shapeAnswer(t.ofType as GraphQLOutputType, x, nodes, sel));
  if (!(t instanceof GraphQLObjectType)) return v;
  const o = v as Record<string, Json>;
  const out: Record<string, Json> = {};
  for (const [key, fns] of sel.subfields(nodes)) {
    const name = (fns[0] as FieldNode).name.value;
    if (name === '__typename') {
      out[key] = t.name;
      continue;
    }
    const f = t.getFields()[name] as Field;
    out[key] = shapeAnswer(f.type, o[name], fns, sel);
  }
  return out;
}

/**
 * The relationship fields selected on the output type itself (resolved by one statement, actions/relationships.ts),
 * and the path of the first one selected deeper, inside a nested object type (not executed by this version).
 */
export function outputRelationships(type: GraphQLOutputType, nodes: FieldNode[], sel: SelectionContext, path: string): { top: [string, FieldNode[], Field][]; nested: string | null } {
  const top: [string, FieldNode[], Field][] = [];
  const t = getNamedType(type);
  if (!(t instanceof GraphQLObjectType)) return { top, nested: null };
  for (const [key, fns] of sel.subfields(nodes)) {
    const f = t.getFields()[(fns[0] as FieldNode).name.value];
    if (!f) continue;
    if (fieldInfo(f)?.kind === 'action_rel') top.push([key, fns, f]);
    else if (getNamedType(f.type) instanceof GraphQLObjectType) {
      const inner = outputRelationships(f.type, fns, sel, `${path}.selectionSet.${key}`);
      const deeper = inner.top[0];
      if (deeper) return { top, nested: `${path}.selectionSet.${key}.selectionSet.${deeper[0]}` };
      if (inner.nested) return { top, nested: inner.nested };
    }
  }
  return { top, nested: null };
}
