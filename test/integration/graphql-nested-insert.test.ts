import { describe, expect, it } from 'vitest';
import { useTestEngine, type TestEngine } from '../helpers/engine.js';
import { ADMIN, as, gqlErr, q, type Headers } from './graphql-fixture.js';

// Nested inserts (issue 30.1): through object and array relationships at any depth, on_conflict at each level,
// insertion_order of manual relationships, each level's insert permission (columns, presets, check after the whole
// insert) and the incumbent's errors and paths. Every error also proves that nothing changed.

const SQL = `
CREATE TABLE author (id serial PRIMARY KEY, name text UNIQUE, user_id integer, is_registered boolean NOT NULL DEFAULT false);
CREATE TABLE article (id serial PRIMARY KEY, title text, content text, author_id integer REFERENCES author (id), user_id integer, is_published boolean);
CREATE TABLE comment (id serial PRIMARY KEY, body text NOT NULL, article_id integer NOT NULL REFERENCES article (id), user_id integer);
CREATE TABLE author_detail (id integer PRIMARY KEY REFERENCES author (id), phone text);
CREATE TABLE secret (id serial PRIMARY KEY, author_id integer REFERENCES author (id), note text);
`;

const perm = (kind: string, table: string, role: string, permission: unknown) => ({ type: `create_${kind}_permission`, args: { table, role, permission } });
const own = { user_id: { _eq: 'X-Engine-User-Id' } };

