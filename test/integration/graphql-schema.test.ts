import { describe, expect, it } from 'vitest';
import { buildClientSchema, getIntrospectionQuery, GraphQLSchema, lexicographicSortSchema, printSchema, printType, validateSchema } from 'graphql';
import { buildRoleSchema } from '../../src/server/graphql/schema/index.js';
import { ADMIN, ANON, as, gql, NOBODY, q, USER2, useExampleEngine, type Headers } from './graphql-fixture.js';

// graphql-api.md §2 (schema generation) and §3 (visibility): introspection per role, the standard introspection query
// of the `graphql` package for every role, and a client schema built from it checked against the §2.11 SDL.

const e = useExampleEngine();

/**
 * The role's schema, checked against the client schema its standard introspection query gives: the same up to
 * order, as introspection lists fields, arguments, values and types by name (the incumbent's, issue 30) while the
 * schema keeps the declaration order of §2.
 */
async function clientSchema(headers: Headers, role: string): Promise<GraphQLSchema> {
  const r = await gql(e, { query: getIntrospectionQuery() }, headers);
  expect(r.status).toBe(200);
  expect(r.body.errors).toBeUndefined();
  const own = buildRoleSchema(e.engine.schemaCache, role);
  expect(printSchema(lexicographicSortSchema(own))).toBe(printSchema(lexicographicSortSchema(buildClientSchema(r.body.data))));
  return own;
}

const ARGS = (t: string) => `distinct_on: [${t}_select_column!], limit: Int, offset: Int, order_by: [${t}_order_by!], where: ${t}_bool_exp`;

/** §2.11 with its abridged parts written out. */
const USER_SDL: Record<string, string> = {
  query_root: `type query_root {
  article(${ARGS('article')}): [article!]!
  article_aggregate(${ARGS('article')}): article_aggregate!
  article_by_pk(id: Int!): article
  author(${ARGS('author')}): [author!]!
  author_by_pk(id: Int!): author
  export_articles(id: uuid!): export_articles_async_result
  search_articles(args: search_articles_args!, ${ARGS('article')}): [article!]!
  search_articles_aggregate(args: search_articles_args!, ${ARGS('article')}): article_aggregate!
}`,
  mutation_root: `type mutation_root {
  create_user(email: String!, name: String): UserId
  delete_article(where: article_bool_exp!): article_mutation_response
  delete_article_by_pk(id: Int!): article
  export_articles(format: String!): uuid!
  insert_article(objects: [article_insert_input!]!, on_conflict: article_on_conflict): article_mutation_response
  insert_article_one(object: article_insert_input!, on_conflict: article_on_conflict): article
  update_article(_set: article_set_input, where: article_bool_exp!): article_mutation_response
  update_article_by_pk(_set: article_set_input, pk_columns: article_pk_columns_input!): article
  update_article_many(updates: [article_updates!]!): [article_mutation_response]
}`,
  article: 'type article {\n  id: Int!\n  title: String!\n  content: String\n  author_id: Int!\n  published: Boolean!\n  views: bigint!\n  author: author\n}',
  author: `type author {
  id: Int!
  name: String!
  bio: String
  is_active: Boolean!
  articles(${ARGS('article')}): [article!]!
  articles_aggregate(${ARGS('article')}): article_aggregate!
  full_name: String
  greet(args: author_greet_args!): String
}`,
  author_greet_args: 'input author_greet_args {\n  greeting: String\n}',
  article_insert_input: 'input article_insert_input {\n  title: String\n  content: String\n  tags: jsonb\n}',
  article_set_input: 'input article_set_input {\n  title: String\n  content: String\n  published: Boolean\n}',
  article_constraint: 'enum article_constraint {\n  article_pkey\n  article_title_key\n}',
  article_update_column: 'enum article_update_column {\n  title\n  content\n  published\n}',
  UserId: 'type UserId {\n  id: Int!\n  author: author\n}',
  export_articles_async_result: 'type export_articles_async_result {\n  id: uuid!\n  created_at: timestamptz!\n  output: ExportResult\n  errors: json\n}',
};

