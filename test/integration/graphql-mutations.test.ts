import { describe, expect, it } from 'vitest';
import { ADMIN, as, gql, gqlErr, q, useExampleEngine, USER1, USER2, type Headers } from './graphql-fixture.js';

// graphql-api.md §4.5–§4.7: every example of insert, update and delete as admin and users 1, 2 and 3, on the running
// example (§0); each error also proves that nothing changed.

const e = useExampleEngine();
const USER3 = as('user', 3);

const data = (d: unknown) => ({ data: d });

/** The rows of both tables, and the sequences' next values are left out (they may advance on a rollback). */
async function tableRows(): Promise<unknown> {
  const r = await e.sql(`SELECT (SELECT json_agg(a ORDER BY id) FROM author a)::text AS authors,
    (SELECT json_agg(x ORDER BY id) FROM article x)::text AS articles`);
  return r.result[1];
}

async function unchangedBy(query: string, headers: Headers, expected: unknown): Promise<void> {
  const before = await tableRows();
  expect(await q(e, query, headers)).toEqual(expected);
  expect(await tableRows()).toEqual(before);
}

const articles = async (): Promise<unknown> => (await q(e, '{ article(order_by: {id: asc}) { id title content author_id published } }')) as unknown;

describe('§4.5 insert', () => {
  it('user 1 inserts; author_id is the preset, returning is shaped by the selection', async () => {
    expect(await q(e, 'mutation { insert_article(objects: [{title: "New", content: "c"}]) { affected_rows returning { id author_id } } }', USER1))
      .toEqual(data({ insert_article: { affected_rows: 1, returning: [{ id: 4, author_id: 1 }] } }));
  });

  it('user 3 (inactive author) fails the check through a relationship; nothing is inserted', async () => {
    await unchangedBy('mutation { insert_article_one(object: {title: "Mine"}) { id } }', USER3,
      gqlErr('check constraint of an insert permission has failed', '$.selectionSet.insert_article_one.args.object', 'permission-error'));
  });

  it('user 1 upserts on article_title_key: article 1 is in its update filter', async () => {
    expect(await q(e, 'mutation { insert_article(objects: [{title: "Intro", content: "new"}], on_conflict: {constraint: article_title_key, update_columns: [content]}) { affected_rows returning { id content } } }', USER1))
      .toEqual(data({ insert_article: { affected_rows: 1, returning: [{ id: 1, content: 'new' }] } }));
  });

  it('user 2 upserts the same: article 1 is outside its update filter, nothing changes', async () => {
    await unchangedBy('mutation { insert_article(objects: [{title: "Intro", content: "new"}], on_conflict: {constraint: article_title_key, update_columns: [content]}) { affected_rows returning { id content } } }', USER2,
      data({ insert_article: { affected_rows: 0, returning: [] } }));
  });

  it('admin: a unique violation is a constraint-violation with PostgreSQL\'s primary message', async () => {
    const before = await tableRows();
    const r = await q(e, 'mutation { insert_article(objects: [{title: "Intro", author_id: 2}]) { affected_rows } }', ADMIN) as { errors: { message: string; extensions: Record<string, unknown> }[] };
    expect(r.errors[0]?.message).toBe('Uniqueness violation. duplicate key value violates unique constraint "article_title_key"');
    expect(r.errors[0]?.extensions).toMatchObject({ path: '$.selectionSet.insert_article', code: 'constraint-violation' });
    expect(r.errors[0]?.extensions['internal']).toMatchObject({ prepared: true, error: { status_code: '23505', exec_status: 'FatalError' } });
    expect(await tableRows()).toEqual(before);
  });

  it('a non-admin gets no internal', async () => {
    await unchangedBy('mutation { insert_article(objects: [{title: "Intro"}]) { affected_rows } }', USER1,
      gqlErr('Uniqueness violation. duplicate key value violates unique constraint "article_title_key"', '$.selectionSet.insert_article', 'constraint-violation'));
  });

  it('objects: [] inserts nothing', async () => {
    expect(await q(e, 'mutation { insert_article(objects: []) { affected_rows returning { id } } }', USER1))
      .toEqual(data({ insert_article: { affected_rows: 0, returning: [] } }));
  });

  it('a missing key inserts DEFAULT, an explicit null inserts NULL; admin may write any column', async () => {
    expect(await q(e, 'mutation { insert_article(objects: [{title: "A", author_id: 2, content: null}, {title: "B", author_id: 3, views: "12", published: true}]) { affected_rows returning { title content views published } } }'))
      .toEqual(data({ insert_article: { affected_rows: 2, returning: [{ title: 'A', content: null, views: 0, published: false }, { title: 'B', content: null, views: 12, published: true }] } }));
  });

  it('returning omits rows hidden by the select filter; they are still counted (§8 decision 12)', async () => {
    await e.ok({ type: 'bulk', args: [
      { type: 'create_select_permission', args: { table: 'article', role: 'writer', permission: { columns: ['id', 'title'], filter: { published: true } } } },
      { type: 'create_insert_permission', args: { table: 'article', role: 'writer', permission: { columns: ['title', 'author_id', 'published'], check: {} } } },
    ] });
    const W = as('writer');
    expect(await q(e, 'mutation { insert_article(objects: [{title: "P", author_id: 2, published: true}, {title: "D", author_id: 2}]) { affected_rows returning { title } } }', W))
      .toEqual(data({ insert_article: { affected_rows: 2, returning: [{ title: 'P' }] } }));
    expect(await q(e, 'mutation { insert_article_one(object: {title: "D2", author_id: 2}) { id } }', W)).toEqual(data({ insert_article_one: null }));
    expect(await q(e, '{ article_aggregate { aggregate { count } } }')).toEqual(data({ article_aggregate: { aggregate: { count: 6 } } }));
  });

  it('user 2 cannot write author_id: it is not in article_insert_input', async () => {
    await unchangedBy('mutation { insert_article(objects: [{title: "x", author_id: 1}]) { affected_rows } }', USER2,
      gqlErr('field "author_id" not found in type: \'article_insert_input\'', '$.selectionSet.insert_article.args.objects[0].author_id', 'validation-failed'));
  });

  it('variables supply whole objects', async () => {
    expect(await q(e, 'mutation ($o: [article_insert_input!]!) { insert_article(objects: $o) { affected_rows returning { title author_id } } }', USER2,
      { o: [{ title: 'V1' }, { title: 'V2', content: 'x' }] }))
      .toEqual(data({ insert_article: { affected_rows: 2, returning: [{ title: 'V1', author_id: 2 }, { title: 'V2', author_id: 2 }] } }));
  });
});

