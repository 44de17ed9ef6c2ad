import { isRasterType, spatialSchema, spatialType } from '../../bool-exp/operators.js';
import type { StatementBuilder } from './sql-builder.js';
import { isPlainObject, type GValue } from './values.js';

/**
 * The PostGIS operators of schema/spatial-operators.ts as SQL, the incumbent's functions with the column first.
 * GeoJSON and hex operands become values through StatementBuilder.param (ST_GeomFromGeoJSON, ST_RastFromHexWKB).
 * Null when `op` is none of them for the column's type.
 */

/** Operators taking one geometry (or, on geography, one geography). */
const RELATIONS: Record<string, string> = {
  _st_contains: 'ST_Contains', _st_crosses: 'ST_Crosses', _st_equals: 'ST_Equals', _st_intersects: 'ST_Intersects',
  _st_overlaps: 'ST_Overlaps', _st_touches: 'ST_Touches', _st_within: 'ST_Within', _st_3d_intersects: 'ST_3DIntersects',
};

export function spatialComparison(b: StatementBuilder, col: string, castType: string, op: string, operand: GValue): string | null {
  const prefix = spatialSchema(castType);
  const fn = (name: string): string => `${prefix}${name}`;
  const kind = spatialType(castType);
  const input = (key: string): GValue => (isPlainObject(operand) ? (operand[key] ?? null) : null);
  if (kind !== null) {
    const rel = RELATIONS[op];
    if (rel) return `${fn(rel)}(${col}, ${b.param(operand, castType)})`;
    if (op === '_st_d_within' || op === '_st_3d_d_within') {
      const args = [col, b.param(input('from'), castType), b.param(input('distance'), 'double precision')];
      // On geography the incumbent passes use_spheroid, true unless given.
      if (kind === 'geography') args.push(b.param(input('use_spheroid') ?? true, 'boolean'));
      return `${fn(op === '_st_d_within' ? 'ST_DWithin' : 'ST_3DDWithin')}(${args.join(', ')})`;
    }
    return null;
  }
  if (!isRasterType(castType)) return null;
  const geometry = `${prefix}geometry`;
  switch (op) {
    case '_st_intersects_rast':
      return `${fn('ST_Intersects')}(${col}, ${b.param(operand, castType)})`;
    case '_st_intersects_geom_nband':
      return `${fn('ST_Intersects')}(${col}, ${b.param(input('geommin'), geometry)}, ${b.param(input('nband'), 'integer')})`;
    case '_st_intersects_nband_geom':
      return `${fn('ST_Intersects')}(${col}, ${b.param(input('nband'), 'integer')}, ${b.param(input('geommin'), geometry)})`;
    default:
      return null;
  }
}

/** The cast a `_cast` key names on a column of `castType`: the SQL type to cast to, or null for a key it lacks. */
export function castTarget(castType: string, key: string): string | null {
  if (key === 'String') return 'text';
  const kind = spatialType(castType);
  const prefix = spatialSchema(castType);
  if (kind === 'geometry' && key === 'geography') return `${prefix}geography`;
  if (kind === 'geography' && key === 'geometry') return `${prefix}geometry`;
  return null;
}