describe('§2.11 role user, and the client schema built from getIntrospectionQuery()', () => {
  it('has exactly the types and fields of §2.11', async () => {
    const schema = await clientSchema(USER2, 'user');
    for (const [name, sdl] of Object.entries(USER_SDL)) {
      const t = schema.getType(name);
      expect(t, name).toBeDefined();
      expect(printType(t as never)).toBe(sdl);
    }
    expect(schema.getType('article_inc_input')).toBeUndefined();
    expect(printType(schema.getType('article_aggregate_fields') as never)).toBe(`type article_aggregate_fields {
  count(columns: [article_select_column!], distinct: Boolean): Int!
  sum: article_sum_fields
  avg: article_avg_fields
  max: article_max_fields
  min: article_min_fields
  stddev: article_stddev_fields
  stddev_pop: article_stddev_pop_fields
  stddev_samp: article_stddev_samp_fields
  var_pop: article_var_pop_fields
  var_samp: article_var_samp_fields
  variance: article_variance_fields
}`);
    expect(printType(schema.getType('article_sum_fields') as never)).toBe('type article_sum_fields {\n  id: bigint\n  author_id: bigint\n  views: numeric\n}');
    expect(printType(schema.getType('article_bool_exp') as never)).toBe(`input article_bool_exp {
  _and: [article_bool_exp!]
  _not: article_bool_exp
  _or: [article_bool_exp!]
  id: Int_comparison_exp
  title: String_comparison_exp
  content: String_comparison_exp
  author_id: Int_comparison_exp
  published: Boolean_comparison_exp
  views: bigint_comparison_exp
  author: author_bool_exp
}`);
  });

  it('anonymous: article with id and title, no aggregates, no author, no actions, no mutation_root', async () => {
    const schema = await clientSchema(ANON, 'anonymous');
    expect(Object.keys(schema.getQueryType()?.getFields() ?? {})).toEqual(['article', 'article_by_pk', 'search_articles']);
    expect(printType(schema.getType('article') as never)).toBe('type article {\n  id: Int!\n  title: String!\n}');
    expect(schema.getMutationType()).toBeFalsy();
    expect(schema.getType('author')).toBeUndefined();
  });

  it('admin sees everything; a role without permissions gets no_queries_available', async () => {
    const admin = await clientSchema(ADMIN, 'admin');
    const roots = Object.keys(admin.getQueryType()?.getFields() ?? {});
    expect(roots).toEqual(['article', 'article_aggregate', 'article_by_pk', 'author', 'author_aggregate', 'author_by_pk', 'export_articles', 'search_articles', 'search_articles_aggregate']);
    expect(Object.keys(admin.getMutationType()?.getFields() ?? {})).toContain('insert_author_one');
    expect(Object.keys((admin.getType('article_inc_input') as never as { getFields(): object }).getFields())).toEqual(['id', 'author_id', 'views']);
    const nobody = await clientSchema(NOBODY, 'nobody');
    expect(Object.keys(nobody.getQueryType()?.getFields() ?? {})).toEqual(['no_queries_available']);
    expect(nobody.getMutationType()).toBeFalsy();
    expect(Object.keys(nobody.getTypeMap()).filter((t) => !t.startsWith('__')).sort()).toEqual(['Boolean', 'String', 'query_root']);
  });
});

describe('generated schemas and the cached introspection answer', () => {
  it('every role\'s schema passes graphql-js schema validation (the engine builds them with assumeValid)', () => {
    for (const role of ['admin', 'user', 'anonymous', 'nobody']) {
      const s = buildRoleSchema(e.engine.schemaCache, role);
      expect(validateSchema(new GraphQLSchema({ ...s.toConfig(), assumeValid: false })).map(String)).toEqual([]);
    }
  });

  it('a repeated introspection query answers the same bytes; a metadata change answers the new schema', async () => {
    const query = getIntrospectionQuery();
    const first = await gql(e, { query }, ADMIN);
    const again = await gql(e, { query }, ADMIN);
    expect(again.status).toBe(200);
    expect(again.headers.get('content-length')).toBe(String(Buffer.byteLength(first.text)));
    expect(again.text).toBe(first.text);
    expect(first.text).not.toContain('"name":"extra"');
    const user = await gql(e, { query }, USER2);
    expect(user.text).not.toBe(first.text);
    await e.ok({ type: 'run_sql', args: { sql: 'ALTER TABLE article ADD COLUMN extra text' } });
    const changed = await gql(e, { query }, ADMIN);
    expect(changed.status).toBe(200);
    expect(changed.text).toContain('"name":"extra"');
    expect(changed.body).toEqual(JSON.parse(changed.text));
  });
});

