import { useTestEngine, post, type AuthOptions, type Reply, type TestEngine } from '../helpers/engine.js';

// The running example of graphql-api.md §0, created through run_sql and metadata operations, and the request helpers
// of the GraphQL tests: `as(role, userId)` gives the headers of "as user 2", "as anonymous", "as admin".

export const EXAMPLE_SQL = `
CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL, bio text,
  is_active boolean NOT NULL DEFAULT true, rating numeric, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL, content text,
  author_id integer NOT NULL REFERENCES author (id), published boolean NOT NULL DEFAULT false,
  views bigint NOT NULL DEFAULT 0, tags jsonb, CONSTRAINT article_title_key UNIQUE (title));
CREATE FUNCTION author_full_name(author_row author) RETURNS text STABLE LANGUAGE sql AS $$ SELECT 'Author ' || author_row.name $$;
CREATE FUNCTION author_greet(author_row author, greeting text) RETURNS text STABLE LANGUAGE sql AS $$ SELECT greeting || ', ' || author_row.name $$;
CREATE FUNCTION search_articles(search text) RETURNS SETOF article STABLE LANGUAGE sql AS $$ SELECT * FROM article WHERE title ILIKE '%' || search || '%' $$;
INSERT INTO author (name, bio, is_active, rating) VALUES ('Ann','Writes',true,4.50), ('Bob',NULL,true,NULL), ('Cid',NULL,false,3.0);
INSERT INTO article (title, content, author_id, published, views, tags) VALUES
  ('Intro','a',1,true,9007199254740993,'{"lang":"en"}'), ('Draft','b',1,false,0,NULL), ('News',NULL,2,true,12,'{"lang":"de","top":true}');
`;

const perm = (kind: string, table: string, role: string, permission: unknown) => ({ type: `create_${kind}_permission`, args: { table, role, permission } });

export const EXAMPLE_METADATA = [
  { type: 'track_table', args: 'author' },
  { type: 'track_table', args: 'article' },
  { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
  { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
  { type: 'add_computed_field', args: { table: 'author', name: 'full_name', definition: { function: 'author_full_name' } } },
  { type: 'add_computed_field', args: { table: 'author', name: 'greet', definition: { function: 'author_greet' } } },
  { type: 'track_function', args: 'search_articles' },
  { type: 'set_custom_types', args: {
    objects: [
      { name: 'UserId', fields: [{ name: 'id', type: 'Int!' }], relationships: [{ name: 'author', type: 'object', remote_table: 'author', field_mapping: { id: 'id' } }] },
      { name: 'ExportResult', fields: [{ name: 'url', type: 'String!' }] },
    ],
  } },
  { type: 'create_action', args: { name: 'create_user', definition: { handler: 'http://127.0.0.1:9/create_user', output_type: 'UserId', arguments: [{ name: 'email', type: 'String!' }, { name: 'name', type: 'String' }], kind: 'synchronous' } } },
  { type: 'create_action', args: { name: 'export_articles', definition: { handler: 'http://127.0.0.1:9/export', output_type: 'ExportResult', arguments: [{ name: 'format', type: 'String!' }], kind: 'asynchronous' } } },
  { type: 'create_action_permission', args: { action: 'create_user', role: 'user' } },
  { type: 'create_action_permission', args: { action: 'export_articles', role: 'user' } },
  perm('select', 'author', 'user', { columns: ['id', 'name', 'bio', 'is_active'], computed_fields: ['full_name', 'greet'], filter: {} }),
  perm('select', 'article', 'user', { columns: ['id', 'title', 'content', 'author_id', 'published', 'views'], filter: { _or: [{ published: true }, { author_id: 'X-Engine-User-Id' }] }, limit: 10, allow_aggregations: true }),
  perm('insert', 'article', 'user', { columns: ['title', 'content', 'tags'], set: { author_id: 'X-Engine-User-Id' }, check: { author: { is_active: true } } }),
  perm('update', 'article', 'user', { columns: ['title', 'content', 'published'], filter: { author_id: 'X-Engine-User-Id' }, check: { title: { _neq: '' } } }),
  perm('delete', 'article', 'user', { filter: { author_id: 'X-Engine-User-Id' } }),
  perm('select', 'article', 'anonymous', { columns: ['id', 'title'], filter: { published: true } }),
];

export async function createExample(e: TestEngine): Promise<void> {
  await e.sql(EXAMPLE_SQL);
  await e.ok({ type: 'bulk', args: EXAMPLE_METADATA });
}

/** The running example's engine for one test file, reset to §0 before each test. */
export function useExampleEngine(opts: { adminSecret?: string } & AuthOptions = {}): TestEngine {
  return useTestEngine({ ...opts, setup: createExample });
}

export type Headers = Record<string, string>;
export const ADMIN: Headers = {};
export const as = (role: string, userId?: number | string): Headers =>
  ({ 'x-engine-role': role, ...(userId === undefined ? {} : { 'x-engine-user-id': String(userId) }) });
export const USER1 = as('user', 1);
export const USER2 = as('user', 2);
export const ANON = as('anonymous');
export const NOBODY = as('nobody');

/** POST /v1/graphql with a body (object or raw text). */
export const gql = (e: TestEngine, body: unknown, headers: Headers = ADMIN): Promise<Reply> => post(`${e.url}/v1/graphql`, body, headers);

/** The parsed body of a query that must answer HTTP 200. */
export async function q(e: TestEngine, query: string, headers: Headers = ADMIN, variables?: unknown): Promise<unknown> {
  const r = await gql(e, variables === undefined ? { query } : { query, variables }, headers);
  if (r.status !== 200) throw new Error(`expected 200, got ${r.status}: ${r.text}`);
  return r.body;
}

/** A GraphQL error body (§1.5 key order). */
export const gqlErr = (message: string, path: string, code: string) => ({ errors: [{ message, extensions: { path, code } }] });
