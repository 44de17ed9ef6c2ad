import { describe, expect, it } from 'vitest';
import { post, useTestEngine, type TestEngine } from '../helpers/engine.js';

// Issue 30.6: POST /v1beta1/relay as the incumbent answers it (its relay cases), with the permission rule of the
// issue: a table whose primary key a role may not select is no node for it (its ids and cursors would show the key).

const SQL = `
CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL);
INSERT INTO author (name) VALUES ('Author 1'), ('Author 2'), ('Author 3'), ('Author 4');
CREATE TABLE article (id serial PRIMARY KEY, title text, author_id integer REFERENCES author(id), is_published boolean NOT NULL DEFAULT false);
INSERT INTO article (title, author_id, is_published) VALUES
  ('Article 1', 1, true), ('Article 2', 1, true), ('Article 3', 1, false), ('Article 4', 2, true), ('Article 5', 2, false), ('Article 6', 3, true);
CREATE TABLE note (body text);
CREATE TABLE "user" (first_name text, last_name text, age integer, PRIMARY KEY (first_name, last_name));
INSERT INTO "user" VALUES ('first_1', 'last_1', 24), ('first_2', 'last_2', null);
CREATE FUNCTION author_rank(author) RETURNS integer STABLE LANGUAGE sql AS $$ SELECT 10 - $1.id $$;
CREATE FUNCTION search_articles(search text) RETURNS SETOF article STABLE LANGUAGE sql AS $$ SELECT * FROM article WHERE title ILIKE '%' || search || '%' $$;
`;