describe('large inserts', () => {
  const INSERT = 'mutation ($o: [article_insert_input!]!) { insert_article(objects: $o) { affected_rows } }';

  it('30,000 objects with the same keys are one statement (bound column by column)', async () => {
    const o = Array.from({ length: 30000 }, (_, i) => ({ title: `b${i}`, content: i % 2 ? null : "it's", author_id: 1 + (i % 3), tags: i % 2 ? null : { i } }));
    expect(await q(e, INSERT, ADMIN, { o })).toEqual(data({ insert_article: { affected_rows: 30000 } }));
    const r = await e.sql("SELECT count(*) AS n, count(content) AS c, count(*) FILTER (WHERE tags->>'i' = '29998') AS t FROM article WHERE title LIKE 'b%'");
    expect(r.result[1]).toEqual(['30000', '15000', '1']);
  });

  it('beyond 65,535 values with differing keys: a clear error, nothing inserted', async () => {
    const o = Array.from({ length: 30000 }, (_, i) => (i % 2 ? { title: `b${i}`, content: 'x', author_id: 1 } : { title: `b${i}`, author_id: 1, published: true }));
    const before = await tableRows();
    expect(await q(e, INSERT, ADMIN, { o })).toEqual(gqlErr('too many values for one statement: 90000 parameters, PostgreSQL allows 65535; give every object the same keys (they are then bound column by column) or split the objects',
      '$.selectionSet.insert_article.args.objects', 'validation-failed'));
    expect(await tableRows()).toEqual(before);
  });
});

