import { Kind, type FieldNode, type FragmentDefinitionNode, type SelectionSetNode, type ValueNode } from 'graphql';
import { arrayLiteral } from '../../bool-exp/compile.js';
import { setOwn } from '../../../metadata/json.js';
import { isFreeNumeric, scientificShow } from './numeric-text.js';

/**
 * Argument values as the compiler reads them: literals keep their written key order and numbers keep their
 * written digits (a bigint literal must not pass through a JS number); variables are the request's JSON values.
 */
export class NumLit {
  constructor(readonly text: string) {}
}

/**
 * A scalar variable whose value is bound when the statement runs: the compiled SQL then serves every value of it
 * (graphql-api.md §7.4). Only non-null, non-boolean values of scalar-typed variables are bound this way.
 */
export class VarRef {
  constructor(readonly name: string) {}
}

export type GValue = null | boolean | string | number | NumLit | VarRef | GValue[] | { [key: string]: GValue };

export type Variables = Record<string, unknown>;

/** The value of an argument or input field; undefined means "not given" (an absent variable without default). */
export function valueOf(node: ValueNode, vars: Variables, defaults: Map<string, ValueNode>, bound: Set<string> = new Set()): GValue | undefined {
  switch (node.kind) {
    case Kind.VARIABLE: {
      const name = node.name.value;
      if (bound.has(name)) return new VarRef(name);
      if (name in vars && vars[name] !== undefined) return vars[name] as GValue;
      const d = defaults.get(name);
      return d ? valueOf(d, vars, defaults) : undefined;
    }
    case Kind.INT:
    case Kind.FLOAT:
      return new NumLit(node.value);
    case Kind.STRING:
    case Kind.ENUM:
      return node.value;
    case Kind.BOOLEAN:
      return node.value;
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return node.values.map((v) => valueOf(v, vars, defaults, bound)).filter((v): v is GValue => v !== undefined);
    case Kind.OBJECT: {
      const o: Record<string, GValue> = {};
      for (const f of node.fields) {
        const v = valueOf(f.value, vars, defaults, bound);
        if (v !== undefined) o[f.name.value] = v;
      }
      return o;
    }
  }
}

/** Arguments of a field by name, in written order. */
export function argsOf(field: FieldNode, vars: Variables, defaults: Map<string, ValueNode>, bound?: Set<string>): Map<string, GValue> {
  const out = new Map<string, GValue>();
  for (const a of field.arguments ?? []) {
    const v = valueOf(a.value, vars, defaults, bound);
    if (v !== undefined) out.set(a.name.value, v);
  }
  return out;
}

export const isPlainObject = (v: GValue | undefined): v is { [key: string]: GValue } =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof NumLit) && !(v instanceof VarRef);

/** Whether a value holds a bound variable anywhere. */
export const hasVarRef = (v: GValue): boolean =>
  v instanceof VarRef || (Array.isArray(v) ? v.some(hasVarRef) : isPlainObject(v) && Object.values(v).some(hasVarRef));

/** The value with its bound variables replaced by the request's values. */
export function resolveVars(v: GValue, vars: Variables): GValue {
  if (v instanceof VarRef) return (vars[v.name] ?? null) as GValue;
  if (Array.isArray(v)) return v.map((x) => resolveVars(x, vars));
  if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolveVars(x, vars)]));
  return v;
}

/** JSON text of a value (for json/jsonb parameters), numbers with their written digits. */
export function jsonText(v: GValue): string {
  if (v instanceof NumLit) return v.text;
  if (v instanceof VarRef) throw new Error(`variable ${v.name} was not resolved`);
  if (Array.isArray(v)) return `[${v.map(jsonText).join(',')}]`;
  if (isPlainObject(v)) return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${jsonText(x)}`).join(',')}}`;
  return JSON.stringify(v);
}

/**
 * The text PostgreSQL casts a parameter from, for a column of `typeName`. A number for a numeric without a declared
 * scale is written as the incumbent's mutations write it (its scale is what PostgreSQL keeps, numeric-text.ts).
 */
export function paramText(v: GValue, typeName: string): string | null {
  if (v === null) return null;
  if (typeName === 'json' || typeName === 'jsonb') return jsonText(v);
  if (v instanceof NumLit) return isFreeNumeric(typeName) ? scientificShow(v.text) : v.text;
  if (typeof v === 'number' && isFreeNumeric(typeName)) return scientificShow(String(v));
  if (Array.isArray(v)) return arrayLiteral(v.map((x) => paramText(x, typeName.replace(/\[\]$/, ''))));
  if (isPlainObject(v)) return jsonText(v);
  return String(v);
}

/** A list argument given as a single value is a list of one (GraphQL input coercion). */
export const asList = (v: GValue): GValue[] => (Array.isArray(v) ? v : [v]);

/** Fields of a selection set after @skip/@include, fragment expansion and merging by response key. */
export function collectFields(
  ss: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, include: (n: { directives?: readonly unknown[] }) => boolean,
  out = new Map<string, FieldNode[]>(), seen = new Set<string>(),
): Map<string, FieldNode[]> {
  for (const sel of ss.selections) {
    if (!include(sel)) continue;
    if (sel.kind === Kind.FIELD) {
      const key = (sel.alias ?? sel.name).value;
      const list = out.get(key);
      if (list) list.push(sel);
      else out.set(key, [sel]);
    } else if (sel.kind === Kind.INLINE_FRAGMENT) {
      collectFields(sel.selectionSet, fragments, include, out, seen);
    } else if (!seen.has(sel.name.value)) {
      const frag = fragments.get(sel.name.value);
      if (frag) collectFields(frag.selectionSet, fragments, include, out, new Set([...seen, sel.name.value]));
    }
  }
  return out;
}

const SCALAR = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;

/**
 * Parses JSON text keeping each number's written digits (as NumLit), for values stored as jsonb whose digits must
 * reach a handler unchanged (JSON.parse turns 9007199254740993 into …992). The text is PostgreSQL's own output.
 */
export function parseJsonDigits(text: string): GValue {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  };
  const value = (): GValue => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const o: Record<string, GValue> = {};
      ws();
      if (text[i] === '}') {
        i++;
        return o;
      }
      for (;;) {
        ws();
        const k = value() as string;
        ws();
        i++; // ':'
        setOwn(o, k, value());
        ws();
        if (text[i++] === '}') return o;
      }
    }
    if (c === '[') {
      i++;
      const a: GValue[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return a;
      }
      for (;;) {
        a.push(value());
        ws();
        if (text[i++] === ']') return a;
      }
    }
    SCALAR.lastIndex = i;
    const m = SCALAR.exec(text);
    if (!m) throw new Error(`not JSON at ${i}`);
    i += m[0].length;
    return m[0].startsWith('"') || !/^-?\d/.test(m[0]) ? (JSON.parse(m[0]) as GValue) : new NumLit(m[0]);
  };
  return value();
}
