import {
  getNullableType, isEnumType, isInputObjectType, isListType, Kind, type ConstValueNode, type GraphQLInputType,
} from 'graphql';

/**
 * A JSON value as a GraphQL literal of an input type (issue 35): what the engine writes into a forwarded document
 * (join arguments from columns, presets). The type guides only what JSON cannot say: enum values, and numbers where
 * a String is expected. Without a type (a custom scalar's insides) the value is written as it is.
 */
export function literal(v: unknown, type?: GraphQLInputType): ConstValueNode {
  if (v === null || v === undefined) return { kind: Kind.NULL };
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
