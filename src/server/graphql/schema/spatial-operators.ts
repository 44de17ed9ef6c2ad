import {
  GraphQLBoolean, GraphQLFloat, GraphQLInputObjectType, GraphQLInt, type GraphQLInputFieldConfigMap, type GraphQLInputType, type GraphQLScalarType,
} from 'graphql';
import { isRasterType, spatialSchema, spatialType } from '../../bool-exp/operators.js';
import { NO_EXTENSIONS } from './extensions.js';
import { sharedNonNull } from './shared-types.js';

/**
 * The PostGIS comparison operators of GraphQL `where`, as the incumbent names and types them (issue 30): on geometry
 * the spatial relations, distances in 2D and 3D and `_cast: {geography: …}`; on geography `_st_intersects`,
 * `_st_d_within` (with `use_spheroid`) and `_cast: {geometry: …}`; on raster the intersections with a raster or a
 * geometry of a band. Operands are GeoJSON (geometry, geography) or hex WKB (raster). Compiled by
 * compile/spatial-operators.ts.
 */

type Scalar = (typeName: string) => GraphQLScalarType;
type Comparison = (typeName: string) => GraphQLInputObjectType;

const field = (type: GraphQLInputType, defaultValue?: unknown) => ({ type, defaultValue, extensions: NO_EXTENSIONS });

/** One shared input object per name in the schema's cache. */
function shared(cache: Map<string, GraphQLInputObjectType>, name: string, fields: () => GraphQLInputFieldConfigMap): GraphQLInputObjectType {
  let t = cache.get(name);
  if (!t) {
    t = new GraphQLInputObjectType({ name, extensions: NO_EXTENSIONS, fields });
    cache.set(name, t);
  }
  return t;
}

/** Adds the operators of a geometry, geography or raster column's comparison; other types are left alone. */
export function spatialFields(f: GraphQLInputFieldConfigMap, typeName: string, scalar: Scalar, comparison: Comparison, cache: Map<string, GraphQLInputObjectType>): void {
  const prefix = spatialSchema(typeName.replace(/\(.*\)$/, ''));
  const geometry = () => scalar(`${prefix}geometry`);
  const kind = spatialType(typeName);
  if (kind === 'geometry') {
    const g = field(geometry());
    const dWithin = field(shared(cache, 'st_d_within_input', () => ({ distance: field(sharedNonNull(GraphQLFloat)), from: field(sharedNonNull(geometry())) })));
    Object.assign(f, {
      _cast: field(shared(cache, 'geometry_cast_exp', () => ({ geography: field(comparison(`${prefix}geography`)) }))),
      _st_3d_d_within: dWithin, _st_3d_intersects: g, _st_contains: g, _st_crosses: g, _st_d_within: dWithin,
      _st_equals: g, _st_intersects: g, _st_overlaps: g, _st_touches: g, _st_within: g,
    });
  } else if (kind === 'geography') {
    const geography = () => scalar(`${prefix}geography`);
    Object.assign(f, {
      _cast: field(shared(cache, 'geography_cast_exp', () => ({ geometry: field(comparison(`${prefix}geometry`)) }))),
      _st_d_within: field(shared(cache, 'st_d_within_geography_input', () => ({
        distance: field(sharedNonNull(GraphQLFloat)), from: field(sharedNonNull(geography())), use_spheroid: field(GraphQLBoolean, true),
      }))),
      _st_intersects: field(geography()),
    });
  } else if (isRasterType(typeName)) {
    Object.assign(f, {
      _st_intersects_geom_nband: field(shared(cache, 'st_intersects_geom_nband_input', () => ({ geommin: field(sharedNonNull(geometry())), nband: field(GraphQLInt) }))),
      _st_intersects_nband_geom: field(shared(cache, 'st_intersects_nband_geom_input', () => ({ nband: field(sharedNonNull(GraphQLInt)), geommin: field(sharedNonNull(geometry())) }))),
      _st_intersects_rast: field(scalar(typeName)),
    });
  }
}
