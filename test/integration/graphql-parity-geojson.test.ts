import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { EXTERNAL_URL, useTestEngine, type TestEngine } from '../helpers/engine.js';
import { as, gqlErr, q } from './graphql-fixture.js';

// Issue 30: PostGIS columns in GraphQL as the incumbent has them. Geometry and geography read as GeoJSON (CRS named
// in full), written from GeoJSON (checked before any SQL, `parse-failed` with the incumbent's sentences), compared
// with the `_st_*` operators and `_cast`; rasters compared by intersection, written as hex WKB. PGlite has no
// PostGIS: external PostgreSQL only, where the extension is installed.

const SQL = `
CREATE EXTENSION IF NOT EXISTS postgis;
CREATE EXTENSION IF NOT EXISTS postgis_raster;
CREATE TABLE place (id serial PRIMARY KEY, name text NOT NULL, g geometry, gg geography(Point));
INSERT INTO place (name, g, gg) VALUES
  ('origin', ST_GeomFromEWKT('SRID=4326;POINT(0 0)'), 'SRID=4326;POINT(0 0)'),
  ('square', ST_GeomFromEWKT('SRID=4326;POLYGON((2 0, 2 1, 3 1, 3 0, 2 0))'), 'SRID=4326;POINT(2.3522 48.8566)'),
  ('high', ST_GeomFromEWKT('SRID=4326;POINT Z (10 10 10)'), NULL);
`;
const CRS = { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::4326' } };
const point = (coordinates: number[], crs: unknown = CRS) => ({ type: 'Point', coordinates, crs });

async function available(url: string, ext: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query('SELECT 1 FROM pg_available_extensions WHERE name = $1', [ext])).rowCount === 1;
  } finally {
    await c.end();
  }
}

const POSTGIS = EXTERNAL_URL !== undefined && (await available(EXTERNAL_URL, 'postgis')) && (await available(EXTERNAL_URL, 'postgis_raster'));
if (EXTERNAL_URL !== undefined && !POSTGIS) console.warn('PostGIS (with postgis_raster) is not installed on the external server: GeoJSON columns are not tested');