const track = (name: string) => ({ type: 'track_table', args: { table: { schema: 'public', name } } });
const perm = (table: string, role: string, permission: unknown) => ({ type: 'create_select_permission', args: { table, role, permission } });
const METADATA = [
  track('author'), track('article'), track('note'), track('user'),
  { type: 'track_function', args: { function: { schema: 'public', name: 'search_articles' } } },
  { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
  { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
  { type: 'add_computed_field', args: { table: 'author', name: 'rank', definition: { function: 'author_rank' } } },
  perm('author', 'user', { columns: '*', filter: { id: 'X-Engine-User-Id' } }),
  perm('article', 'user', { columns: '*', filter: { _or: [{ author_id: 'X-Engine-User-Id' }, { is_published: true }] } }),
  // The reader may not select article.id: article is no node for it.
  perm('author', 'reader', { columns: '*', filter: {} }),
  perm('article', 'reader', { columns: ['title', 'author_id'], filter: {} }),
  // The publisher sees every author and only published articles: aggregates count those.
  perm('author', 'publisher', { columns: '*', filter: {} }),
  perm('article', 'publisher', { columns: '*', filter: { is_published: { _eq: true } }, allow_aggregations: true }),
];

const e: TestEngine = useTestEngine({
  setup: async (t) => {
    await t.sql(SQL);
    await t.ok({ type: 'bulk', args: METADATA });
  },
});

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const id = (table: string, ...keys: unknown[]): string => b64(`[1, "public", "${table}", ${keys.map((k) => JSON.stringify(k)).join(', ')}]`);
const cursor = (text: string): string => b64(text);
const USER2 = { 'x-engine-role': 'user', 'x-engine-user-id': '2' };
const USER1 = { 'x-engine-role': 'user', 'x-engine-user-id': '1' };
const READER = { 'x-engine-role': 'reader' };

async function relay(query: string, headers: Record<string, string> = {}, variables?: unknown): Promise<unknown> {
  const r = await post(`${e.url}/v1beta1/relay`, variables === undefined ? { query } : { query, variables }, headers);
  expect(r.status).toBe(200);
  return r.body;
}
const err = (message: string, path: string, code = 'validation-failed') => ({ errors: [{ message, extensions: { path, code } }] });
const PAGE = 'pageInfo { startCursor endCursor hasPreviousPage hasNextPage } edges { cursor node { id title } }';

describe('connections', () => {
  it('edges with the incumbent cursors and ids, nested objects and connections', async () => {
    expect(await relay('{ author_connection(first: 2) { edges { cursor node { id name articles_connection(last: 1) { edges { node { title author { name } } } } } } } }')).toEqual({
      data: { author_connection: { edges: [
        { cursor: cursor('{"id" : 1}'), node: { id: id('author', 1), name: 'Author 1', articles_connection: { edges: [{ node: { title: 'Article 3', author: { name: 'Author 1' } } }] } } },
        { cursor: cursor('{"id" : 2}'), node: { id: id('author', 2), name: 'Author 2', articles_connection: { edges: [{ node: { title: 'Article 5', author: { name: 'Author 2' } } }] } } },
      ] } },
    });
  });

  it('pages forward with first/after and backward with last/before, pageInfo as the incumbent computes it', async () => {
    expect(await relay(`{ article_connection(first: 2, after: "${cursor('{"id" : 2}')}") { ${PAGE} } }`)).toEqual({ data: { article_connection: {
      pageInfo: { startCursor: cursor('{"id" : 3}'), endCursor: cursor('{"id" : 4}'), hasPreviousPage: true, hasNextPage: true },
      edges: [{ cursor: cursor('{"id" : 3}'), node: { id: id('article', 3), title: 'Article 3' } }, { cursor: cursor('{"id" : 4}'), node: { id: id('article', 4), title: 'Article 4' } }],
    } } });
    expect(await relay(`{ article_connection(last: 2, before: "${cursor('{"id" : 3}')}") { ${PAGE} } }`)).toEqual({ data: { article_connection: {
      pageInfo: { startCursor: cursor('{"id" : 1}'), endCursor: cursor('{"id" : 2}'), hasPreviousPage: false, hasNextPage: true },
      edges: [{ cursor: cursor('{"id" : 1}'), node: { id: id('article', 1), title: 'Article 1' } }, { cursor: cursor('{"id" : 2}'), node: { id: id('article', 2), title: 'Article 2' } }],
    } } });
  });

  it('order_by and where: the cursor holds the ordering values, then the key', async () => {
    const q = (after?: string) => `{ article_connection(order_by: {title: desc}, where: {author_id: {_lt: 3}}, first: 2${after ? `, after: "${after}"` : ''}) { pageInfo { endCursor hasNextPage } edges { node { title } } } }`;
    const first = await relay(q()) as { data: { article_connection: { pageInfo: { endCursor: string } } } };
    expect(first).toEqual({ data: { article_connection: { pageInfo: { endCursor: cursor('{"title" : "Article 4", "id" : 4}'), hasNextPage: true }, edges: [{ node: { title: 'Article 5' } }, { node: { title: 'Article 4' } }] } } });
    expect(await relay(q(first.data.article_connection.pageInfo.endCursor))).toEqual({ data: { article_connection: {
      pageInfo: { endCursor: cursor('{"title" : "Article 2", "id" : 2}'), hasNextPage: true }, edges: [{ node: { title: 'Article 3' } }, { node: { title: 'Article 2' } }],
    } } });
  });

  it('an empty page: null cursors, no previous or next page', async () => {
    expect(await relay('{ article_connection(where: {id: {_gt: 100}}) { pageInfo { startCursor endCursor hasPreviousPage hasNextPage } edges { cursor } } }')).toEqual({
      data: { article_connection: { pageInfo: { startCursor: null, endCursor: null, hasPreviousPage: false, hasNextPage: false }, edges: [] } },
    });
  });

  it('a function returning node rows has a connection; a table without a primary key has none', async () => {
    expect(await relay('{ search_articles_connection(args: {search: "6"}) { edges { node { id title } } } }')).toEqual({
      data: { search_articles_connection: { edges: [{ node: { id: id('article', 6), title: 'Article 6' } }] } },
    });
    expect(await relay('{ note_connection { edges { cursor } } }')).toEqual(err('field "note_connection" not found in type: \'query_root\'', '$.selectionSet.note_connection'));
  });
});

describe('ordering by aggregates and computed fields', () => {
  const AUTHORS = (args: string) => `{ author_connection(${args}) { pageInfo { startCursor endCursor hasPreviousPage hasNextPage } edges { cursor node { name } } } }`;
  type Page = { data: { author_connection: { pageInfo: { startCursor: string; endCursor: string } } } };
  const count = (n: number, id: number) => cursor(`{"articles_aggregate" : {"count" : ${n}}, "id" : ${id}}`);

  it('pages by an array relationship\'s count forward and backward, the count in the cursor', async () => {
    const first = await relay(AUTHORS('first: 2, order_by: {articles_aggregate: {count: asc}}')) as Page;
    expect(first).toEqual({ data: { author_connection: {
      pageInfo: { startCursor: count(0, 4), endCursor: count(1, 3), hasPreviousPage: false, hasNextPage: true },
      edges: [{ cursor: count(0, 4), node: { name: 'Author 4' } }, { cursor: count(1, 3), node: { name: 'Author 3' } }],
    } } });
    expect(await relay(AUTHORS(`first: 2, after: "${first.data.author_connection.pageInfo.endCursor}", order_by: {articles_aggregate: {count: asc}}`))).toEqual({ data: { author_connection: {
      pageInfo: { startCursor: count(2, 2), endCursor: count(3, 1), hasPreviousPage: true, hasNextPage: false },
      edges: [{ cursor: count(2, 2), node: { name: 'Author 2' } }, { cursor: count(3, 1), node: { name: 'Author 1' } }],
    } } });
    expect(await relay(AUTHORS(`last: 2, before: "${count(3, 1)}", order_by: {articles_aggregate: {count: asc}}`))).toEqual({ data: { author_connection: {
      pageInfo: { startCursor: count(1, 3), endCursor: count(2, 2), hasPreviousPage: true, hasNextPage: true },
      edges: [{ cursor: count(1, 3), node: { name: 'Author 3' } }, { cursor: count(2, 2), node: { name: 'Author 2' } }],
    } } });
  });

  it('counts only the related rows the role may select', async () => {
    // Published articles: author 1 has 2, authors 2 and 3 one each, author 4 none (unfiltered: 3, 2, 1, 0).
    expect(await relay(AUTHORS('order_by: {articles_aggregate: {count: asc}}'), { 'x-engine-role': 'publisher' })).toEqual({ data: { author_connection: {
      pageInfo: { startCursor: count(0, 4), endCursor: count(2, 1), hasPreviousPage: false, hasNextPage: false },
      edges: [
        { cursor: count(0, 4), node: { name: 'Author 4' } }, { cursor: count(1, 2), node: { name: 'Author 2' } },
        { cursor: count(1, 3), node: { name: 'Author 3' } }, { cursor: count(2, 1), node: { name: 'Author 1' } },
      ],
    } } });
    // The cursor's count is compared with the role's counts: after author 2 (1 published article) come 3 and 1.
    expect(await relay(AUTHORS(`first: 5, after: "${count(1, 2)}", order_by: {articles_aggregate: {count: asc}}`), { 'x-engine-role': 'publisher' }))
      .toMatchObject({ data: { author_connection: { edges: [{ node: { name: 'Author 3' } }, { node: { name: 'Author 1' } }] } } });
  });

  it('an aggregate of a column, nulls first when descending, and a page after a null', async () => {
    const max = (v: number | null, id: number) => cursor(`{"articles_aggregate" : {"max" : {"id" : ${v}}}, "id" : ${id}}`);
    expect(await relay(AUTHORS('first: 1, order_by: {articles_aggregate: {max: {id: desc}}}'))).toEqual({ data: { author_connection: {
      pageInfo: { startCursor: max(null, 4), endCursor: max(null, 4), hasPreviousPage: false, hasNextPage: true },
      edges: [{ cursor: max(null, 4), node: { name: 'Author 4' } }],
    } } });
    expect(await relay(AUTHORS(`first: 2, after: "${max(null, 4)}", order_by: {articles_aggregate: {max: {id: desc}}}`))).toMatchObject({ data: { author_connection: {
      pageInfo: { startCursor: max(6, 3), endCursor: max(5, 2), hasPreviousPage: true, hasNextPage: true },
    } } });
  });

  it('a scalar computed field, its value in the cursor', async () => {
    const rank = (v: number, id: number) => cursor(`{"rank" : ${v}, "id" : ${id}}`);
    expect(await relay(AUTHORS(`first: 2, after: "${rank(6, 4)}", order_by: {rank: asc}`))).toEqual({ data: { author_connection: {
      pageInfo: { startCursor: rank(7, 3), endCursor: rank(8, 2), hasPreviousPage: true, hasNextPage: true },
      edges: [{ cursor: rank(7, 3), node: { name: 'Author 3' } }, { cursor: rank(8, 2), node: { name: 'Author 2' } }],
    } } });
  });

  it('a cursor without the aggregate\'s value is refused', async () => {
    expect(await relay(AUTHORS(`after: "${cursor('{"id" : 2}')}", order_by: {articles_aggregate: {count: asc}}`)))
      .toEqual(err('the cursor is invalid', '$.selectionSet.author_connection.args.after'));
  });
});

describe('node(id:)', () => {
  it('finds a row of any node table by its id; fragments on other types are left out; an unknown key is null', async () => {
    expect(await relay(`query ($a: ID!) { a: node(id: $a) { __typename id ... on author { name } ... on article { title } }
      u: node(id: "${id('user', 'first_2', 'last_2')}") { ... on user { first_name age } } none: node(id: "${id('article', 100)}") { id } }`, {}, { a: id('author', 2) })).toEqual({
      data: { a: { __typename: 'author', id: id('author', 2), name: 'Author 2' }, u: { first_name: 'first_2', age: null }, none: null },
    });
  });

  const errors: [string, string, string, string?][] = [
    ['random', '$.selectionSet.node.args.id', 'invalid node id: Error in $: Failed reading: not a valid json value at \'\u00ad\u00a9\u00dd\u00a2\''],
    [cursor('{"id" : 4}'), '$.selectionSet.node.args.id', 'invalid node id: Error in $: parsing node id failed, expected Array, but encountered Object'],
    [b64('[2, "public", "author", 1]'), '$.selectionSet.node.args.id', 'invalid node id: Error in $: unsupported GUID version: 2.0'],
    [b64('["1", "public", "author", 1]'), '$.selectionSet.node.args.id', 'invalid node id: Error in $: unexpected GUID format, needs to start with a version number'],
    [b64('[1, "public", "user"]'), '$.selectionSet.node.args.id', 'invalid node id: Error in $: GUID version 1: expecting schema name, table name and at least one column value'],
    [b64('[1, "public", "user", "first_2"]'), '$.selectionSet.node.args.id', 'invalid node id: primary key columns [\'last_name\'] are missing'],
    [b64('[1, "public", "user", "first_2", "last_2", 2]'), '$.selectionSet.node.args.id', 'invalid node id: unexpected column values [2]'],
    [b64('[1, "public", "user", 1, "last_2"]'), '$.selectionSet.node', 'value of column \'first_name\' in node id: parsing Text failed, expected String, but encountered Number', 'parse-failed'],
    [b64('[1, "public", "note", 1]'), '$.selectionSet.node.args.id', 'invalid node id: no such table found: "public.note"'],
  ];
  for (const [given, path, message, code] of errors) {
    it(`refuses ${message.slice(0, 60)}`, async () => {
      expect(await relay(`{ node(id: "${given}") { id } }`)).toEqual(err(message, path, code));
    });
  }
});

describe('errors', () => {
  it('first with last, after with before, a negative count, an invalid cursor', async () => {
    expect(await relay('{ author_connection(first: 1, last: 2) { edges { cursor } } }')).toEqual(err('"first" and "last" are not allowed at once', '$.selectionSet.author_connection.args'));
    expect(await relay(`{ author_connection(after: "${cursor('{"id" : 2}')}", before: "${cursor('{"id" : 4}')}") { edges { cursor } } }`))
      .toEqual(err('"after" and "before" are not allowed at once', '$.selectionSet.author_connection.args'));
    expect(await relay('{ author_connection(first: -1) { edges { cursor } } }')).toEqual(err('unexpected negative value', '$.selectionSet.author_connection.args.first'));
    expect(await relay('{ author_connection(after: "bm90IGEgY3Vyc29y") { edges { cursor } } }')).toEqual(err('the cursor is invalid', '$.selectionSet.author_connection.args.after'));
    expect(await relay(`{ author_connection(after: "${cursor('{"name" : "x"}')}") { edges { cursor } } }`)).toEqual(err('the cursor is invalid', '$.selectionSet.author_connection.args.after'));
    expect(await relay('{ author { id } }')).toEqual(err('field "author" not found in type: \'query_root\'', '$.selectionSet.author'));
  });
});

describe('permissions', () => {
  it('a role sees only its rows, in connections and through node', async () => {
    expect(await relay(`{ author_connection { edges { node { id name articles_connection { edges { node { title } } } } } } }`, USER2)).toEqual({
      data: { author_connection: { edges: [{ node: { id: id('author', 2), name: 'Author 2', articles_connection: { edges: [{ node: { title: 'Article 4' } }, { node: { title: 'Article 5' } }] } } }] } },
    });
    expect(await relay(`{ article_connection(last: 3) { pageInfo { hasPreviousPage hasNextPage } edges { node { title } } } }`, USER2)).toEqual({
      data: { article_connection: { pageInfo: { hasPreviousPage: true, hasNextPage: false }, edges: [{ node: { title: 'Article 4' } }, { node: { title: 'Article 5' } }, { node: { title: 'Article 6' } }] } },
    });
    expect(await relay(`{ node(id: "${id('author', 2)}") { ... on author { name } } }`, USER2)).toEqual({ data: { node: { name: 'Author 2' } } });
    expect(await relay(`{ node(id: "${id('author', 2)}") { ... on author { name } } }`, USER1)).toEqual({ data: { node: null } });
    // Unpublished article 5 of author 2 is not user 1's: null, as a row that does not exist.
    expect(await relay(`{ node(id: "${id('article', 5)}") { id } }`, USER1)).toEqual({ data: { node: null } });
  });

  it('a table whose key the role may not select is no node: no connection, no id, no node(id:)', async () => {
    expect(await relay('{ article_connection { edges { cursor } } }', READER)).toEqual(err('field "article_connection" not found in type: \'query_root\'', '$.selectionSet.article_connection'));
    expect(await relay('{ author_connection(first: 1) { edges { node { articles_connection { edges { cursor } } } } } }', READER))
      .toEqual(err('field "articles_connection" not found in type: \'author\'', '$.selectionSet.author_connection.selectionSet.edges.selectionSet.node.selectionSet.articles_connection'));
    expect(await relay('{ author_connection(first: 1) { edges { node { name articles { title } } } } }', READER))
      .toEqual({ data: { author_connection: { edges: [{ node: { name: 'Author 1', articles: [{ title: 'Article 1' }, { title: 'Article 2' }, { title: 'Article 3' }] } }] } } });
    expect(await relay(`{ node(id: "${id('article', 1)}") { id } }`, READER)).toEqual(err('invalid node id: no such table found: "public.article"', '$.selectionSet.node.args.id'));
    // A role without permissions has only node, which finds nothing.
    expect(await relay(`{ node(id: "${id('author', 1)}") { id } }`, { 'x-engine-role': 'nobody' })).toEqual(err('invalid node id: no such table found: "public.author"', '$.selectionSet.node.args.id'));
  });
});

describe('the route', () => {
  it('answers CORS preflight like /v1/graphql', async () => {
    const r = await fetch(`${e.url}/v1beta1/relay`, { method: 'OPTIONS', headers: { origin: 'http://example.test', 'access-control-request-method': 'POST' } });
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('the plan of a query with an id variable serves that id only', async () => {
    const q = 'query ($id: ID!) { node(id: $id) { ... on author { name } ... on article { title } } }';
    expect(await relay(q, {}, { id: id('author', 3) })).toEqual({ data: { node: { name: 'Author 3' } } });
    expect(await relay(q, {}, { id: id('article', 3) })).toEqual({ data: { node: { title: 'Article 3' } } });
  });
});
