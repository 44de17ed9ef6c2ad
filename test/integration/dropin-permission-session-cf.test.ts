import { describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { write } from '../helpers/assertions.js';
import { as, gql } from './graphql-fixture.js';

// Issue 29 point 6 (and the brief's point 3): computed fields taking the session argument inside permission filters
// and checks, as the incumbent allows — the function gets the row and the request's session variables; scalar ones
// compare like a column, ones returning rows of a tracked table hold when one of their rows matches. A computed field
// with arguments besides the row and the session stays refused.

const e = useTestEngine({ setup: async () => {
  await e.sql(`create table author (id int primary key, name text, owner int);
    create table book (id int primary key, author_id int references author (id), title text, reader int);
    insert into author values (1, 'Ann', 1), (2, 'Bob', 2), (3, 'Cid', 1);
    insert into book values (10, 1, 'A', 2), (11, 2, 'B', 1), (12, 3, 'C', 2);
    create function uid(s json) returns int immutable language sql as
      $$ select coalesce(s ->> 'x-hasura-user-id', s ->> 'x-engine-user-id')::int $$;
    create function author_mine(a author, hasura_session json) returns boolean stable language sql as $$ select a.owner = uid(hasura_session) $$;
    create function author_read_books(sess jsonb, row_arg author) returns setof book stable language sql
      as $$ select * from book where author_id = row_arg.id and reader = uid(sess::json) $$;
    create function author_tagged(a author, hasura_session json, tag text) returns boolean stable language sql as $$ select true $$`);
  for (const t of ['author', 'book']) await write(e, { type: 'track_table', args: t });
  await write(e, { type: 'add_computed_field', args: { table: 'author', name: 'mine', definition: { function: 'author_mine', session_argument: 'hasura_session' } } });
  await write(e, { type: 'add_computed_field', args: { table: 'author', name: 'read_books', definition: { function: 'author_read_books', table_argument: 'row_arg', session_argument: 'sess' } } });
  await write(e, { type: 'add_computed_field', args: { table: 'author', name: 'tagged', definition: { function: 'author_tagged', session_argument: 'hasura_session' } } });
} });

const perm = (kind: string, table: string, permission: unknown) => ({ type: `create_${kind}_permission`, args: { table, role: 'user', permission } });
const q = async (query: string, user: number) => (await gql(e, { query }, as('user', user))).body as { data?: unknown; errors?: { extensions: { code: string } }[] };

describe('computed fields with a session argument in permissions', () => {
  it('a scalar one filters selects and checks inserts and updates with the request\'s session', async () => {
    await write(e, perm('select', 'author', { columns: ['id', 'name'], filter: { mine: { _eq: true } } }));
    await write(e, perm('insert', 'author', { columns: ['id', 'name', 'owner'], check: { mine: { _eq: true } } }));
    await write(e, perm('update', 'author', { columns: ['name', 'owner'], filter: { mine: { _eq: true } }, check: { mine: { _eq: true } } }));
    expect(await q('{ author(order_by: {id: asc}) { id } }', 1)).toEqual({ data: { author: [{ id: 1 }, { id: 3 }] } });
    expect(await q('{ author(order_by: {id: asc}) { id } }', 2)).toEqual({ data: { author: [{ id: 2 }] } });
    expect(await q('mutation { insert_author(objects: [{id: 4, name: "Dee", owner: 2}]) { affected_rows } }', 2)).toEqual({ data: { insert_author: { affected_rows: 1 } } });
    const denied = await q('mutation { insert_author(objects: [{id: 5, name: "Eve", owner: 1}]) { affected_rows } }', 2);
    expect(denied.errors?.[0]?.extensions.code).toBe('permission-error');
    // User 1 may update its rows, but not hand one to user 2 (the check sees the new owner).
    expect(await q('mutation { update_author(where: {id: {_eq: 3}}, _set: {name: "Cy"}) { affected_rows } }', 1)).toEqual({ data: { update_author: { affected_rows: 1 } } });
    expect(await q('mutation { update_author(where: {id: {_eq: 2}}, _set: {name: "X"}) { affected_rows } }', 1)).toEqual({ data: { update_author: { affected_rows: 0 } } });
    const handed = await q('mutation { update_author(where: {id: {_eq: 3}}, _set: {owner: 2}) { affected_rows } }', 1);
    expect(handed.errors?.[0]?.extensions.code).toBe('permission-error');
    const rows = await e.db.query<{ id: number; name: string; owner: number }>('select id, name, owner from author order by id');
    expect(rows).toEqual([{ id: 1, name: 'Ann', owner: 1 }, { id: 2, name: 'Bob', owner: 2 }, { id: 3, name: 'Cy', owner: 1 }, { id: 4, name: 'Dee', owner: 2 }]);
  });

  it('one returning rows (jsonb session, table argument named and not first) holds when one of its rows matches, also through a relationship', async () => {
    await write(e, perm('select', 'author', { columns: ['id'], filter: { read_books: { title: { _neq: 'Z' } } } }));
    await write(e, { type: 'create_object_relationship', args: { table: 'book', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } });
    await write(e, perm('select', 'book', { columns: ['id'], filter: { author: { read_books: { id: { _is_null: false } } } } }));
    expect(await q('{ author(order_by: {id: asc}) { id } book(order_by: {id: asc}) { id } }', 2)).toEqual({ data: { author: [{ id: 1 }, { id: 3 }], book: [{ id: 10 }, { id: 12 }] } });
    expect(await q('{ author(order_by: {id: asc}) { id } book(order_by: {id: asc}) { id } }', 1)).toEqual({ data: { author: [{ id: 2 }], book: [{ id: 11 }] } });
  });

  it('refuses one with arguments besides the row and the session, with the reason, changing nothing', async () => {
    const before = await e.state();
    const r = await e.query(perm('select', 'author', { columns: ['id'], filter: { tagged: { _eq: true } } }));
    expect({ status: r.status, body: r.body }).toMatchObject({ status: 400, body: {
      path: '$.args', error: 'in table "author": in permission for role "user": computed field "tagged" takes arguments besides the row and the session; it cannot be used in a boolean expression',
      code: 'constraint-violation' } });
    expect(await e.state()).toEqual(before);
  });
});
