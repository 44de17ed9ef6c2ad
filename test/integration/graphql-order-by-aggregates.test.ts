import { describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { write } from '../helpers/assertions.js';
import { as, gql } from './graphql-fixture.js';

// Issue 30.2 and 30.5: ordering by array-relationship aggregates and computed fields, with the related table's select
// filter inside; the permission limit caps an aggregate's nodes, not its values.

const e = useTestEngine({ setup: async () => {
  await e.sql(`create table author (id int primary key, name text, secret int);
    create table article (id int primary key, author_id int references author(id), score int, title text, published boolean, hidden int);
    insert into author values (1, 'Ann', 1), (2, 'Bob', 2), (3, 'Cid', 3);
    -- Ann: 3 articles (1 published), Bob: 2 (2 published), Cid: none.
    insert into article values (1, 1, 10, 'a', false, 1), (2, 1, 20, 'b', false, 1), (3, 1, 5, 'c', true, 1),
      (4, 2, 7, 'd', true, 1), (5, 2, 1, 'e', true, 1);
    create function name_len(author_row author) returns int stable language sql as $$ select length(author_row.name) * -author_row.id $$;
    create function published_articles(author_row author, hasura_session json) returns setof article stable language sql as
      $$ select * from article where author_id = author_row.id and (published or hasura_session ->> 'x-engine-user-id' = '0') $$;
    create function scored(author_row author, min int) returns setof article stable language sql as $$ select * from article where score >= min $$;`);
  await write(e, { type: 'track_table', args: 'author' });
  await write(e, { type: 'track_table', args: 'article' });
  await write(e, { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } });
  await write(e, { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } });
  await write(e, { type: 'add_computed_field', args: { table: 'author', name: 'name_len', definition: { function: 'name_len' } } });
  await write(e, { type: 'add_computed_field', args: { table: 'author', name: 'published', definition: { function: 'published_articles', session_argument: 'hasura_session' } } });
  await write(e, { type: 'add_computed_field', args: { table: 'author', name: 'scored', definition: { function: 'scored', table_argument: 'author_row' } } });
  await write(e, { type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name'], computed_fields: ['name_len'], filter: {}, allow_aggregations: true, limit: 2 } } });
  // The user sees published articles only, and not their `hidden` column.
  await write(e, { type: 'create_select_permission', args: { table: 'article', role: 'user', permission: { columns: ['id', 'author_id', 'score', 'title', 'published'], filter: { published: { _eq: true } }, allow_aggregations: true, limit: 1 } } });
  await write(e, { type: 'create_select_permission', args: { table: 'author', role: 'noagg', permission: { columns: ['id'], filter: {} } } });
  await write(e, { type: 'create_select_permission', args: { table: 'article', role: 'noagg', permission: { columns: ['id'], filter: {} } } });
} });

const ids = async (orderBy: string, headers: Record<string, string> = {}, variables?: unknown): Promise<unknown> => {
  const r = await gql(e, { query: `query ($v: order_by) { author(order_by: ${orderBy}) { id } }`, variables }, headers);
  return r.body;
};
const data = (list: number[]) => ({ data: { author: list.map((id) => ({ id })) } });

describe('ordering by aggregates and computed fields (issue 30.2)', () => {
  it('orders by count, per-column aggregates and nulls variants; later keys break ties', async () => {
    expect(await ids('{articles_aggregate: {count: desc}}')).toEqual(data([1, 2, 3]));
    expect(await ids('{articles_aggregate: {count: asc}}')).toEqual(data([3, 2, 1]));
    expect(await ids('{articles_aggregate: {max: {score: desc_nulls_last}}}')).toEqual(data([1, 2, 3]));
    expect(await ids('{articles_aggregate: {max: {score: desc}}}')).toEqual(data([3, 1, 2]));
    expect(await ids('{articles_aggregate: {sum: {score: asc_nulls_first}}}')).toEqual(data([3, 2, 1]));
    expect(await ids('{articles_aggregate: {avg: {score: asc}}}')).toEqual(data([2, 1, 3]));
    expect(await ids('{articles_aggregate: {min: {title: asc}}}')).toEqual(data([1, 2, 3]));
    expect(await ids('{articles_aggregate: {stddev: {score: asc}, count: desc}}')).toEqual(data([2, 1, 3]));
    expect(await ids('[{articles_aggregate: {var_pop: {score: desc_nulls_last}}}, {id: asc}]')).toEqual(data([1, 2, 3]));
    // A variable and null values: a null direction is ignored.
    expect(await ids('[{articles_aggregate: {count: $v}}, {id: desc}]', {}, { v: null })).toEqual(data([3, 2, 1]));
    expect(await ids('[{articles_aggregate: {count: $v}}, {id: desc}]', {}, { v: 'desc' })).toEqual(data([1, 2, 3]));
  });

  it('orders through an object relationship by the related row\'s aggregate', async () => {
    const r = await gql(e, { query: '{ article(order_by: [{author: {articles_aggregate: {count: asc}}}, {id: asc}]) { id } }' });
    expect(r.body).toEqual({ data: { article: [{ id: 4 }, { id: 5 }, { id: 1 }, { id: 2 }, { id: 3 }] } });
  });

  it('orders by a scalar computed field and by a set-returning computed field\'s aggregate (session argument included)', async () => {
    expect(await ids('{name_len: asc}')).toEqual(data([3, 2, 1]));
    expect(await ids('[{published_aggregate: {count: desc}}, {id: asc}]')).toEqual(data([2, 1, 3]));
    expect(await ids('[{published_aggregate: {count: desc}}, {id: asc}]', { 'x-engine-role': 'admin', 'x-engine-user-id': '0' })).toEqual(data([1, 2, 3]));
  });

  it('applies the related table\'s select filter inside the aggregate, never its limit', async () => {
    const user = as('user', 1);
    // Visible to the user: Ann 1 published article, Bob 2, Cid 0 — the permission limit 1 of article does not cap counts.
    const r = await gql(e, { query: '{ author(order_by: {articles_aggregate: {count: desc}}) { id } }' }, user);
    expect(r.body).toEqual(data([2, 1]));
    const m = await gql(e, { query: '{ author(order_by: {articles_aggregate: {max: {score: desc_nulls_last}}}) { id } }' }, user);
    expect(m.body).toEqual(data([2, 1]));
  });

  it('offers only what the role may see: hidden columns, argument-taking computed fields and roles without aggregations', async () => {
    const type = async (name: string, role: string) => {
      const r = await gql(e, { query: `{ __type(name: "${name}") { description inputFields { name type { name } } } }` }, { 'x-engine-role': role });
      return (r.body as { data: { __type: { description: string; inputFields: { name: string; type: { name: string } }[] } | null } }).data.__type;
    };
    const order = await type('author_order_by', 'user');
    expect(order?.inputFields.map((f) => f.name)).toEqual(['articles_aggregate', 'id', 'name', 'name_len', 'published_aggregate']);
    const agg = await type('article_aggregate_order_by', 'user');
    expect(agg?.description).toBe('order by aggregate values of table "article"');
    expect(agg?.inputFields.map((f) => `${f.name}:${f.type.name}`)).toEqual([
      'avg:article_avg_order_by', 'count:order_by', 'max:article_max_order_by', 'min:article_min_order_by', 'stddev:article_stddev_order_by',
      'stddev_pop:article_stddev_pop_order_by', 'stddev_samp:article_stddev_samp_order_by', 'sum:article_sum_order_by',
      'var_pop:article_var_pop_order_by', 'var_samp:article_var_samp_order_by', 'variance:article_variance_order_by',
    ]);
    const sum = await type('article_sum_order_by', 'user');
    expect(sum?.description).toBe('order by sum() on columns of table "article"');
    expect(sum?.inputFields.map((f) => f.name)).toEqual(['author_id', 'id', 'score']);
    expect((await type('article_max_order_by', 'user'))?.inputFields.map((f) => f.name)).toEqual(['author_id', 'id', 'score', 'title']);
    expect((await type('author_order_by', 'noagg'))?.inputFields.map((f) => f.name)).toEqual(['id']);
    expect(await type('article_aggregate_order_by', 'noagg')).toBeNull();
  });

  it('refuses what the role may not order by, at its path, with the validation message', async () => {
    const cases: [string, string, string, string][] = [
      ['user', '{articles_aggregate: {sum: {hidden: asc}}}', 'field "hidden" not found in type: \'article_sum_order_by\'', '$.selectionSet.author.args.order_by.articles_aggregate.sum.hidden'],
      ['user', '{scored_aggregate: {count: asc}}', 'field "scored_aggregate" not found in type: \'author_order_by\'', '$.selectionSet.author.args.order_by.scored_aggregate'],
      ['noagg', '{articles_aggregate: {count: asc}}', 'field "articles_aggregate" not found in type: \'author_order_by\'', '$.selectionSet.author.args.order_by.articles_aggregate'],
      ['user', '{articles_aggregate: {count: sideways}}', 'expected one of the values [\'asc\', \'asc_nulls_first\', \'asc_nulls_last\', \'desc\', \'desc_nulls_first\', \'desc_nulls_last\'] for type \'order_by\', but found \'sideways\'', '$.selectionSet.author.args.order_by.articles_aggregate.count'],
    ];
    for (const [role, ob, message, path] of cases) {
      const r = await gql(e, { query: `{ author(order_by: ${ob}) { id } }` }, { 'x-engine-role': role });
      expect(r.status).toBe(200);
      const errs = (r.body as { errors: { message: string; extensions: { path: string; code: string } }[] }).errors;
      expect(errs?.[0]?.extensions).toEqual({ path, code: 'validation-failed' });
      if (!ob.includes('sideways')) expect(errs?.[0]?.message).toBe(message);
    }
    // Nothing changed: the data is as set up.
    expect(await ids('{id: asc}')).toEqual(data([1, 2, 3]));
  });
});

describe('the permission limit and aggregates (issue 30.5)', () => {
  it('caps nodes, not aggregate values; the field\'s own limit and offset apply to both', async () => {
    const user = as('user', 1);
    const q = async (args: string) => (await gql(e, { query: `{ author_aggregate${args} { aggregate { count max { id } } nodes { id } } }` }, user)).body;
    expect(await q('(order_by: {id: asc})')).toEqual({ data: { author_aggregate: { aggregate: { count: 3, max: { id: 3 } }, nodes: [{ id: 1 }, { id: 2 }] } } });
    expect(await q('(order_by: {id: desc}, offset: 1)')).toEqual({ data: { author_aggregate: { aggregate: { count: 2, max: { id: 2 } }, nodes: [{ id: 2 }, { id: 1 }] } } });
    expect(await q('(order_by: {id: asc}, limit: 1)')).toEqual({ data: { author_aggregate: { aggregate: { count: 1, max: { id: 1 } }, nodes: [{ id: 1 }] } } });
    // Nested: the related table's filter still applies (Bob's two published articles), its limit 1 only to nodes.
    const n = await gql(e, { query: '{ author(where: {id: {_eq: 2}}) { articles_aggregate(order_by: {id: desc}) { aggregate { count } nodes { id } } } }' }, user);
    expect(n.body).toEqual({ data: { author: [{ articles_aggregate: { aggregate: { count: 2 }, nodes: [{ id: 5 }] } }] } });
    // Without aggregate fields the limit caps the rows as before.
    expect((await gql(e, { query: '{ author_aggregate(order_by: {id: asc}) { nodes { id } } }' }, user)).body).toEqual({ data: { author_aggregate: { nodes: [{ id: 1 }, { id: 2 }] } } });
  });
});