describe('§3 introspection answers exactly the role\'s schema', () => {
  it('answers the examples of §3', async () => {
    expect(await q(e, '{ __type(name: "author") { name } }', ANON)).toEqual({ data: { __type: null } });
    expect(await q(e, '{ __type(name: "article_insert_input") { inputFields { name } } }', USER2))
      .toEqual({ data: { __type: { inputFields: [{ name: 'content' }, { name: 'tags' }, { name: 'title' }] } } });
    expect(await q(e, '{ __schema { queryType { name } mutationType { name } } }', ANON))
      .toEqual({ data: { __schema: { queryType: { name: 'query_root' }, mutationType: null } } });
    expect(await q(e, '{ __schema { queryType { fields { name } } } }', NOBODY))
      .toEqual({ data: { __schema: { queryType: { fields: [{ name: 'no_queries_available' }] } } } });
  });

  it('introspection mixes with table fields in one operation, in selection order, with variables and fragments', async () => {
    const r = await q(e, 'query ($n: String!) { a: author_by_pk(id: 1) { name } t: __type(name: $n) { ...K } __typename } fragment K on __Type { kind }', USER2, { n: 'author' });
    expect(r).toEqual({ data: { a: { name: 'Ann' }, t: { kind: 'OBJECT' }, __typename: 'query_root' } });
    expect(Object.keys((r as { data: object }).data)).toEqual(['a', 't', '__typename']);
  });

  it('directives: @skip, @include, @deprecated, @specifiedBy', async () => {
    const r = await q(e, '{ __schema { directives { name } } }', as('user', 1)) as { data: { __schema: { directives: { name: string }[] } } };
    expect(r.data.__schema.directives.map((d) => d.name).sort()).toEqual(['deprecated', 'include', 'skip', 'specifiedBy']);
  });
});

