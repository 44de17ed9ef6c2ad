import { describe, expect, it } from 'vitest';
import { post, useTestEngine } from '../helpers/engine.js';
import { err, write } from '../helpers/assertions.js';

// Issue 29 point 6: the incumbent's `/v2/query` — run_sql and the data queries select, count, insert, update,
// delete (admin only, in one transaction per request, bulk included).

const e = useTestEngine({ adminSecret: 'sec', setup: async () => {
  await e.sql(`create table author (id int primary key, name text not null, info jsonb);
    create table article (id serial primary key, title text not null, author_id int references author (id), views int not null default 0);
    insert into author values (1, 'Ann', '{"a": 1}'), (2, 'Bob', null);
    insert into article (title, author_id, views) values ('Intro', 1, 10), ('News', 2, 3), ('More', 1, 7)`);
  for (const t of ['author', 'article']) await write(e, { type: 'track_table', args: t });
  await write(e, { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } });
  await write(e, { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } });
} });

const ADMIN: Record<string, string> = { 'x-engine-admin-secret': 'sec' };
const v2 = (body: unknown, headers: Record<string, string> = ADMIN) => post(`${e.url}/v2/query`, body, headers);
const ok = async (body: unknown) => {
  const r = await v2(body);
  expect(r.status, r.text).toBe(200);
  return r.body;
};
const rows = async () => (await e.sql('select id, title, author_id, views from article order by id')) as unknown;

/** The request fails with exactly this answer and nothing changed. */
async function fails(body: unknown, status: number, expected: unknown, headers = ADMIN) {
  const before = [await e.state(), await rows()];
  const r = await v2(body, headers);
  expect({ status: r.status, body: r.body }).toEqual({ status, body: expected });
  expect([await e.state(), await rows()]).toEqual(before);
}

describe('/v2/query', () => {
  it('select: columns, relationships, where, order_by, limit, offset', async () => {
    expect(await ok({ type: 'select', args: { table: 'author', columns: ['id', 'name'] } })).toEqual([{ id: 1, name: 'Ann' }, { id: 2, name: 'Bob' }]);
    expect(await ok({ type: 'select', args: {
      table: 'article', columns: ['title', { name: 'author', columns: ['name'] }],
      where: { views: { $gt: 5 } }, order_by: ['-views'], limit: 1, offset: 1,
    } })).toEqual([{ title: 'More', author: { name: 'Ann' } }]);
    expect(await ok({ type: 'select', args: {
      source: 'default', table: { schema: 'public', name: 'author' },
      columns: ['*', { name: 'articles', columns: ['id'], where: { title: { _like: 'M%' } }, order_by: [{ column: 'id', type: 'desc' }] }],
      where: { articles: { views: { _gte: 10 } } },
    } })).toEqual([{ id: 1, name: 'Ann', info: { a: 1 }, articles: [{ id: 3 }] }]);
  });

  it('count, with where and distinct', async () => {
    expect(await ok({ type: 'count', args: { table: 'article' } })).toEqual({ count: 3 });
    expect(await ok({ type: 'count', args: { table: 'article', where: { author: { name: { _eq: 'Ann' } } } } })).toEqual({ count: 2 });
    expect(await ok({ type: 'count', args: { table: 'article', distinct: ['author_id'] } })).toEqual({ count: 2 });
  });

  it('insert, update and delete answer affected_rows and returning', async () => {
    expect(await ok({ type: 'insert', args: { table: 'article', objects: [{ title: 'A', author_id: 2 }, { title: 'B', views: 4 }], returning: ['id', 'views'] } }))
      .toEqual({ affected_rows: 2, returning: [{ id: 4, views: 0 }, { id: 5, views: 4 }] });
    expect(await ok({ type: 'insert', args: { table: 'author', objects: [{ id: 1, name: 'Ann B' }], on_conflict: { constraint: 'author_pkey', action: 'update' } } }))
      .toEqual({ affected_rows: 1 });
    expect(await ok({ type: 'update', args: { table: 'article', where: { id: { _in: [4, 5] } }, $set: { title: 'Z' }, $inc: { views: 2 }, returning: ['id', 'title', 'views'] } }))
      .toEqual({ affected_rows: 2, returning: [{ id: 4, title: 'Z', views: 2 }, { id: 5, title: 'Z', views: 6 }] });
    expect(await ok({ type: 'delete', args: { table: 'article', where: { title: { _eq: 'Z' } } } })).toEqual({ affected_rows: 2 });
    expect(await ok({ type: 'select', args: { table: 'author', columns: ['name'], where: { id: { _eq: 1 } } } })).toEqual([{ name: 'Ann B' }]);
  });

  it('run_sql and bulk: one transaction for the whole request', async () => {
    expect(await ok({ type: 'run_sql', args: { sql: 'select count(*) from article' } })).toEqual({ result_type: 'TuplesOk', result: [['count'], ['3']] });
    const r = await v2({ type: 'bulk', args: [
      { type: 'insert', args: { table: 'article', objects: [{ title: 'kept?' }] } },
      { type: 'insert', args: { table: 'article', objects: [{ title: 'x', author_id: 99 }] } },
    ] });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'constraint-violation', path: '$.args[1].args' });
    expect(await ok({ type: 'count', args: { table: 'article' } })).toEqual({ count: 3 });
  });

  it('errors: admin only, unknown tables and columns, invalid filters, database errors — nothing changes', async () => {
    await fails({ type: 'select', args: { table: 'author', columns: ['id'] } }, 400, err('$.args', 'restricted access : admin only', 'access-denied'),
      { 'x-engine-admin-secret': 'sec', 'x-engine-role': 'user' });
    await fails({ type: 'select', args: { table: 'nope', columns: ['id'] } }, 400, err('$.args.table', 'table "nope" does not exist', 'not-exists'));
    await fails({ type: 'select', args: { table: 'author', columns: ['id', 'nope'] } }, 400, err('$.args.columns[1]', 'column "nope" does not exist in table "author"', 'not-exists'));
    await fails({ type: 'select', args: { table: 'author', columns: [{ name: 'nope', columns: ['id'] }] } }, 400,
      err('$.args.columns[0].name', 'relationship "nope" does not exist in table "author"', 'not-exists'));
    await fails({ type: 'delete', args: { table: 'article', where: { nope: { _eq: 1 } } } }, 400,
      err('$.args.where', 'column or relationship "nope" does not exist in table "article"', 'validation-failed'));
    await fails({ type: 'update', args: { table: 'article', where: {} } }, 400, err('$.args', 'at least one of $set, $inc, $mul or $default is required', 'validation-failed'));
    await fails({ type: 'insert', args: { table: 'article', objects: [{ title: 'x', nope: 1 }] } }, 400, err('$.args.objects[0].nope', 'column "nope" does not exist in table "article"', 'not-exists'));
    await fails({ type: 'select', args: { source: 'other', table: 'author', columns: ['id'] } }, 400, err('$.args.source', 'source with name "other" does not exist', 'not-exists'));
    const r = await v2({ type: 'insert', args: { table: 'article', objects: [{ title: null }] } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'constraint-violation', path: '$.args' });
    expect((r.body as { error: string }).error).toMatch(/^Not-NULL violation\. null value in column "title"/);
    expect(await ok({ type: 'count', args: { table: 'article' } })).toEqual({ count: 3 });
  });
});
