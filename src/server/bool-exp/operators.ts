import { isSessionVariableName } from '../auth/session-names.js';

/** The BoolExp grammar's vocabulary (engine-api.md §4.4.1–§4.4.2), shared by the validator and the compiler. */

export const TEXT_LIKE = new Set(['text', 'character varying', 'character', 'citext', 'name']);
export const NUMERIC = new Set(['smallint', 'integer', 'bigint', 'numeric', 'real', 'double precision']);

export type OperatorClass = 'compare' | 'null-compare' | 'in' | 'text' | 'is-null' | 'column' | 'jsonb-value' | 'jsonb-key' | 'jsonb-keys' | 'spatial' | 'spatial-distance';

export interface OperatorInfo {
  cls: OperatorClass;
  /** SQL operator or keyword; for `in` and `is-null` the compiler decides. */
  sql: string;
  /** Which column types accept it. */
  appliesTo: 'all-but-json' | 'all' | 'text-like' | 'jsonb' | 'geometry' | 'spatial';
}

const info = (cls: OperatorClass, sql: string, appliesTo: OperatorInfo['appliesTo']): OperatorInfo => ({ cls, sql, appliesTo });

export const OPERATORS: Record<string, OperatorInfo> = {
  _eq: info('null-compare', 'IS NOT DISTINCT FROM', 'all-but-json'),
  _ne: info('null-compare', 'IS DISTINCT FROM', 'all-but-json'),
  _neq: info('null-compare', 'IS DISTINCT FROM', 'all-but-json'),
  _gt: info('compare', '>', 'all-but-json'),
  _lt: info('compare', '<', 'all-but-json'),
  _gte: info('compare', '>=', 'all-but-json'),
  _lte: info('compare', '<=', 'all-but-json'),
  _in: info('in', 'IN', 'all-but-json'),
  _nin: info('in', 'NOT IN', 'all-but-json'),
  _like: info('text', 'LIKE', 'text-like'),
  _nlike: info('text', 'NOT LIKE', 'text-like'),
  _ilike: info('text', 'ILIKE', 'text-like'),
  _nilike: info('text', 'NOT ILIKE', 'text-like'),
  _similar: info('text', 'SIMILAR TO', 'text-like'),
  _nsimilar: info('text', 'NOT SIMILAR TO', 'text-like'),
  _regex: info('text', '~', 'text-like'),
  _iregex: info('text', '~*', 'text-like'),
  _nregex: info('text', '!~', 'text-like'),
  _niregex: info('text', '!~*', 'text-like'),
  _is_null: info('is-null', 'IS NULL', 'all'),
  _ceq: info('column', '=', 'all-but-json'),
  _cne: info('column', '<>', 'all-but-json'),
  _cneq: info('column', '<>', 'all-but-json'),
  _cgt: info('column', '>', 'all-but-json'),
  _clt: info('column', '<', 'all-but-json'),
  _cgte: info('column', '>=', 'all-but-json'),
  _clte: info('column', '<=', 'all-but-json'),
  _contains: info('jsonb-value', '@>', 'jsonb'),
  _contained_in: info('jsonb-value', '<@', 'jsonb'),
  _has_key: info('jsonb-key', '?', 'jsonb'),
  _has_keys_any: info('jsonb-keys', '?|', 'jsonb'),
  _has_keys_all: info('jsonb-keys', '?&', 'jsonb'),
  // PostGIS (the incumbent's): a GeoJSON operand; geography columns have only the two PostGIS defines for them.
  _st_contains: info('spatial', 'ST_Contains', 'geometry'),
  _st_crosses: info('spatial', 'ST_Crosses', 'geometry'),
  _st_equals: info('spatial', 'ST_Equals', 'geometry'),
  _st_overlaps: info('spatial', 'ST_Overlaps', 'geometry'),
  _st_touches: info('spatial', 'ST_Touches', 'geometry'),
  _st_within: info('spatial', 'ST_Within', 'geometry'),
  _st_intersects: info('spatial', 'ST_Intersects', 'spatial'),
  _st_d_within: info('spatial-distance', 'ST_DWithin', 'spatial'),
};