describe('§2.2 names, §2.3 scalars, §2.10 empty types', () => {
  it('invalid names are absent, other schemas are prefixed, the first of colliding names wins', async () => {
    await e.sql(`CREATE TABLE "user-profile" (id int PRIMARY KEY);
      CREATE TABLE odd (id int PRIMARY KEY, "bad-name" text, ok text);
      CREATE SCHEMA billing; CREATE TABLE billing.invoice (id int PRIMARY KEY, total numeric);
      CREATE TABLE billing_invoice (id int PRIMARY KEY, other text);`);
    for (const t of ['user-profile', 'odd', { schema: 'billing', name: 'invoice' }, 'billing_invoice']) await e.ok({ type: 'track_table', args: t });
    const schema = await clientSchema(ADMIN, 'admin');
    const roots = Object.keys(schema.getQueryType()?.getFields() ?? {});
    expect(roots.filter((r) => r.includes('profile'))).toEqual([]);
    expect(printType(schema.getType('odd') as never)).toBe('type odd {\n  id: Int!\n  ok: String\n}');
    expect(printType(schema.getType('billing_invoice') as never)).toBe('type billing_invoice {\n  id: Int!\n  total: numeric\n}');
    expect(await q(e, '{ odd(where: {ok: {_is_null: true}}) { id } billing_invoice { id } }')).toEqual({ data: { odd: [], billing_invoice: [] } });
  });

  it('scalars and output formats of §2.3', async () => {
    await e.sql(`CREATE TYPE mood AS ENUM ('sad', 'ok'); CREATE DOMAIN positive AS bigint CHECK (VALUE > 0);
      CREATE TABLE kinds (id int PRIMARY KEY, u uuid, d date, t time, tz timetz, i interval, ts timestamp, tstz timestamptz,
        big int8[], f float8, r real, b bytea, m mood, j json, n numeric[], s smallint, c char(3), v varchar(5), p positive);
      INSERT INTO kinds VALUES (1, 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', '2024-05-01', '10:00', '10:00+00', '1 day 2 hours',
        '2024-05-01 10:00', '2024-05-01 10:00:00.5+02', '{1,2}', 'NaN', 1.5, '\\x0102', 'ok', '{"b": 1,  "a": 2}', '{1.50}', 7, 'ab', 'xy', 5);`);
    await e.ok({ type: 'track_table', args: 'kinds' });
    expect(await q(e, '{ kinds { u d t tz i ts tstz big f r b m j n s c v p } }')).toEqual({ data: { kinds: [{
      u: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', d: '2024-05-01', t: '10:00:00', tz: '10:00:00+00', i: '1 day 02:00:00',
      ts: '2024-05-01T10:00:00', tstz: '2024-05-01T08:00:00.5+00:00', big: [1, 2], f: 'NaN', r: 1.5, b: '\\x0102', m: 'ok',
      j: { b: 1, a: 2 }, n: [1.5], s: 7, c: 'ab ', v: 'xy', p: 5,
    }] } });
    const schema = await clientSchema(ADMIN, 'admin');
    const fields = (schema.getType('kinds') as never as { getFields(): Record<string, { type: { toString(): string } }> }).getFields();
    expect(Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, f.type.toString()]))).toEqual({
      id: 'Int!', u: 'uuid', d: 'date', t: 'time', tz: 'timetz', i: 'interval', ts: 'timestamp', tstz: 'timestamptz', big: '_int8',
      f: 'float8', r: 'Float', b: 'bytea', m: 'mood', j: 'json', n: '_numeric', s: 'smallint', c: 'bpchar', v: 'String', p: 'bigint',
    });
    expect(await q(e, '{ kinds(where: {p: {_gt: "4"}}) { id } }')).toEqual({ data: { kinds: [{ id: 1 }] } });
    expect(await q(e, '{ kinds(where: {big: {_eq: "{1,2}"}, u: {_in: ["a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"]}, m: {_eq: "ok"}, j: {_is_null: false}}) { id } }'))
      .toEqual({ data: { kinds: [{ id: 1 }] } });
    expect(await q(e, '{ kinds(where: {big: {_eq: [1, 2]}, tstz: {_gt: "2024-05-01"}}) { id } }')).toEqual({ data: { kinds: [{ id: 1 }] } });
  });

  it('a role whose select permission has no usable columns gets _PLACEHOLDER types', async () => {
    await e.sql('CREATE TABLE hidden ("bad-col" int)');
    await e.ok({ type: 'track_table', args: 'hidden' });
    await e.ok({ type: 'create_select_permission', args: { table: 'hidden', role: 'viewer', permission: { columns: '*', filter: {} } } });
    expect(await q(e, '{ hidden { _PLACEHOLDER __typename } }', as('viewer'))).toEqual({ data: { hidden: [] } });
    await e.sql('INSERT INTO hidden VALUES (1)');
    expect(await q(e, '{ hidden { _PLACEHOLDER __typename } }', as('viewer'))).toEqual({ data: { hidden: [{ _PLACEHOLDER: null, __typename: 'hidden' }] } });
  });

  it('objects wider than json_build_object\'s 50 pairs keep the selection order (§7.5)', async () => {
    const cols = Array.from({ length: 60 }, (_, i) => `c${i}`);
    await e.sql(`CREATE TABLE wide (${cols.map((c) => `${c} int`).join(', ')}); INSERT INTO wide VALUES (${cols.map((_, i) => i).join(', ')});`);
    await e.ok({ type: 'track_table', args: 'wide' });
    const selection = [...cols].reverse().join(' ');
    const r = await gql(e, { query: `{ wide { ${selection} } }` });
    expect(Object.keys(r.body.data.wide[0])).toEqual([...cols].reverse());
    expect(r.body.data.wide[0].c59).toBe(59);
  });
});
