import { describe, expect, it } from 'vitest';
import { printType } from 'graphql';
import { useTestEngine } from '../helpers/engine.js';
import { buildRoleSchema } from '../../src/server/graphql/schema/index.js';
import { gqlErr, q } from './graphql-fixture.js';

// Issue 30: a function's arguments (`F_args`, tracked functions and computed fields) are all nullable, as the
// incumbent types them: null is passed to the function as SQL NULL. An argument without a default that is left out
// is refused when the field is compiled; one written with a variable the request leaves out is null.

const e = useTestEngine({ setup: async (t) => {
  await t.sql(`CREATE TABLE loc (id int PRIMARY KEY, x int NOT NULL);
    INSERT INTO loc VALUES (1, 0), (2, 3);
    CREATE FUNCTION dist(l loc, "from" json) RETURNS int STABLE LANGUAGE sql AS $$ SELECT abs(l.x - ("from"->>'x')::int) $$;
    CREATE FUNCTION shown(l loc, v text, d text DEFAULT 'dflt') RETURNS text STABLE LANGUAGE sql
      AS $$ SELECT coalesce(v, 'NULL') || '/' || coalesce(d, 'NULL') $$;
    CREATE FUNCTION near(v int, d int DEFAULT 1) RETURNS SETOF loc STABLE LANGUAGE sql
      AS $$ SELECT * FROM loc WHERE v IS NULL OR abs(x - v) <= coalesce(d, 0) $$;`);
  await t.ok({ type: 'bulk', args: [
    { type: 'track_table', args: 'loc' },
    { type: 'track_function', args: 'near' },
    { type: 'add_computed_field', args: { table: 'loc', name: 'distance', definition: { function: 'dist' } } },
    { type: 'add_computed_field', args: { table: 'loc', name: 'shown', definition: { function: 'shown' } } },
  ] });
} });

const OMITTED = 'Non default arguments cannot be omitted';

describe('function arguments', () => {
  it('every F_args field is nullable; `args` itself is required when an argument has no default', async () => {
    const s = buildRoleSchema(e.engine.schemaCache, 'admin');
    expect(printType(s.getType('dist_args') as never)).toBe('input dist_args {\n  from: json\n}');
    expect(printType(s.getType('near_args') as never)).toBe('input near_args {\n  v: Int\n  d: Int\n}');
    expect(printType(s.getType('loc') as never)).toContain('distance(args: dist_args!): Int');
    expect(printType(s.getType('query_root') as never)).toContain('near(args: near_args!, ');
  });

  it('a nullable variable serves an argument without a default; null and an absent variable are SQL NULL', async () => {
    const query = 'query ($p: json) { loc(order_by: {id: asc}) { distance(args: {from: $p}) } }';
    expect(await q(e, query, {}, { p: { x: 1 } })).toEqual({ data: { loc: [{ distance: 1 }, { distance: 2 }] } });
    expect(await q(e, query, {}, { p: null })).toEqual({ data: { loc: [{ distance: null }, { distance: null }] } });
    expect(await q(e, query, {}, {})).toEqual({ data: { loc: [{ distance: null }, { distance: null }] } });
    expect(await q(e, '{ loc(where: {id: {_eq: 1}}) { shown(args: {v: null}) } }')).toEqual({ data: { loc: [{ shown: 'NULL/dflt' }] } });
    // A defaulted argument left out takes its default; written with an absent variable it is NULL (the incumbent's).
    expect(await q(e, 'query ($d: String) { loc(where: {id: {_eq: 1}}) { a: shown(args: {v: "x"}) b: shown(args: {v: "x", d: $d}) } }'))
      .toEqual({ data: { loc: [{ a: 'x/dflt', b: 'x/NULL' }] } });
    expect(await q(e, '{ near(args: {v: null}, order_by: {id: asc}) { id } }')).toEqual({ data: { near: [{ id: 1 }, { id: 2 }] } });
  });

  it('an argument without a default left out is not-supported at the field\'s args.args', async () => {
    expect(await q(e, '{ loc { d: distance(args: {}) } }'))
      .toEqual(gqlErr(OMITTED, '$.selectionSet.loc.selectionSet.d.args.args', 'not-supported'));
    expect(await q(e, '{ loc { shown(args: {d: "y"}) } }'))
      .toEqual(gqlErr(OMITTED, '$.selectionSet.loc.selectionSet.shown.args.args', 'not-supported'));
    expect(await q(e, 'query ($a: dist_args!) { loc { distance(args: $a) } }', {}, { a: {} }))
      .toEqual(gqlErr(OMITTED, '$.selectionSet.loc.selectionSet.distance.args.args', 'not-supported'));
    expect(await q(e, '{ near(args: {d: 2}) { id } }')).toEqual(gqlErr(OMITTED, '$.selectionSet.near.args.args', 'not-supported'));
    expect(await q(e, '{ n: near_aggregate(args: {}) { aggregate { count } } }')).toEqual(gqlErr(OMITTED, '$.selectionSet.n.args.args', 'not-supported'));
  });
});