const METADATA = [
  ...['author', 'article', 'comment', 'author_detail', 'secret'].map((t) => ({ type: 'track_table', args: t })),
  { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
  { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
  { type: 'create_array_relationship', args: { table: 'article', name: 'comments', using: { foreign_key_constraint_on: { table: 'comment', column: 'article_id' } } } },
  { type: 'create_array_relationship', args: { table: 'author', name: 'secrets', using: { foreign_key_constraint_on: { table: 'secret', column: 'author_id' } } } },
  { type: 'create_object_relationship', args: { table: 'author', name: 'detail', using: { manual_configuration: { remote_table: 'author_detail', column_mapping: { id: 'id' }, insertion_order: 'after_parent' } } } },
  { type: 'create_object_relationship', args: { table: 'author', name: 'detail_fk', using: { foreign_key_constraint_on: { table: 'author_detail', column: 'id' } } } },
  perm('select', 'author', 'user', { columns: '*', filter: {} }),
  perm('select', 'article', 'user', { columns: '*', filter: {} }),
  perm('select', 'comment', 'user', { columns: '*', filter: {} }),
  perm('insert', 'author', 'user', { columns: ['name', 'is_registered'], set: { user_id: 'X-Engine-User-Id' }, check: own }),
  perm('insert', 'article', 'user', { columns: ['title', 'content', 'author_id', 'is_published'], set: { user_id: 'X-Engine-User-Id' }, check: { author: own, is_published: { _eq: false } } }),
  perm('insert', 'comment', 'user', { columns: ['body'], set: { user_id: 'X-Engine-User-Id' }, check: { body: { _neq: 'bad' } } }),
  perm('update', 'author', 'user', { columns: ['name'], filter: own, check: own }),
];

async function setup(e: TestEngine): Promise<void> {
  await e.sql(SQL);
  for (const m of METADATA) await e.ok(m);
}

const e = useTestEngine({ setup });
const USER = as('user', 7);

async function rows(): Promise<unknown> {
  const r = await e.sql(`SELECT (SELECT json_agg(x ORDER BY x.id) FROM author x)::text, (SELECT json_agg(x ORDER BY x.id) FROM article x)::text,
    (SELECT json_agg(x ORDER BY x.id) FROM comment x)::text, (SELECT json_agg(x ORDER BY x.id) FROM author_detail x)::text`) as { result: unknown[][] };
  return r.result[1];
}

async function fails(query: string, headers: Headers, message: string, path: string, code: string): Promise<void> {
  const before = await rows();
  expect(await q(e, query, headers)).toEqual(gqlErr(message, path, code));
  expect(await rows()).toEqual(before);
}

describe('nested inserts through relationships', () => {
  it('array relationships at depth 2, with returning through relationships and affected_rows over every level', async () => {
    const body = await q(e, `mutation { insert_author(objects: [
      {name: "A", articles: {data: [{title: "a1", is_published: false, comments: {data: [{body: "c1"}, {body: "c2"}]}}, {title: "a2", is_published: false}]}},
      {name: "B"},
      {name: "C", articles: {data: []}}, {name: "D", articles: null}]) {
        affected_rows returning { id name user_id articles(order_by: {id: asc}) { title user_id author { name } comments(order_by: {id: asc}) { body user_id } } } } }`, USER);
    expect(body).toEqual({ data: { insert_author: { affected_rows: 8, returning: [
      { id: 1, name: 'A', user_id: 7, articles: [
        { title: 'a1', user_id: 7, author: { name: 'A' }, comments: [{ body: 'c1', user_id: 7 }, { body: 'c2', user_id: 7 }] },
        { title: 'a2', user_id: 7, author: { name: 'A' }, comments: [] }] },
      { id: 2, name: 'B', user_id: 7, articles: [] }, { id: 3, name: 'C', user_id: 7, articles: [] }, { id: 4, name: 'D', user_id: 7, articles: [] },
    ] } } });
  });

  it('a relationship given as null or as an empty list inserts nothing more', async () => {
    expect(await q(e, 'mutation { a: insert_article(objects: [{title: "x", author: null}]) { affected_rows returning { title author { name } } } b: insert_author(objects: [{name: "E", articles: {data: []}}]) { affected_rows returning { name articles { id } } } }'))
      .toEqual({ data: { a: { affected_rows: 1, returning: [{ title: 'x', author: null }] }, b: { affected_rows: 1, returning: [{ name: 'E', articles: [] }] } } });
  });

  it('object relationships: before the parent (its foreign key) and after it (manual insertion_order, remote foreign key)', async () => {
    const body = await q(e, `mutation {
      a: insert_article(objects: [{title: "t1", author: {data: {name: "X"}}}, {title: "t2", author: {data: {name: "Y"}}}]) { affected_rows returning { title author { name } } }
      b: insert_author_one(object: {name: "Z", detail: {data: {phone: "1"}}}) { name detail { id phone } }
      c: insert_author_one(object: {name: "W", detail_fk: {data: {phone: "2"}}}) { name detail_fk { id phone } } }`);
    expect(body).toEqual({ data: {
      a: { affected_rows: 4, returning: [{ title: 't1', author: { name: 'X' } }, { title: 't2', author: { name: 'Y' } }] },
      b: { name: 'Z', detail: { id: 3, phone: '1' } },
      c: { name: 'W', detail_fk: { id: 4, phone: '2' } },
    } });
  });

  it('on_conflict at a nested level updates the existing row and links to it', async () => {
    await e.sql(`INSERT INTO author (name) VALUES ('Old')`);
    const body = await q(e, `mutation { insert_article_one(object: {title: "t", author: {data: {name: "Old"}, on_conflict: {constraint: author_name_key, update_columns: [name]}}}) { title author { id name } } }`);
    expect(body).toEqual({ data: { insert_article_one: { title: 't', author: { id: 1, name: 'Old' } } } });
  });

  it('a nested object whose row is not written (on_conflict do nothing) fails the whole insert', async () => {
    await e.sql(`INSERT INTO author (name) VALUES ('Old')`);
    await fails(`mutation { insert_article(objects: [{title: "x", author: {data: {name: "New"}}}, {title: "y", author: {data: {name: "Old"}, on_conflict: {constraint: author_name_key, update_columns: []}}}]) { affected_rows } }`,
      ADMIN, 'cannot proceed to insert object relation "author" since insert to table "author" affects zero rows', '$.selectionSet.insert_article.args.objects[1].author', 'not-supported');
    await fails(`mutation { insert_author(objects: [{name: "Old", articles: {data: [{title: "z"}]}}], on_conflict: {constraint: author_name_key, update_columns: []}) { affected_rows } }`,
      ADMIN, 'cannot proceed to insert array relations since insert to table "author" affects zero rows', '$.selectionSet.insert_author.args.objects[0]', 'not-supported');
  });
});

describe('permissions at each level', () => {
  it('a relationship to a table the role cannot insert into is absent from its input type', async () => {
    const r = await q(e, '{ __type(name: "author_insert_input") { inputFields { name } } }', USER) as { data: { __type: { inputFields: { name: string }[] } } };
    expect(r.data.__type.inputFields.map((f) => f.name)).toEqual(['articles', 'is_registered', 'name']);
    const admin = await q(e, '{ __type(name: "author_insert_input") { inputFields { name } } }') as { data: { __type: { inputFields: { name: string }[] } } };
    expect(admin.data.__type.inputFields.map((f) => f.name)).toContain('secrets');
    const body = await q(e, 'mutation { insert_author(objects: [{name: "A", secrets: {data: [{note: "n"}]}}]) { affected_rows } }', USER) as { errors: { extensions: { code: string } }[] };
    expect(body.errors[0]?.extensions.code).toBe('validation-failed');
  });

  it('a check failing at level 2 rolls back every level; the path names the failing list', async () => {
    await fails(`mutation { insert_author(objects: [{name: "A", articles: {data: [{title: "ok", is_published: false}, {title: "no", is_published: true}]}}]) { affected_rows } }`,
      USER, 'check constraint of an insert permission has failed', '$.selectionSet.insert_author.args.objects[0].articles.data', 'permission-error');
    await fails(`mutation { insert_author(objects: [{name: "A", articles: {data: [{title: "ok", is_published: false, comments: {data: [{body: "bad"}]}}]}}]) { affected_rows } }`,
      USER, 'check constraint of an insert permission has failed', '$.selectionSet.insert_author.args.objects[0].articles.data[0].comments.data', 'permission-error');
  });

  it('checks see the rows the whole insert wrote (an article\'s check reads its new author)', async () => {
    const body = await q(e, 'mutation { insert_article_one(object: {title: "t", is_published: false, author: {data: {name: "N"}}}) { title author { user_id } } }', USER);
    expect(body).toEqual({ data: { insert_article_one: { title: 't', author: { user_id: 7 } } } });
    // A root row failing its check fails the nested author written before it too.
    await fails('mutation { insert_article(objects: [{title: "u", is_published: true, author: {data: {name: "M"}}}]) { affected_rows } }',
      USER, 'check constraint of an insert permission has failed', '$.selectionSet.insert_article.args.objects[0]', 'permission-error');
  });

  it('the foreign key filled from the parent is not settable in the nested input', async () => {
    await fails('mutation { insert_author(objects: [{name: "A", articles: {data: [{title: "a", author_id: 3}]}}]) { affected_rows } }',
      ADMIN, 'cannot insert "author_id" columns as their values are already being determined by parent insert', '$.selectionSet.insert_author.args.objects[0].articles.data[0]', 'validation-failed');
    await fails('mutation { insert_article(objects: [{title: "a", author_id: 1, author: {data: {name: "A"}}}]) { affected_rows } }',
      ADMIN, 'cannot insert object relationship "author" as "author_id" column values are already determined', '$.selectionSet.insert_article.args.objects[0].author', 'validation-failed');
  });
});
