import {
  isEnumType, isInputObjectType, isLeafType, isListType, isNonNullType,
  type GraphQLInputField, type GraphQLInputObjectType, type GraphQLInputType, type GraphQLLeafType,
} from 'graphql';
import { COLUMN_VALUE } from '../schema/index.js';
import { takesColumnString } from './column-strings.js';

/**
 * Whether `coerceInputValue` of the `graphql` package would accept a variable's value, without building the coerced
 * copy and its paths: a nested insert's variable holds thousands of objects (issue 30's benchmark), where the
 * package's coercion was a sixth of the request. The same rules in the same terms; only `true` is trusted — on
 * `false` the package's coercion runs and reports the error as before. OneOf input objects are left to the package.
 * Each type's check is a closure built once (kept while the schema lives): the per-value walk then asks no type
 * predicate of the package (in the bundle, each of those calls goes through the module's export getters).
 */
export function inputValid(value: unknown, type: GraphQLInputType): boolean {
  return checkOf(type, false)(value);
}

type Check = (v: unknown) => boolean;

/** By type, apart at positions that take a column's value (where Int, Float and Boolean take strings too). */
const checks = [new WeakMap<GraphQLInputType, Check>(), new WeakMap<GraphQLInputType, Check>()] as const;

function checkOf(type: GraphQLInputType, column: boolean): Check {
  const memo = checks[column ? 1 : 0];
  const known = memo.get(type);
  if (known) return known;
  // A recursive input type reaches itself while its check is built: it reads the finished one through this.
  let built: Check | null = null;
  memo.set(type, (v) => (built as Check)(v));
  built = build(type, column);
  memo.set(type, built);
  return built;
}

const absent = (v: unknown): v is null | undefined => v === null || v === undefined;

function build(type: GraphQLInputType, column: boolean): Check {
  if (isNonNullType(type)) {
    const of = checkOf(type.ofType, column);
    return (v) => !absent(v) && of(v);
  }
  if (isListType(type)) {
    const item = checkOf(type.ofType, column);
    return (v) => {
      if (absent(v)) return true;
      if (Array.isArray(v)) {
        for (const x of v) if (!item(x)) return false;
        return true;
      }
      // Other iterables than arrays do not come from JSON; a single value is a list of one.
      return !(typeof v === 'object' && Symbol.iterator in v) && item(v);
    };
  }
  if (isInputObjectType(type)) return objectCheck(type);
  if (isLeafType(type)) {
    const leaf = leafCheck(type);
    return column && takesColumnString(type) ? (v) => typeof v === 'string' || leaf(v) : leaf;
  }
  return () => false;
}

function leafCheck(type: GraphQLLeafType): Check {
  const enumType = isEnumType(type);
  return (v) => {
    if (absent(v)) return true;
    try {
      return (enumType ? type.parseValue(v, true) : type.parseValue(v)) !== undefined;
    } catch {
      return false;
    }
  };
}

function objectCheck(type: GraphQLInputObjectType): Check {
  if (type.isOneOf) return absent;
  const defs = type.getFields() as Record<string, GraphQLInputField | undefined>;
  const fields = (Object.values(defs) as GraphQLInputField[]).map((f) => ({
    name: f.name, check: checkOf(f.type, f.extensions === COLUMN_VALUE), required: f.defaultValue === undefined && isNonNullType(f.type),
  }));
  return (v) => {
    if (absent(v)) return true;
    if (typeof v !== 'object' || Array.isArray(v)) return false;
    const o = v as Record<string, unknown>;
    for (const f of fields) {
      const x = o[f.name];
      if (x === undefined) {
        if (f.required) return false;
        continue;
      }
      if (!f.check(x)) return false;
    }
    for (const k of Object.keys(o)) if (!defs[k]) return false;
    return true;
  };
}
