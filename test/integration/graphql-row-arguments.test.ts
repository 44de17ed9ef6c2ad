import { GraphQLSchema, validateSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildRoleSchema } from '../../src/server/graphql/schema/index.js';
import { useTestEngine } from '../helpers/engine.js';
import { q } from './graphql-fixture.js';

// Issue 27 point 3, revised by issue 30 (the incumbent's computed_fields cases): a function's row-typed argument is
// the incumbent's scalar `<type>_scalar`, given as PostgreSQL's record text (`"(1,Ann)"`). A computed field's table
// argument is the parent row. A computed field whose `F_args` is named like another type takes `<field>_<table>_args`. No
// consistent metadata makes a role's schema fail to build.

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

  it('a tracked function takes a row-typed argument as the record\'s text, typed <type>_scalar', async () => {
    await e.ok({ type: 'bulk', args: [{ type: 'track_function', args: 'fetch_author' }, { type: 'track_function', args: 'f' }] });
    expect(await q(e, '{ fetch_author(args: {search: "Bob", row_in: "(1,Ann)"}) { id } f(args: {r: "(2, \'Bob\')", search: ""}, order_by: {id: asc}) { id } }'))
      .toEqual({ data: { fetch_author: [{ id: 2 }], f: [{ id: 1 }] } });
    const t = await q(e, '{ __type(name: "fetch_author_args") { inputFields { name type { name kind ofType { name kind } } } } }');
    // Nullable, as every function argument (issue 30); listed by name.
    expect(t).toEqual({ data: { __type: { inputFields: [
      { name: 'row_in', type: { name: 'author_scalar', kind: 'SCALAR', ofType: null } },
      { name: 'search', type: { name: 'String', kind: 'SCALAR', ofType: null } },
    ] } } });
    expect(await q(e, '{ fetch_author(args: {search: "Bob", row_in: 5}) { id } }'))
      .toEqual({ errors: [{ message: 'invalid value for type "author_scalar": 5', extensions: { path: '$.selectionSet.fetch_author.args.args.row_in', code: 'validation-failed' } }] });
    schemasBuild();
  });

  it('a computed field takes a second row-typed argument', async () => {
    await e.ok({ type: 'add_computed_field', args: { table: 'author', name: 'both', definition: { function: 'two_rows' } } });
    expect(await q(e, '{ author(order_by: {id: asc}) { both(args: {other: "(9,Cid)"}) } }')).toEqual({ data: { author: [{ both: 'AnnCid' }, { both: 'BobCid' }] } });
    schemasBuild();
  });

  it('a row-typed argument with a default is optional', async () => {
    await e.ok({ type: 'track_function', args: 'search_default' });
    expect(await q(e, '{ a: search_default(args: {search: "Bob"}) { id } b: search_default(args: {search: "Bob", r: "(1,Ann)"}) { id } }')).toEqual({ data: { a: [{ id: 2 }], b: [{ id: 2 }] } });
    const t = await q(e, '{ __type(name: "search_default_args") { inputFields { name } } }') as { data: { __type: { inputFields: { name: string }[] } } };
    expect(t.data.__type.inputFields.map((f) => f.name)).toEqual(['r', 'search']);
    schemasBuild();
  });

  it('a computed field whose F_args is named like a table\'s type takes the incumbent\'s <field>_<table>_args', async () => {
    await e.ok({ type: 'add_computed_field', args: { table: 'author', name: 'g', definition: { function: 'g' } } });
    schemasBuild();
    const t = await q(e, '{ __type(name: "author") { fields { name args { type { ofType { name } } } } } g_args { id } }');
    expect(t).toEqual({ data: { __type: { fields: [{ name: 'g', args: [{ type: { ofType: { name: 'g_author_args' } } }] }, { name: 'id', args: [] }, { name: 'name', args: [] }] }, g_args: [] } });
    expect(await q(e, '{ g_args { id } author(order_by: {id: asc}) { g(args: {n: 10}) } }')).toEqual({ data: { g_args: [], author: [{ g: 11 }, { g: 12 }] } });
  });
});
