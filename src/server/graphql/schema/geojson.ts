/**
 * GeoJSON values of PostGIS columns as the incumbent reads them (issue 30): it parses a geometry itself before any
 * SQL runs and answers `parse-failed` with its own sentences, so a malformed value never reaches PostGIS (whose
 * errors would be SQL errors naming the function). The checks are the incumbent's: positions of two or more
 * numbers, line strings of two or more positions, closed linear rings of four or more, the seven geometry types,
 * an optional `crs` of type `name` or `link`. Raster values are hex WKB text.
 */

/** A value the incumbent's GeoJSON or raster parser refuses; the message is its sentence. */
export class SpatialValueError extends Error {}

const kindOf = (v: unknown): string =>
  v === null ? 'Null' : Array.isArray(v) ? 'Array' : typeof v === 'object' ? 'Object' : typeof v === 'string' ? 'String' : typeof v === 'number' ? 'Number' : 'Boolean';

function array(v: unknown, what: string): unknown[] {
  if (!Array.isArray(v)) throw new SpatialValueError(`parsing ${what} failed, expected Array, but encountered ${kindOf(v)}`);
  return v;
}

function position(v: unknown): number[] {
  const a = array(v, 'Position');
  if (a.length < 2) throw new SpatialValueError('A Position needs at least 2 elements');
  // Past the third element the incumbent ignores what is there.
  for (const x of a.slice(0, 3)) {
    if (typeof x !== 'number') throw new SpatialValueError(`parsing Double failed, unexpected ${kindOf(x)}`);
  }
  return a.slice(0, 3) as number[];
}

const positions = (v: unknown, what: string): number[][] => array(v, what).map(position);

function lineString(v: unknown): void {
  if (positions(v, 'LineString').length < 2) throw new SpatialValueError('A LineString needs at least 2 Positions');
}

function linearRing(v: unknown): void {
  const ps = positions(v, 'LinearRing');
  if (ps.length < 4) throw new SpatialValueError('A LinearRing needs at least 4 Positions');
  const [first, last] = [ps[0] as number[], ps[ps.length - 1] as number[]];
  if (first.length !== last.length || first.some((x, i) => x !== last[i])) {
    throw new SpatialValueError('the first and last locations have to be equal for a LinearRing');
  }
}

const polygon = (v: unknown): void => array(v, 'Polygon').forEach(linearRing);

function field(o: Record<string, unknown>, key: string): unknown {
  if (!Object.hasOwn(o, key)) throw new SpatialValueError(`key "${key}" not found`);
  return o[key];
}

function crs(v: unknown): void {
  if (v === undefined || v === null) return;
  if (typeof v !== 'object' || Array.isArray(v)) throw new SpatialValueError(`parsing CRS failed, expected Object, but encountered ${kindOf(v)}`);
  const o = v as Record<string, unknown>;
  const type = field(o, 'type');
  const props = field(o, 'properties');
  if (typeof props !== 'object' || props === null || Array.isArray(props)) throw new SpatialValueError(`parsing CRS properties failed, expected Object, but encountered ${kindOf(props)}`);
  const p = props as Record<string, unknown>;
  const text = (key: string): void => {
    if (typeof field(p, key) !== 'string') throw new SpatialValueError(`parsing Text failed, expected String, but encountered ${kindOf(p[key])}`);
  };
  if (type === 'name') text('name');
  else if (type === 'link') text('href');
  else throw new SpatialValueError(`unexpected CRS type: ${String(type)}`);
}

/** Throws SpatialValueError when `v` is not a GeoJSON geometry the incumbent accepts. */
export function checkGeoJson(v: unknown): void {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new SpatialValueError(`parsing Geometry failed, expected Object, but encountered ${kindOf(v)}`);
  const o = v as Record<string, unknown>;
  const type = field(o, 'type');
  switch (type) {
    case 'Point':
      position(field(o, 'coordinates'));
      break;
    case 'MultiPoint':
      positions(field(o, 'coordinates'), 'MultiPoint');
      break;
    case 'LineString':
      lineString(field(o, 'coordinates'));
      break;
    case 'MultiLineString':
      array(field(o, 'coordinates'), 'MultiLineString').forEach(lineString);
      break;
    case 'Polygon':
      polygon(field(o, 'coordinates'));
      break;
    case 'MultiPolygon':
      array(field(o, 'coordinates'), 'MultiPolygon').forEach(polygon);
      break;
    case 'GeometryCollection':
      array(field(o, 'geometries'), 'GeometryCollection').forEach(checkGeoJson);
      break;
    default:
      throw new SpatialValueError(`unexpected geometry type: ${typeof type === 'string' ? type : JSON.stringify(type)}`);
  }
  crs(o['crs']);
}

/** Throws SpatialValueError when `v` is not hex text, the form of a raster (well-known binary) the incumbent takes. */
export function checkRasterHex(v: unknown): void {
  if (typeof v !== 'string' || !/^(?:[0-9a-fA-F]{2})*$/.test(v)) {
    throw new SpatialValueError('invalid hexadecimal representation of raster well known binary format');
  }
}
