import { describe, expect, it } from 'vitest';
import { useTestEngine, type TestEngine } from '../helpers/engine.js';
import { ADMIN, as, gqlErr, q } from './graphql-fixture.js';

// Issue 30 (the incumbent's insert/views cases): nested inserts through an auto-updatable view, at the root and as a
// nested level, with the checks and the response reading its rows back (a view has no ctid: they are kept whole).

const SQL = `
CREATE TABLE author (id integer PRIMARY KEY, name text NOT NULL, user_id integer);
CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL, author_id integer REFERENCES author (id));
CREATE VIEW author_v AS SELECT id, name, user_id FROM author;
`;

const perm = (kind: string, table: string, role: string, permission: unknown) => ({ type: `create_${kind}_permission`, args: { table, role, permission } });
const own = { user_id: { _eq: 'X-Engine-User-Id' } };
const manual = (table: string, name: string, remote: string, mapping: Record<string, string>, order?: string) =>
  ({ table, name, using: { manual_configuration: { remote_table: remote, column_mapping: mapping, ...(order ? { insertion_order: order } : {}) } } });

const METADATA = [
  ...['author', 'article', 'author_v'].map((t) => ({ type: 'track_table', args: t })),
  { type: 'create_object_relationship', args: manual('article', 'author_v', 'author_v', { author_id: 'id' }, 'before_parent') },
  { type: 'create_array_relationship', args: manual('author_v', 'articles', 'article', { id: 'author_id' }) },
  perm('select', 'author_v', 'user', { columns: '*', filter: {} }),
  perm('select', 'article', 'user', { columns: '*', filter: {} }),
  perm('insert', 'author_v', 'user', { columns: ['id', 'name'], set: { user_id: 'X-Engine-User-Id' }, check: { ...own, name: { _neq: 'bad' } } }),
  perm('insert', 'article', 'user', { columns: ['title'], check: { author_v: own } }),
];

const e: TestEngine = useTestEngine({ setup: async (t) => {
  await t.sql(SQL);
  for (const m of METADATA) await t.ok(m);
} });
const USER = as('user', 7);

const rows = async (): Promise<unknown> =>
  (await e.sql('SELECT (SELECT json_agg(x ORDER BY x.id) FROM author x)::text, (SELECT json_agg(x ORDER BY x.id) FROM article x)::text')).result[1];

describe('nested inserts into a view', () => {
  it('a view as a nested object written before its parent, and as the root with an array relationship', async () => {
    expect(await q(e, `mutation { insert_article(objects: [{title: "a1", author_v: {data: {id: 1, name: "A1"}}}, {title: "a2", author_v: {data: {id: 2, name: "A2"}}}]) {
      affected_rows returning { id title author_v { id name } } } }`, ADMIN)).toEqual({ data: { insert_article: { affected_rows: 4, returning: [
      { id: 1, title: 'a1', author_v: { id: 1, name: 'A1' } }, { id: 2, title: 'a2', author_v: { id: 2, name: 'A2' } }] } } });
    expect(await q(e, 'mutation { insert_author_v_one(object: {id: 3, name: "B", articles: {data: [{title: "b1"}, {title: "b2"}]}}) { id name user_id articles(order_by: {id: asc}) { title author_id } } }', USER))
      .toEqual({ data: { insert_author_v_one: { id: 3, name: 'B', user_id: 7, articles: [{ title: 'b1', author_id: 3 }, { title: 'b2', author_id: 3 }] } } });
    expect(await q(e, 'mutation { insert_article(objects: [{title: "c1", author_v: {data: {id: 4, name: "C"}}}]) { returning { author_v { name user_id } } } }', USER))
      .toEqual({ data: { insert_article: { returning: [{ author_v: { name: 'C', user_id: 7 } }] } } });
  });

  it('a view row failing its check fails the whole insert', async () => {
    const before = await rows();
    expect(await q(e, 'mutation { insert_author_v(objects: [{id: 5, name: "ok"}, {id: 6, name: "bad", articles: {data: [{title: "x"}]}}]) { affected_rows } }', USER))
      .toEqual(gqlErr('check constraint of an insert permission has failed', '$.selectionSet.insert_author_v.args.objects[1]', 'permission-error'));
    expect(await q(e, 'mutation { insert_article(objects: [{title: "y", author_v: {data: {id: 7, name: "bad"}}}]) { affected_rows } }', USER))
      .toEqual(gqlErr('check constraint of an insert permission has failed', '$.selectionSet.insert_article.args.objects[0].author_v.data', 'permission-error'));
    expect(await rows()).toEqual(before);
  });
});
