import { describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { write } from '../helpers/assertions.js';
import { gql } from './graphql-fixture.js';

// Issue 29 point 6: scalar computed fields of the row as keys of permission filters and checks, compared like a column
// of their return type, and ones returning rows of a tracked table (some row matches); others are refused with their reason.

const e = useTestEngine({ setup: async () => {
  await e.sql(`create table author (id int primary key, first text, last text);
    create table book (id int primary key, author_id int references author (id), title text);
    create function author_full(a author) returns text stable language sql as $$ select a.first || ' ' || a.last $$;
    create function author_books(a author) returns setof book stable language sql as $$ select * from book where author_id = a.id $$;
    create function author_greet(a author, hello text) returns text stable language sql as $$ select hello || a.first $$;
    insert into author values (1, 'Ann', 'Lee'), (2, 'Bob', 'Ray');
    insert into book values (10, 1, 'A'), (11, 2, 'B')`);
  for (const t of ['author', 'book']) await write(e, { type: 'track_table', args: t });
  await write(e, { type: 'add_computed_field', args: { table: 'author', name: 'full_name', definition: { function: 'author_full' } } });
  await write(e, { type: 'add_computed_field', args: { table: 'author', name: 'books', definition: { function: 'author_books' } } });
  await write(e, { type: 'add_computed_field', args: { table: 'author', name: 'greet', definition: { function: 'author_greet' } } });
  await write(e, { type: 'create_object_relationship', args: { table: 'book', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } });
} });

const USER = { 'x-engine-role': 'user' };
const q = async (query: string) => (await gql(e, { query }, USER)).body;
const perm = (kind: string, table: string, permission: unknown) => ({ type: `create_${kind}_permission`, args: { table, role: 'user', permission } });

describe('computed fields in permission BoolExps (issue 29 point 6)', () => {
  it('filters and checks on a scalar computed field, also through a relationship', async () => {
    await write(e, perm('select', 'author', { columns: ['id', 'first'], filter: { full_name: { _eq: 'Ann Lee' } } }));
    await write(e, perm('select', 'book', { columns: ['id'], filter: { author: { full_name: { _ilike: '%ray' } } } }));
    await write(e, perm('insert', 'author', { columns: ['id', 'first', 'last'], check: { full_name: { _like: 'C%' } } }));
    await write(e, perm('update', 'author', { columns: ['last'], filter: { full_name: { _like: 'Ann %' } }, check: { full_name: { _neq: 'Ann X' } } }));
    expect(await q('{ author { id } book { id } }')).toEqual({ data: { author: [{ id: 1 }], book: [{ id: 11 }] } });
    // The new row passes the check; the select filter then hides it from the answer.
    expect(await q('mutation { insert_author(objects: [{id: 3, first: "Cy", last: "Poe"}]) { affected_rows } }')).toEqual({ data: { insert_author: { affected_rows: 1 } } });
    const denied = await q('mutation { insert_author(objects: [{id: 4, first: "Di", last: "Poe"}]) { affected_rows } }') as { errors: { extensions: { code: string } }[] };
    expect(denied.errors[0]?.extensions.code).toBe('permission-error');
    expect(await q('mutation { update_author(where: {}, _set: {last: "Moe"}) { affected_rows } }')).toEqual({ data: { update_author: { affected_rows: 1 } } });
    const checked = await q('mutation { update_author(where: {}, _set: {last: "X"}) { affected_rows } }') as { errors: { extensions: { code: string } }[] };
    expect(checked.errors[0]?.extensions.code).toBe('permission-error');
  });

  it('a computed field returning rows holds when one of its rows matches (the incumbent\'s reading), in filters and checks', async () => {
    await write(e, perm('select', 'author', { columns: ['id'], filter: { books: { title: { _eq: 'B' } } } }));
    await write(e, perm('update', 'author', { columns: ['last'], filter: { books: { title: { _in: ['A', 'B'] } } }, check: { books: { title: { _neq: 'A' } } } }));
    expect(await q('{ author { id } }')).toEqual({ data: { author: [{ id: 2 }] } });
    expect(await q('mutation { update_author(where: {id: {_eq: 2}}, _set: {last: "Z"}) { affected_rows } }')).toEqual({ data: { update_author: { affected_rows: 1 } } });
    const checked = await q('mutation { update_author(where: {id: {_eq: 1}}, _set: {last: "Z"}) { affected_rows } }') as { errors: { extensions: { code: string } }[] };
    expect(checked.errors[0]?.extensions.code).toBe('permission-error');
  });

  it('refuses computed fields a BoolExp cannot use, with the reason, changing nothing', async () => {
    const cases: [string, unknown, string][] = [
      ['books', { books: { nope: { _eq: 'A' } } }, 'column or relationship "nope" does not exist in table "book"'],
      ['books', { books: 'A' }, 'expecting an object for computed field "books"'],
      ['greet', { greet: { _eq: 'hi' } }, 'computed field "greet" takes arguments besides the row; it cannot be used in a boolean expression'],
      ['type', { full_name: { _eq: 5 } }, 'invalid value for column "full_name" of type "text": 5'],
    ];
    for (const [, filter, reason] of cases) {
      const before = await e.state();
      const r = await e.query(perm('select', 'author', { columns: ['id'], filter }));
      expect({ status: r.status, body: r.body }).toMatchObject({ status: 400, body: {
        code: 'constraint-violation', path: '$.args', error: `in table "author": in permission for role "user": ${reason}` } });
      expect(await e.state()).toEqual(before);
    }
  });

  it('a computed field a permission uses cannot be dropped without cascade', async () => {
    await write(e, perm('select', 'author', { columns: ['id'], filter: { full_name: { _eq: 'Ann Lee' } } }));
    const r = await e.query({ type: 'drop_computed_field', args: { table: 'author', name: 'full_name' } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'dependency-error' });
    await write(e, { type: 'drop_computed_field', args: { table: 'author', name: 'full_name', cascade: true } });
    expect(await q('{ author { id } }')).toEqual({ errors: [{ message: 'field "author" not found in type: \'query_root\'', extensions: { path: '$.selectionSet.author', code: 'validation-failed' } }] });
  });
});
