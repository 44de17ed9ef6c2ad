import { describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { gql } from './graphql-fixture.js';

// A nested insert binds each level's values as one array per column (issue 30's benchmark): array-typed columns,
// json, nulls, quotes and bound variables (an array-typed one too) keep their values.

const e = useTestEngine({ setup: async () => {
  await e.sql(`CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL, tags text[]);
    CREATE TABLE article (id serial PRIMARY KEY, title text, author_id integer REFERENCES author (id), scores integer[], meta jsonb);`);
  await e.ok({ type: 'bulk', args: [
    { type: 'track_table', args: 'author' },
    { type: 'track_table', args: 'article' },
    { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
  ] });
} });

describe('nested insert values', () => {
  it('keeps array, json, null and quoted values, and bound variables inside objects and lists', async () => {
    const query = `mutation ($t: String!, $tags: _text!) { insert_author(objects: [
      {name: "A \\"q\\" \\\\ b", tags: $tags, articles: {data: [{title: $t, scores: [1, 7], meta: {a: [1, "b"]}}, {title: null, scores: null}]}},
      {name: $t, tags: [], articles: {data: [{title: "{\\"k\\"}", scores: []}]}}]) {
        affected_rows returning { name tags articles(order_by: {id: asc}) { title scores meta } } } }`;
    const r = await gql(e, { query, variables: { t: 'T', tags: ['x,y', 'a"b', '{z}'] } });
    expect(r.body).toEqual({ data: { insert_author: { affected_rows: 5, returning: [
      { name: 'A "q" \\ b', tags: ['x,y', 'a"b', '{z}'], articles: [{ title: 'T', scores: [1, 7], meta: { a: [1, 'b'] } }, { title: null, scores: null, meta: null }] },
      { name: 'T', tags: [], articles: [{ title: '{"k"}', scores: [], meta: null }] },
    ] } } });
    const again = await gql(e, { query, variables: { t: 'U', tags: ['c'] } });
    expect((again.body as { data: { insert_author: { returning: { name: string; articles: { title: string | null; scores: number[] | null }[] }[] } } }).data.insert_author.returning.map((a) => [a.name, a.articles[0]?.title, a.articles[0]?.scores]))
      .toEqual([['A "q" \\ b', 'U', [1, 7]], ['U', '{"k"}', []]]);
  });
});
