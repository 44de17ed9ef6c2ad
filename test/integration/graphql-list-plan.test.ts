import { describe, expect, it } from 'vitest';
import { post, useTestEngine, type TestEngine } from '../helpers/engine.js';
import { gql } from './graphql-fixture.js';

// Issue 30's order-by benchmark: an ordered list with a limit keeps the first rows while sorting (the limit sits right
// above the sort, the numbering above the limit), so PostgreSQL sorts top-N instead of every candidate row; the
// answer and its order are those of the same query without that plan.

const e: TestEngine = useTestEngine({
  setup: async (t) => {
    await t.sql(`CREATE TABLE author (id integer PRIMARY KEY, name text NOT NULL);
      CREATE TABLE article (id integer PRIMARY KEY, author_id integer NOT NULL REFERENCES author (id));
      INSERT INTO author SELECT g, 'a' || g FROM generate_series(1, 50) g;
      INSERT INTO article SELECT g, 1 + (g * g) % 50 FROM generate_series(1, 400) g;`);
    await t.ok({ type: 'bulk', args: [
      { type: 'track_table', args: 'author' },
      { type: 'track_table', args: 'article' },
      { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
    ] });
  },
});

const QUERY = '{ author(order_by: [{articles_aggregate: {count: desc}}, {id: asc}], limit: 5, offset: 1) { id articles_aggregate { aggregate { count } } } }';

describe('ordered lists with a limit', () => {
  it('are numbered above the limit, which sits on the sort (no window between them)', async () => {
    const r = await post(`${e.url}/v1/graphql/explain`, { query: { query: QUERY } });
    expect(r.status).toBe(200);
    const plan = (r.body as { plan: string[] }[])[0]?.plan ?? [];
    const at = (node: string, from = 0) => plan.findIndex((l, i) => i >= from && l.includes(`${node}  (`));
    const limit = at('Limit');
    const sort = at('Sort', limit);
    expect(limit).toBeGreaterThan(-1);
    expect(sort).toBeGreaterThan(limit);
    // Plan lines list a parent before its children: the numbering above the limit, nothing but a projection between
    // the limit and its sort.
    expect(at('WindowAgg')).toBeGreaterThan(-1);
    expect(at('WindowAgg')).toBeLessThan(limit);
    expect(plan.slice(limit + 1, sort).every((l) => /^\s*->\s+Result {2}\(/.test(l))).toBe(true);
  });

  it('answer the rows in the requested order, after the offset', async () => {
    const expected = await e.sql(`SELECT json_agg(json_build_object('id', id, 'n', n) ORDER BY n DESC, id)::text FROM (SELECT a.id, (SELECT count(*) FROM article WHERE author_id = a.id) AS n
      FROM author a ORDER BY n DESC, a.id LIMIT 5 OFFSET 1) x`) as { result: string[][] };
    const want = (JSON.parse(expected.result[1]?.[0] ?? '[]') as { id: number; n: number }[]).map(({ id, n }) => ({ id, articles_aggregate: { aggregate: { count: n } } }));
    expect(want).toHaveLength(5);
    expect((await gql(e, { query: QUERY })).body).toEqual({ data: { author: want } });
  });
});
