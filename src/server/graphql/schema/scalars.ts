import { GraphQLBoolean, GraphQLFloat, GraphQLInt, GraphQLScalarType, GraphQLString, Kind, print, valueFromASTUntyped, type ValueNode } from 'graphql';
import { isRasterType, NUMERIC, spatialSchema, spatialType } from '../../bool-exp/operators.js';
import { checkGeoJson, checkRasterHex } from './geojson.js';

/**
 * PostgreSQL types as GraphQL scalars (graphql-api.md §2.3). Input values are bound as parameters and cast by
 * PostgreSQL, so a scalar only checks the literal's kind; outputs come from PostgreSQL's JSON and never pass here.
 */

/** The incumbent's mapping (issue 29.8): only these five types are GraphQL's own scalars; the rest keep PostgreSQL names. */
const BUILTIN: Record<string, GraphQLScalarType> = {
  integer: GraphQLInt, real: GraphQLFloat, boolean: GraphQLBoolean, text: GraphQLString, 'character varying': GraphQLString,
};

const NAMED: Record<string, string> = {
  smallint: 'smallint', 'double precision': 'float8', character: 'bpchar', citext: 'citext', name: 'name',
  bigint: 'bigint', numeric: 'numeric', uuid: 'uuid', json: 'json', jsonb: 'jsonb',
  'timestamp with time zone': 'timestamptz', 'timestamp without time zone': 'timestamp', date: 'date',
  'time without time zone': 'time', 'time with time zone': 'timetz', interval: 'interval',
};

/** typname of the common element types, for array scalars `_<typname>`. */
const TYPNAME: Record<string, string> = {
  smallint: 'int2', integer: 'int4', bigint: 'int8', real: 'float4', 'double precision': 'float8', boolean: 'bool',
  'character varying': 'varchar', character: 'bpchar', 'timestamp with time zone': 'timestamptz',
  'timestamp without time zone': 'timestamp', 'time without time zone': 'time', 'time with time zone': 'timetz',
};

/** format_type output without its qualifiers: `public."Mood"` → `Mood`, `character varying(10)` → `character varying`. */
function baseName(typeName: string): string {
  const unmodified = typeName.replace(/\(.*\)$/, '');
  const last = unmodified.split('.').pop() ?? unmodified;
  return last.replace(/^"(.*)"$/, '$1');
}

/** The scalar name for a column type (format_type output). */
export function scalarName(typeName: string): string {
  const arr = /^(.*?)((\[\])+)$/.exec(typeName);
  if (arr) {
    const el = (arr[1] ?? '').replace(/\(.*\)$/, '');
    return `_${TYPNAME[el] ?? baseName(el)}`;
  }
  const t = typeName.replace(/\(.*\)$/, '');
  const builtin = BUILTIN[t];
  if (builtin) return builtin.name;
  return NAMED[t] ?? baseName(typeName);
}

/** `geojson`: a PostGIS geometry or geography, a GeoJSON object; `raster`: hex WKB text (both checked as the incumbent does). */
export type ScalarClass = 'number' | 'json' | 'array' | 'text' | 'any' | 'geojson' | 'raster';

function literalFits(cls: ScalarClass, node: ValueNode): boolean {
  switch (cls) {
    case 'any':
    case 'json':
      return node.kind !== Kind.VARIABLE;
    case 'number':
      return node.kind === Kind.INT || node.kind === Kind.FLOAT || node.kind === Kind.STRING;
    case 'array':
      return node.kind === Kind.LIST || node.kind === Kind.STRING;
    case 'text':
    case 'raster':
      return node.kind === Kind.STRING;
    case 'geojson':
      return node.kind === Kind.OBJECT;
  }
}

/** Whether a literal holds a variable: its value is known only when the request runs (then checked by parseValue). */
const hasVariable = (node: ValueNode): boolean =>
  node.kind === Kind.VARIABLE || (node.kind === Kind.LIST && node.values.some(hasVariable)) || (node.kind === Kind.OBJECT && node.fields.some((f) => hasVariable(f.value)));