describe('§4.6 update', () => {
  it('user 1 updates its own articles only', async () => {
    expect(await q(e, 'mutation { update_article(where: {}, _set: {published: true}) { affected_rows } }', USER1))
      .toEqual(data({ update_article: { affected_rows: 2 } }));
    expect(await articles()).toEqual(data({ article: [
      { id: 1, title: 'Intro', content: 'a', author_id: 1, published: true },
      { id: 2, title: 'Draft', content: 'b', author_id: 1, published: true },
      { id: 3, title: 'News', content: null, author_id: 2, published: true },
    ] }));
  });

  it('user 2 cannot update article 1 by pk: null', async () => {
    await unchangedBy('mutation { update_article_by_pk(pk_columns: {id: 1}, _set: {title: "X"}) { id } }', USER2, data({ update_article_by_pk: null }));
  });

  it('user 1 fails the update check: rolled back', async () => {
    await unchangedBy('mutation { update_article(where: {id: {_eq: 2}}, _set: {title: ""}) { affected_rows } }', USER1,
      gqlErr('check constraint of an update permission has failed', '$.selectionSet.update_article', 'permission-error'));
  });

  it('admin _inc adds to bigint exactly', async () => {
    // A JSON number with every digit (issue 29.8): compared as text.
    expect((await gql(e, { query: 'mutation { update_article_by_pk(pk_columns: {id: 1}, _inc: {views: 2}) { views } }' })).text.replace(/\s/g, ''))
      .toBe('{"data":{"update_article_by_pk":{"views":9007199254740995}}}');
  });

  it('§6.1 row 29 as the incumbent answers it (issue 30.3): no column updates no row; a column in both is an error', async () => {
    await unchangedBy('mutation { update_article(where: {}, _set: {}) { affected_rows } }', ADMIN, { data: { update_article: { affected_rows: 0 } } });
    await unchangedBy('mutation { update_article(where: {}, _set: {views: 1}, _inc: {views: 1}) { affected_rows } }', ADMIN,
      gqlErr("Column found in multiple operators: ['views'].", '$.selectionSet.update_article.args', 'validation-failed'));
  });

  it('§6.1 row 28: null in _inc', async () => {
    await unchangedBy('mutation { update_article(where: {}, _inc: {views: null}) { affected_rows } }', ADMIN,
      gqlErr('null is not allowed for field "views"', '$.selectionSet.update_article.args._inc.views', 'validation-failed'));
  });
});

describe('§4.7 delete', () => {
  it('user 2 deletes only article 3', async () => {
    expect(await q(e, 'mutation { delete_article(where: {}) { affected_rows } }', USER2)).toEqual(data({ delete_article: { affected_rows: 1 } }));
    expect(await q(e, '{ article(order_by: {id: asc}) { id } }')).toEqual(data({ article: [{ id: 1 }, { id: 2 }] }));
  });

  it('two root fields share the transaction: the second fails, the first is rolled back', async () => {
    const before = await tableRows();
    const r = await q(e, 'mutation { a: delete_article_by_pk(id: 2) { id } b: insert_author_one(object: {id: 1, name: "Dup"}) { id } }') as { errors: { message: string; extensions: { path: string } }[] };
    expect(r.errors[0]?.message).toBe('Uniqueness violation. duplicate key value violates unique constraint "author_pkey"');
    expect(r.errors[0]?.extensions.path).toBe('$.selectionSet.b');
    expect(await tableRows()).toEqual(before);
  });

  it('delete_by_pk answers the deleted row', async () => {
    expect(await q(e, 'mutation { delete_article_by_pk(id: 2) { id title } }', USER1)).toEqual(data({ delete_article_by_pk: { id: 2, title: 'Draft' } }));
  });
});