describe.skipIf(!POSTGIS)('PostGIS columns in GraphQL', () => {
  const e: TestEngine = useTestEngine({ setup: async (t) => {
    await t.sql(SQL);
    await t.ok({ type: 'bulk', args: [
      { type: 'track_table', args: 'place' },
      { type: 'create_select_permission', args: { table: 'place', role: 'user', permission: { columns: ['id', 'g'], filter: {} } } },
      { type: 'create_insert_permission', args: { table: 'place', role: 'user', permission: { columns: ['name', 'g'], check: {}, set: { gg: point([1, 2]) } } } },
      { type: 'create_insert_permission', args: { table: 'place', role: 'wkt', permission: { columns: ['name'], check: {}, set: { gg: 'SRID=4326;POINT(3 4)', g: 'POINT(5 6)' } } } },
    ] });
  } });
  const rows = async (): Promise<unknown> => ((await e.sql('SELECT id, name, ST_AsEWKT(g) AS g, ST_AsEWKT(gg) AS gg FROM place ORDER BY id')).result as unknown[]).slice(1);

  it('reads geometry and geography as GeoJSON, the CRS named in full', async () => {
    expect(await q(e, '{ place(order_by: {id: asc}) { id g gg } }')).toEqual({ data: { place: [
      { id: 1, g: point([0, 0]), gg: point([0, 0]) },
      { id: 2, g: { type: 'Polygon', crs: CRS, coordinates: [[[2, 0], [2, 1], [3, 1], [3, 0], [2, 0]]] }, gg: point([2.3522, 48.8566]) },
      { id: 3, g: point([10, 10, 10]), gg: null },
    ] } });
    expect(await q(e, 'mutation { delete_place(where: {id: {_eq: 3}}) { returning { g } } }')).toEqual({ data: { delete_place: { returning: [{ g: point([10, 10, 10]) }] } } });
  });

  it('writes GeoJSON from literals, variables, updates and presets; the CRS sets the SRID', async () => {
    const line = { type: 'LineString', coordinates: [[0, 0], [1, 1]] };
    const r = await q(e, `mutation ($g: geometry, $gg: geography) {
      a: insert_place_one(object: {name: "lit", g: {type: "Point", coordinates: [5, 6], crs: {type: "name", properties: {name: "EPSG:3857"}}}}) { id g }
      b: insert_place(objects: [{name: "var", g: $g, gg: $gg}]) { returning { g gg } }
      c: update_place(where: {name: {_eq: "origin"}}, _set: {g: {type: "MultiPoint", coordinates: [[1, 2, 3], [4, 5, 6]]}}) { affected_rows }
    }`, {}, { g: line, gg: point([1.5, 2.5]) });
    expect(r).toEqual({ data: { a: { id: 4, g: point([5, 6], { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::3857' } }) }, b: { returning: [{ g: { ...line, crs: CRS }, gg: point([1.5, 2.5]) }] }, c: { affected_rows: 1 } } });
    expect(await q(e, 'mutation { insert_place_one(object: {name: "user", g: {type: "Point", coordinates: [7, 8]}}) { id g } }', as('user')))
      .toEqual({ data: { insert_place_one: { id: 6, g: point([7, 8]) } } });
    // A preset may also be text PostGIS reads itself (WKT, EWKT).
    expect(await q(e, 'mutation { insert_place(objects: [{name: "wkt"}]) { affected_rows } }', as('wkt'))).toEqual({ data: { insert_place: { affected_rows: 1 } } });
    expect(await rows()).toEqual([
      ['1', 'origin', 'SRID=4326;MULTIPOINT(1 2 3,4 5 6)', 'SRID=4326;POINT(0 0)'],
      ['2', 'square', 'SRID=4326;POLYGON((2 0,2 1,3 1,3 0,2 0))', 'SRID=4326;POINT(2.3522 48.8566)'],
      ['3', 'high', 'SRID=4326;POINT(10 10 10)', null],
      ['4', 'lit', 'SRID=3857;POINT(5 6)', null],
      ['5', 'var', 'SRID=4326;LINESTRING(0 0,1 1)', 'SRID=4326;POINT(1.5 2.5)'],
      ['6', 'user', 'SRID=4326;POINT(7 8)', 'SRID=4326;POINT(1 2)'],
      ['7', 'wkt', 'POINT(5 6)', 'SRID=4326;POINT(3 4)'],
    ]);
  });

  it('filters with the spatial operators and casts between geometry and geography', async () => {
    const names = async (where: string, variables?: unknown): Promise<unknown> => {
      const r = (await q(e, `query ($p: geometry!, $q: geography!) { place(where: ${where}, order_by: {id: asc}) { name } }`, {}, variables ?? {})) as { data?: { place: { name: string }[] } };
      return r.data?.place.map((p) => p.name) ?? r;
    };
    const square = '{type: "Polygon", coordinates: [[[1.5, -1], [1.5, 2], [4, 2], [4, -1], [1.5, -1]]]}';
    const p = point([0, 0]);
    const v = (x: unknown) => ({ p: x, q: x });
    expect(await names(`{g: {_st_within: ${square}}}`, v(p))).toEqual(['square']);
    expect(await names(`{g: {_st_contains: {type: "Point", coordinates: [2.5, 0.5]}}}`, v(p))).toEqual(['square']);
    expect(await names('{g: {_st_d_within: {distance: 2.1, from: $p}}}', v(point([0, 1])))).toEqual(['origin', 'square']);
    expect(await names('{g: {_st_3d_d_within: {distance: 5, from: $p}}}', v(point([10, 10, 13])))).toEqual(['high']);
    // Geography distances are metres on the spheroid: Paris is within 1,000 km of (1, 50), the origin is not.
    expect(await names('{gg: {_st_d_within: {distance: 1000000, from: $q}}}', v({ type: 'Point', coordinates: [1, 50] }))).toEqual(['square']);
    expect(await names('{gg: {_st_d_within: {distance: 1000000, from: $q, use_spheroid: false}}}', v({ type: 'Point', coordinates: [1, 50] }))).toEqual(['square']);
    expect(await names('{gg: {_st_intersects: $q}}', v({ type: 'Point', coordinates: [0, 0] }))).toEqual(['origin']);
    expect(await names('{g: {_cast: {geography: {_st_d_within: {distance: 100, from: {type: "Point", coordinates: [0, 0.0005]}}}}}}', v(p))).toEqual(['origin']);
    expect(await names('{gg: {_cast: {geometry: {_st_within: {type: "Polygon", coordinates: [[[0, 40], [0, 50], [5, 50], [5, 40], [0, 40]]]}}}}}', v(p))).toEqual(['square']);
    expect(await q(e, '{ place(where: {gg: {_cast: {integer: {_eq: 0}}}}) { id } }'))
      .toEqual(gqlErr('field "integer" not found in type: \'geography_cast_exp\'', '$.selectionSet.place.args.where.gg._cast.integer', 'validation-failed'));
  });

  it('refuses GeoJSON the incumbent refuses, with its sentences, writing nothing', async () => {
    const before = await e.state();
    const before2 = await rows();
    const ins = (g: unknown) => q(e, 'mutation ($o: [place_insert_input!]!) { insert_place(objects: $o) { affected_rows } }', {}, { o: [{ name: 'x' }, { name: 'bad', g }] });
    const failed = (message: string, path = '$.variables.o[1].g') => gqlErr(message, path, 'parse-failed');
    expect(await ins({ type: 'Point', coordinates: [1] })).toEqual(failed('A Position needs at least 2 elements'));
    expect(await ins({ type: 'LineString', coordinates: [[1, 2]] })).toEqual(failed('A LineString needs at least 2 Positions'));
    expect(await ins({ type: 'Polygon', coordinates: [[[0, 0], [0, 1], [0, 0]]] })).toEqual(failed('A LinearRing needs at least 4 Positions'));
    expect(await ins({ type: 'Polygon', coordinates: [[[0, 0], [0, 1], [1, 1], [1, 0]]] })).toEqual(failed('the first and last locations have to be equal for a LinearRing'));
    expect(await ins({ type: 'Random', coordinates: [1, 2] })).toEqual(failed('unexpected geometry type: Random'));
    expect(await ins({ type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: ['a', 2] }] })).toEqual(failed('parsing Double failed, unexpected String'));
    expect(await ins({ coordinates: [1, 2] })).toEqual(failed('key "type" not found'));
    expect(await ins({ type: 'Point', coordinates: [1, 2], crs: { type: 'other', properties: {} } })).toEqual(failed('unexpected CRS type: other'));
    expect(await q(e, 'mutation { insert_place(objects: [{name: "bad", g: {type: "Point", coordinates: [1]}}]) { affected_rows } }'))
      .toEqual(failed('A Position needs at least 2 elements', '$.selectionSet.insert_place.args.objects[0].g'));
    expect(await q(e, '{ place(where: {g: {_st_within: {type: "Polygon", coordinates: [[[0, 0], [1, 1], [0, 0]]]}}}) { id } }'))
      .toEqual(failed('A LinearRing needs at least 4 Positions', '$.selectionSet.place.args.where.g._st_within'));
    expect(await q(e, 'mutation { insert_place(objects: [{name: "bad", g: "POINT(1 2)"}]) { affected_rows } }'))
      .toEqual(gqlErr('invalid value for type "geometry": "POINT(1 2)"', '$.selectionSet.insert_place.args.objects[0].g', 'validation-failed'));
    expect(await e.state()).toEqual(before);
    expect(await rows()).toEqual(before2);
  });

  it('compares rasters with rasters (hex WKB) and geometries', async () => {
    await e.sql(`CREATE TABLE tile (id serial PRIMARY KEY, r raster);
      INSERT INTO tile (r) VALUES (ST_AsRaster(ST_Buffer(ST_GeomFromEWKT('SRID=4326;POINT(1 2)'), 2), 5, 5)), (ST_AsRaster(ST_Buffer(ST_GeomFromEWKT('SRID=4326;POINT(10 20)'), 1), 5, 5));`);
    await e.ok({ type: 'track_table', args: 'tile' });
    const hex = String((await e.sql(`SELECT encode(ST_AsBinary(ST_AsRaster(ST_Buffer(ST_GeomFromEWKT('SRID=4326;POINT(1 1)'), 1), 5, 5)), 'hex') AS h`)).result[1][0]);
    const ids = async (where: string, variables: unknown): Promise<unknown> => q(e, `query ($r: raster, $p: geometry!) { tile(where: ${where}, order_by: {id: asc}) { id } }`, {}, variables);
    expect(await ids('{r: {_st_intersects_rast: $r}}', { r: hex, p: point([0, 0]) })).toEqual({ data: { tile: [{ id: 1 }] } });
    expect(await ids('{r: {_st_intersects_geom_nband: {geommin: $p}}}', { p: point([10, 20]) })).toEqual({ data: { tile: [{ id: 2 }] } });
    expect(await ids('{r: {_st_intersects_nband_geom: {nband: 1, geommin: $p}}}', { p: point([1, 2]) })).toEqual({ data: { tile: [{ id: 1 }] } });
    expect(await ids('{r: {_st_intersects_rast: $r}}', { r: 'not hex', p: point([0, 0]) }))
      .toEqual(gqlErr('invalid hexadecimal representation of raster well known binary format', '$.variables.r', 'parse-failed'));
  });
});