/** The incumbent's own parsing of spatial values: throws SpatialValueError with its message. */
function checkSpatial(cls: ScalarClass, v: unknown): void {
  if (cls === 'geojson') checkGeoJson(v);
  else if (cls === 'raster') checkRasterHex(v);
}

function valueFits(cls: ScalarClass, v: unknown): boolean {
  switch (cls) {
    case 'any':
    case 'json':
      return true;
    case 'number':
      return (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'string';
    case 'array':
      return Array.isArray(v) || typeof v === 'string';
    case 'text':
    case 'raster':
      return typeof v === 'string';
    case 'geojson':
      return typeof v === 'object' && v !== null && !Array.isArray(v);
  }
}

const cache = new Map<string, GraphQLScalarType>();

/** One shared scalar object per name and class (every role's schema may use the same instances). */
export function customScalar(name: string, cls: ScalarClass, description?: string): GraphQLScalarType {
  const key = `${name}\u0000${cls}\u0000${description ?? ''}`;
  let s = cache.get(key);
  if (!s) {
    s = new GraphQLScalarType({
      name,
      description,
      serialize: (v) => v,
      parseValue: (v) => {
        if (!valueFits(cls, v)) throw new TypeError(`invalid value for type "${name}"`);
        checkSpatial(cls, v);
        return v;
      },
      parseLiteral: (node, variables) => {
        if (!literalFits(cls, node)) throw new TypeError(`invalid value for type "${name}": ${print(node)}`);
        if (!hasVariable(node)) checkSpatial(cls, valueFromASTUntyped(node, variables));
        return node;
      },
    });
    cache.set(key, s);
  }
  return s;
}

/** The GraphQL scalar of a column type. */
export function columnScalar(typeName: string): GraphQLScalarType {
  const name = scalarName(typeName);
  const t = typeName.replace(/\(.*\)$/, '');
  const builtin = BUILTIN[t];
  if (builtin) return builtin;
  if (name.startsWith('_')) return customScalar(name, 'array');
  if (t === 'json' || t === 'jsonb') return customScalar(name, 'json');
  if (spatialType(t) !== null) return customScalar(name, 'geojson');
  if (isRasterType(t)) return customScalar(name, 'raster');
  // money takes numbers as the incumbent's does (`_inc: {m: -1.1}`); PostgreSQL answers it as text ("$1.00").
  if (NUMERIC.has(t) || t === 'money') return customScalar(name, 'number');
  return customScalar(name, 'text');
}

/**
 * Types PostgreSQL's JSON prints as numbers with every digit (numeric 123456789012345678901234.5 as that literal):
 * the incumbent's default, kept; with `stringify` (ENGINE_GRAPHQL_STRINGIFY_NUMERIC_TYPES, issue 29.8) as strings, double precision
 * included as the incumbent does.
 */
const NUMERIC_OUTPUT = new Set(['bigint', 'numeric', 'double precision']);

/** The SQL expression of a column value in a response; `stringify`: bigint, numeric and float8 (and their arrays) as strings. */
export function outputExpr(expr: string, typeName: string, stringify = false): string {
  const t = typeName.replace(/\(.*\)$/, '');
  // The incumbent's GeoJSON: up to 15 decimal digits, the CRS named in full (`urn:ogc:def:crs:EPSG::4326`) when known.
  if (spatialType(t) !== null) return `${spatialSchema(t)}ST_AsGeoJSON(${expr}, 15, 4)::json`;
  if (!stringify) return expr;
  if (NUMERIC_OUTPUT.has(t)) return `(${expr})::text`;
  const arr = /^(.*?)((\[\])+)$/.exec(t);
  if (arr && NUMERIC_OUTPUT.has(arr[1] ?? '')) return `(${expr})::text[]`;
  return expr;
}

export const isJsonType = (typeName: string): boolean => typeName === 'json' || typeName === 'jsonb';

