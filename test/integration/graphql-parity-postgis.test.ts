import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { EXTERNAL_URL, useTestEngine, type TestEngine } from '../helpers/engine.js';
import { as, gqlErr, q } from './graphql-fixture.js';

// Issue 30: the incumbent's PostGIS operators in permission filters (`_st_d_within` with a GeoJSON `from` and a
// `distance`, statically or from session variables; `_st_intersects` …). PGlite has no PostGIS: external PostgreSQL
// only, where the extension is installed.

const SQL = `
CREATE EXTENSION IF NOT EXISTS postgis;
CREATE TABLE shape (id serial PRIMARY KEY, kind text NOT NULL, g geometry NOT NULL, gg geography);
INSERT INTO shape (kind, g, gg) VALUES
  ('point', ST_GeomFromEWKT('SRID=4326;POINT(1 2)'), 'SRID=4326;POINT(1 2)'),
  ('near', ST_GeomFromEWKT('SRID=4326;LINESTRING(1 0, 0.5 0.5, 0 1)'), 'SRID=4326;POINT(0 1)'),
  ('square', ST_GeomFromEWKT('SRID=4326;POLYGON((2 0, 2 1, 3 1, 3 0, 2 0))'), NULL);
`;
const SQUARE = { type: 'Polygon', crs: { type: 'name', properties: { name: 'EPSG:4326' } }, coordinates: [[[2, 0], [2, 1], [3, 1], [3, 0], [2, 0]]] };
const perm = (role: string, filter: unknown) => ({ type: 'create_select_permission', args: { table: 'shape', role, permission: { columns: ['id', 'kind'], filter } } });

/** Whether the external server can create the extension (.ci/run installs Debian's package; a machine may lack it). */
async function postgisAvailable(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query("SELECT 1 FROM pg_available_extensions WHERE name = 'postgis'")).rowCount === 1;
  } finally {
    await c.end();
  }
}

const POSTGIS = EXTERNAL_URL !== undefined && (await postgisAvailable(EXTERNAL_URL));
if (EXTERNAL_URL !== undefined && !POSTGIS) console.warn('PostGIS is not installed on the external server: its permission operators are not tested');

describe.skipIf(!POSTGIS)('PostGIS operators in permissions', () => {
  const e: TestEngine = useTestEngine({ setup: async (t) => {
    await t.sql(SQL);
    await t.ok({ type: 'bulk', args: [
      { type: 'track_table', args: 'shape' },
      perm('fixed', { g: { $st_d_within: { distance: 1, from: SQUARE } } }),
      perm('session', { g: { _st_d_within: { distance: 'X-Engine-Dist', from: 'X-Engine-Shape' } } }),
      perm('touching', { g: { _st_intersects: 'X-Engine-Shape' } }),
    ] });
  } });
  const ids = async (headers: Record<string, string>): Promise<unknown> => q(e, '{ shape(order_by: {id: asc}) { id } }', headers);

  it('filters rows by distance and intersection, statically and from session variables', async () => {
    expect(await ids(as('fixed'))).toEqual({ data: { shape: [{ id: 2 }, { id: 3 }] } });
    expect(await ids({ ...as('session'), 'x-engine-dist': '1', 'x-engine-shape': JSON.stringify(SQUARE) })).toEqual({ data: { shape: [{ id: 2 }, { id: 3 }] } });
    expect(await ids({ ...as('session'), 'x-engine-dist': '0.5', 'x-engine-shape': JSON.stringify(SQUARE) })).toEqual({ data: { shape: [{ id: 3 }] } });
    expect(await ids({ ...as('touching'), 'x-engine-shape': JSON.stringify({ ...SQUARE, coordinates: [[[0, 0], [0, 3], [3, 3], [3, 0], [0, 0]]] }) })).toEqual({ data: { shape: [{ id: 1 }, { id: 2 }, { id: 3 }] } });
    expect(await ids(as('session'))).toEqual({ errors: [{ message: 'missing session variable: "x-engine-shape"', extensions: { path: '$', code: 'not-found' } }] });
  });

  it('rejects malformed operands and operators a column type lacks, changing nothing', async () => {
    const before = await e.state();
    const bad = async (filter: unknown, error: string): Promise<void> => {
      const r = await e.query(perm('bad', filter));
      expect([r.status, r.body.code, r.body.error]).toEqual([400, 'constraint-violation', `in table "shape": in permission for role "bad": ${error}`]);
    };
    await bad({ g: { _st_d_within: { from: SQUARE } } }, 'expecting {"distance": <number>, "from": <GeoJSON>, "use_spheroid"?: <boolean>} for operator "_st_d_within"');
    await bad({ g: { _st_within: 5 } }, 'expecting a GeoJSON object for operator "_st_within"');
    await bad({ gg: { _st_within: SQUARE } }, 'operator "_st_within" cannot be used with column "gg" of type "geography"');
    await bad({ kind: { _st_intersects: SQUARE } }, 'operator "_st_intersects" cannot be used with column "kind" of type "text"');
    expect(await e.state()).toEqual(before);
    expect(await q(e, '{ shape { id } }', as('bad'))).toEqual(gqlErr('field "shape" not found in type: \'query_root\'', '$.selectionSet.shape', 'validation-failed'));
  });
});
