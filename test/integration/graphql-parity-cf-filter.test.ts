import { describe, expect, it } from 'vitest';
import { useTestEngine, type TestEngine } from '../helpers/engine.js';
import { as, gqlErr, q } from './graphql-fixture.js';

// Issue 30 (the incumbent's computed_fields cases): computed fields without arguments filter rows in `where`: a
// scalar one through its comparison type, a set-returning one as a relationship to the rows it returns (their
// table's select filter inside), the session passed where the function takes it.

const SQL = `
CREATE TABLE writer (id integer PRIMARY KEY, first text NOT NULL, last text);
CREATE TABLE post (id integer PRIMARY KEY, writer_id integer NOT NULL REFERENCES writer, title text NOT NULL, public boolean NOT NULL);
INSERT INTO writer VALUES (1, 'Ann', 'Lee'), (2, 'Bob', NULL);
INSERT INTO post VALUES (1, 1, 'hello', true), (2, 2, 'secret', false), (3, 2, 'notes', true);
CREATE FUNCTION writer_full(w writer) RETURNS text STABLE LANGUAGE sql AS $$ SELECT w.first || coalesce(' ' || w.last, '') $$;
CREATE FUNCTION writer_posts(w writer) RETURNS SETOF post STABLE LANGUAGE sql AS $$ SELECT * FROM post WHERE writer_id = w.id $$;
CREATE FUNCTION writer_mine(w writer, s json) RETURNS boolean STABLE LANGUAGE sql AS $$ SELECT w.id::text = coalesce(s->>'x-hasura-user-id', s->>'x-engine-user-id') $$;
CREATE FUNCTION writer_titled(w writer, prefix text) RETURNS SETOF post STABLE LANGUAGE sql AS $$ SELECT * FROM post WHERE writer_id = w.id AND title LIKE prefix || '%' $$;
`;
const e: TestEngine = useTestEngine({ setup: async (t) => {
  await t.sql(SQL);
  await t.ok({ type: 'bulk', args: [
    { type: 'track_table', args: 'writer' },
    { type: 'track_table', args: 'post' },
    { type: 'add_computed_field', args: { table: 'writer', name: 'full', definition: { function: 'writer_full' } } },
    { type: 'add_computed_field', args: { table: 'writer', name: 'posts', definition: { function: 'writer_posts' } } },
    { type: 'add_computed_field', args: { table: 'writer', name: 'mine', definition: { function: 'writer_mine', session_argument: 's' } } },
    { type: 'add_computed_field', args: { table: 'writer', name: 'titled', definition: { function: 'writer_titled' } } },
    { type: 'create_select_permission', args: { table: 'writer', role: 'reader', permission: { columns: ['id'], computed_fields: ['full', 'mine'], filter: {} } } },
    { type: 'create_select_permission', args: { table: 'post', role: 'reader', permission: { columns: ['id', 'title'], filter: { public: { _eq: true } } } } },
  ] });
} });
const ids = async (where: string, headers = {}): Promise<unknown> => q(e, `{ writer(where: ${where}, order_by: {id: asc}) { id } }`, headers);

describe('computed fields in where', () => {
  it('compares a scalar computed field and filters through the rows of a set-returning one', async () => {
    expect(await ids('{full: {_eq: "Ann Lee"}}')).toEqual({ data: { writer: [{ id: 1 }] } });
    expect(await ids('{full: {_ilike: "b%"}}')).toEqual({ data: { writer: [{ id: 2 }] } });
    expect(await ids('{posts: {title: {_eq: "secret"}}}')).toEqual({ data: { writer: [{ id: 2 }] } });
    expect(await ids('{_not: {posts: {}}}')).toEqual({ data: { writer: [] } });
    expect(await ids('{mine: {_eq: true}}', as('admin', 2))).toEqual({ data: { writer: [{ id: 2 }] } });
  });

  it('applies the returned table\'s select filter and the role\'s computed fields', async () => {
    const reader = (id?: number) => as('reader', id);
    // The reader sees public posts only: Bob's secret post cannot be probed.
    expect(await ids('{posts: {title: {_eq: "secret"}}}', reader())).toEqual({ data: { writer: [] } });
    expect(await ids('{posts: {title: {_eq: "notes"}}}', reader())).toEqual({ data: { writer: [{ id: 2 }] } });
    expect(await ids('{full: {_eq: "Bob"}}', reader())).toEqual({ data: { writer: [{ id: 2 }] } });
    expect(await ids('{mine: {_eq: true}}', reader(1))).toEqual({ data: { writer: [{ id: 1 }] } });
    // A computed field with arguments has none in where.
    expect(await ids('{titled: {id: {_eq: 1}}}')).toEqual(gqlErr('field "titled" not found in type: \'writer_bool_exp\'', '$.selectionSet.writer.args.where.titled', 'validation-failed'));
  });
});