/** A PostGIS column type (format_type output, typmod and schema dropped). */
export const spatialType = (typeName: string): 'geometry' | 'geography' | null => {
  const t = typeName.replace(/\(.*\)$/, '').split('.').pop();
  return t === 'geometry' || t === 'geography' ? t : null;
};

/** PostGIS's raster type (format_type output). */
export const isRasterType = (typeName: string): boolean => typeName.replace(/\(.*\)$/, '').split('.').pop() === 'raster';

/** The schema prefix (`postgis.`) of a PostGIS type the catalog printed qualified, for its functions; else ''. */
export const spatialSchema = (typeName: string): string => {
  const dot = typeName.lastIndexOf('.');
  return dot < 0 ? '' : typeName.slice(0, dot + 1);
};

/**
 * A text expression as a value of a PostGIS type, or null for other types. PostGIS values arrive in the incumbent's
 * forms, read by its constructors: a geometry or geography as GeoJSON text (ST_GeomFromGeoJSON, whose `crs` sets the
 * SRID; geography's input function reads no GeoJSON), a raster as hex WKB. `text` may appear twice: a parameter or a
 * column, never an expression with effects.
 */
export function spatialFromText(text: string, typeName: string): string | null {
  const spatial = spatialType(typeName);
  if (spatial !== null) {
    const g = `${spatialSchema(typeName)}ST_GeomFromGeoJSON(${text})`;
    // Text that is not a JSON object (WKT or EWKB in a preset or a `/v1/query` insert) is read by the type itself.
    return `CASE WHEN ltrim(${text}) LIKE '{%' THEN ${spatial === 'geography' ? `${g}::${typeName}` : g} ELSE (${text})::${typeName} END`;
  }
  if (isRasterType(typeName)) return `${spatialSchema(typeName)}ST_RastFromHexWKB(${text})`;
  return null;
}

/** `$eq` is `_eq`: every operator and logical key also has a `$` form. */
export const canonicalKey = (key: string): string => (key.startsWith('$') ? `_${key.slice(1)}` : key);

/** The operator a filter key names; own keys only, so that "constructor" is an unknown operator, not a function. */
export function operatorOf(key: string): OperatorInfo | undefined {
  const k = canonicalKey(key);
  return Object.hasOwn(OPERATORS, k) ? OPERATORS[k] : undefined;
}

export const LOGICAL = new Set(['_and', '_or', '_not', '_exists']);

export function appliesTo(op: OperatorInfo, typeName: string): boolean {
  switch (op.appliesTo) {
    case 'all':
      return true;
    case 'all-but-json':
      return typeName !== 'json';
    case 'text-like':
      return TEXT_LIKE.has(typeName);
    case 'jsonb':
      return typeName === 'jsonb';
    case 'geometry':
      return spatialType(typeName) === 'geometry';
    case 'spatial':
      return spatialType(typeName) !== null;
  }
}

/** A JSON string starting with `x-engine-` or `x-hasura-` (any case) is a session-variable reference (§4.4.3, issue 29.1). */
export const isSessionRef = (v: unknown): v is string => isSessionVariableName(v);

/** Whether a static value fits a column type (§4.4.3); references always fit. */
export function valueFits(v: unknown, typeName: string): boolean {
  if (isSessionRef(v)) return true;
  if (typeName === 'jsonb') return true;
  // A PostGIS value is GeoJSON (an object), as the incumbent takes it; text (WKT) is left to PostgreSQL.
  if (spatialType(typeName) !== null) return typeof v === 'string' || (typeof v === 'object' && v !== null && !Array.isArray(v));
  if (NUMERIC.has(typeName)) return (typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)));
  if (typeName === 'boolean') return typeof v === 'boolean' || v === 'true' || v === 'false' || v === 't' || v === 'f';
  if (TEXT_LIKE.has(typeName)) return typeof v === 'string';
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

/**
 * The operand of a `_c*` operator: a column of the table being compared (`"col"` or `["col"]`) or, the incumbent's
 * form, of the root table of the whole expression (`["$", "col"]`). Null when it is neither.
 */
export function columnRef(v: unknown): { column: string; root: boolean } | null {
  if (typeof v === 'string') return { column: v, root: false };
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) return null;
  if (v.length === 1) return { column: v[0] as string, root: false };
  if (v.length === 2 && v[0] === '$') return { column: v[1] as string, root: true };
  return null;
}
