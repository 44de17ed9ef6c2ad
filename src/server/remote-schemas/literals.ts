import { randomBytes } from 'node:crypto';
import {
  getNullableType, isEnumType, isInputObjectType, isListType, Kind, type ConstValueNode, type GraphQLInputType,
} from 'graphql';

/**
 * A number of JSON text that a JavaScript number would round (a bigint above 2^53, a numeric's digits), kept as its
 * text behind this prefix: PostgreSQL text cannot hold NUL, and a remote cannot guess the per-process part.
 */
export const DIGITS = `\u0000${randomBytes(6).toString('hex')}:`;
const KEPT = new RegExp(`"\\\\u0000${DIGITS.slice(1)}(-?[0-9][0-9.eE+-]*)"`, 'g');

/** JSON text of a value read by parseKeepingDigits: each kept number is written back as its digits. */
export const stringifyKeepingDigits = (v: unknown): string => JSON.stringify(v).replace(KEPT, '$1');

/** A kept number as the text of its digits (a statement's parameter, cast to a column's type); other values as they are. */
export const digitsText = <T>(v: T): T | string => (typeof v === 'string' && v.startsWith(DIGITS) ? v.slice(DIGITS.length) : v);

/** Kept numbers back to JavaScript numbers, at any depth (where the value is not written out again by us: errors). */
export function withoutDigits(v: unknown): unknown {
  if (typeof v === 'string' && v.startsWith(DIGITS)) return Number(v.slice(DIGITS.length));
  if (Array.isArray(v)) return v.map(withoutDigits);
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withoutDigits(x)]));
  return v;
}

/** The kept digits as the incumbent sends a join value: a number (a String argument gets them as a string). */
function digitsLiteral(digits: string, type: GraphQLInputType | undefined): ConstValueNode {
  const t = type ? getNullableType(type) : undefined;
  const named = t && 'name' in t ? t.name : undefined;
  if (named === 'String') return { kind: Kind.STRING, value: digits };
  return /^-?\d+$/.test(digits) && named !== 'Float' ? { kind: Kind.INT, value: digits } : { kind: Kind.FLOAT, value: digits };
}

/**
 * JSON text parsed with every number that JSON.parse would round kept as DIGITS + its text (Node 20 has no
 * reviver access to the source text).
 */
export function parseKeepingDigits(text: string): unknown {
  let out = '';
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      continue;
    }
    if (c !== '-' && (c < '0' || c > '9')) continue;
    let j = i + 1;
    while (j < text.length && /[0-9.eE+-]/.test(text[j] as string)) j++;
    const token = text.slice(i, j);
    if (String(Number(token)) !== token) {
      out += `${text.slice(last, i)}"${DIGITS.replace('\u0000', '\\u0000')}${token}"`;
      last = j;
    }
    i = j - 1;
  }
  return JSON.parse(out + text.slice(last)) as unknown;
}

/**
 * A JSON value as a GraphQL literal of an input type (issue 35): what the engine writes into a forwarded document
 * (join arguments from columns, presets). The type guides only what JSON cannot say: enum values, and numbers where
 * a String is expected. Without a type (a custom scalar's insides) the value is written as it is.
 */
export function literal(v: unknown, type?: GraphQLInputType): ConstValueNode {
  if (v === null || v === undefined) return { kind: Kind.NULL };
  if (typeof v === 'string' && v.startsWith(DIGITS)) return digitsLiteral(v.slice(DIGITS.length), type);
  const t = type ? getNullableType(type) : undefined;
  if (t && isListType(t)) {
    const items = Array.isArray(v) ? v : [v];
    return { kind: Kind.LIST, values: items.map((x) => literal(x, t.ofType as GraphQLInputType)) };
  }
  if (Array.isArray(v)) return { kind: Kind.LIST, values: v.map((x) => literal(x)) };
  if (typeof v === 'object') {
    const fields = t && isInputObjectType(t) ? t.getFields() : undefined;
    return {
      kind: Kind.OBJECT,
      fields: Object.entries(v as Record<string, unknown>).map(([k, x]) => ({
        kind: Kind.OBJECT_FIELD, name: { kind: Kind.NAME, value: k }, value: literal(x, fields?.[k]?.type),
      })),
    };
  }
  if (t && isEnumType(t) && typeof v === 'string') return { kind: Kind.ENUM, value: v };
  if (typeof v === 'boolean') return { kind: Kind.BOOLEAN, value: v };
  const named = t && 'name' in t ? t.name : undefined;
  if (typeof v === 'number') {
    if (named === 'String') return { kind: Kind.STRING, value: String(v) };
    return Number.isInteger(v) && named !== 'Float' ? { kind: Kind.INT, value: String(v) } : { kind: Kind.FLOAT, value: String(v) };
  }
  const s = String(v);
  // A column's digits given to an Int or Float argument (bigint and numeric reach the engine as text).
  if ((named === 'Int' || named === 'Float') && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(s)) {
    return named === 'Int' && /^-?\d+$/.test(s) ? { kind: Kind.INT, value: s } : { kind: Kind.FLOAT, value: s };
  }
  return { kind: Kind.STRING, value: s };
}
