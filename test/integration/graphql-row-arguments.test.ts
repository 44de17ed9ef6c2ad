import { GraphQLSchema, validateSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildRoleSchema } from '../../src/server/graphql/schema/index.js';
import { useTestEngine } from '../helpers/engine.js';
import { as, q } from './graphql-fixture.js';

// Issue 27 point 3: a function's row-typed argument has no GraphQL input. A computed field's table argument is the
// parent row; any other row-typed argument without a default makes the function or computed field inconsistent
// (reported, never exposed); with a default it is left to its default. An `F_args` type named like another type is
// left out with its computed field. No consistent metadata makes a role's schema fail to build.

const SQL = `
CREATE TABLE author (id integer PRIMARY KEY, name text);
INSERT INTO author VALUES (1, 'Ann'), (2, 'Bob');
CREATE FUNCTION fetch_author(search text, row_in author) RETURNS SETOF author STABLE LANGUAGE sql AS $$ SELECT * FROM author WHERE name = search $$;
CREATE FUNCTION f(r author, search text) RETURNS SETOF author STABLE LANGUAGE sql AS $$ SELECT * FROM author WHERE name ILIKE search || '%' AND id <> r.id $$;
CREATE FUNCTION two_rows(r author, other author) RETURNS text STABLE LANGUAGE sql AS $$ SELECT r.name || other.name $$;
CREATE FUNCTION search_default(search text, r author DEFAULT NULL) RETURNS SETOF author STABLE LANGUAGE sql AS $$ SELECT * FROM author WHERE name = search $$;
CREATE FUNCTION g(r author, n integer) RETURNS integer STABLE LANGUAGE sql AS $$ SELECT r.id + n $$;
CREATE TABLE g_args (id integer PRIMARY KEY);
`;

const e = useTestEngine({
  setup: async (t) => {
    await t.sql(SQL);
    await t.ok({ type: 'bulk', args: [
      { type: 'track_table', args: 'author' }, { type: 'track_table', args: 'g_args' },
      { type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name'], filter: {} } } },
    ] });
  },
});

const schemasBuild = () => {
  for (const role of ['admin', 'user', 'nobody']) {
    const s = buildRoleSchema(e.engine.schemaCache, role);
    expect(validateSchema(new GraphQLSchema({ ...s.toConfig(), assumeValid: false })).map(String)).toEqual([]);
  }
};

describe('row-typed function arguments', () => {
  it('a computed field gets the parent row: f(r author, search text) answers, every schema builds', async () => {
    await e.ok({ type: 'add_computed_field', args: { table: 'author', name: 'others', definition: { function: 'f' } } });
    expect(await q(e, '{ author(order_by: {id: asc}) { id others(args: {search: ""}) { id } } }'))
      .toEqual({ data: { author: [{ id: 1, others: [{ id: 2 }] }, { id: 2, others: [{ id: 1 }] }] } });
    schemasBuild();
  });

  it('tracking a function with a row-typed argument is refused with the reason; nothing changes', async () => {
    const before = await e.state();
    for (const fn of ['fetch_author', 'f']) {
      const r = await e.query({ type: 'track_function', args: fn });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('constraint-violation');
      expect(r.body.path).toBe('$.args');
    }
    const r = await e.query({ type: 'track_function', args: 'fetch_author' });
    expect(r.body.error).toBe('in function "fetch_author": the argument "row_in" of the function "fetch_author" has the row type "author", which a GraphQL client cannot give; add the function as a computed field of that table instead');
    expect(await e.state()).toEqual(before);
    expect(await q(e, '{ author(order_by: {id: asc}) { id } }', as('user'))).toEqual({ data: { author: [{ id: 1 }, { id: 2 }] } });
  });

  it('a computed field with a second row-typed argument is refused', async () => {
    const r = await e.query({ type: 'add_computed_field', args: { table: 'author', name: 'both', definition: { function: 'two_rows' } } });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('in table "author": in computed field "both": the computed field "both" cannot be added to table "author" because the argument "other" of the function "two_rows" has the row type "author", which a GraphQL client cannot give');
  });

  it('metadata stored with such objects reports them and every schema builds', async () => {
    const exported = await e.ok({ type: 'export_metadata', args: {} });
    const tables = exported.tables.map((t: { table: { name: string } }) => (t.table.name === 'author'
      ? { ...t, computed_fields: [{ name: 'both', definition: { function: 'two_rows' } }] } : t));
    const r = await e.ok({ type: 'replace_metadata', args: { metadata: { ...exported, tables, functions: [{ function: { schema: 'public', name: 'fetch_author' } }] }, allow_inconsistent_metadata: true } });
    expect(r.is_consistent).toBe(false);
    expect(r.inconsistent_objects.map((o: { type: string }) => o.type)).toEqual(['computed_field', 'function']);
    expect((await e.ok({ type: 'get_inconsistent_metadata', args: {} })).inconsistent_objects).toEqual(r.inconsistent_objects);
    schemasBuild();
    expect(await q(e, '{ author(order_by: {id: asc}) { id } }')).toEqual({ data: { author: [{ id: 1 }, { id: 2 }] } });
  });

  it('a row-typed argument with a default is left to its default', async () => {
    await e.ok({ type: 'track_function', args: 'search_default' });
    expect(await q(e, '{ search_default(args: {search: "Bob"}) { id } }')).toEqual({ data: { search_default: [{ id: 2 }] } });
    const t = await q(e, '{ __type(name: "search_default_args") { inputFields { name } } }') as { data: { __type: { inputFields: { name: string }[] } } };
    expect(t.data.__type.inputFields.map((f) => f.name)).toEqual(['search']);
    schemasBuild();
  });

  it('a computed field whose F_args is named like a table\'s type is left out; the table stays', async () => {
    await e.ok({ type: 'add_computed_field', args: { table: 'author', name: 'g', definition: { function: 'g' } } });
    schemasBuild();
    const t = await q(e, '{ __type(name: "author") { fields { name } } g_args { id } }');
    expect(t).toEqual({ data: { __type: { fields: [{ name: 'id' }, { name: 'name' }] }, g_args: [] } });
    expect(await q(e, '{ g_args { id } author(order_by: {id: asc}) { id } }')).toEqual({ data: { g_args: [], author: [{ id: 1 }, { id: 2 }] } });
  });
});
