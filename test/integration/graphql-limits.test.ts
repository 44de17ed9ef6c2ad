import { describe, expect, it } from 'vitest';
import { gql, gqlErr, useExampleEngine, USER1 } from './graphql-fixture.js';

// Issue 28 point 1: the node limit (fields after fragment expansion), the alias limit, PostgreSQL's 1,664 target
// columns, and a selection that repeats one field a thousand times (valid GraphQL: the fields merge).

const vf = (message: string, path = '$') => gqlErr(message, path, 'validation-failed');
const NESTED = 'author { articles { author { articles { author { articles { author { articles { id } } } } } } } }';
const aliases = (n: number, field: string) => Array.from({ length: n }, (_, i) => `a${i}: ${field}`).join(' ');

describe('default limits', () => {
  const e = useExampleEngine();

  it('2,000 aliases of a nested query are refused by the node limit before any SQL, and nothing changed', async () => {
    const before = await e.state();
    const query = `{ ${aliases(2000, `article { ${NESTED} }`)} }`;
    expect(query.length).toBeGreaterThan(117_000);
    const r = await gql(e, { query }, USER1);
    expect(r.status).toBe(200);
    expect(r.body).toEqual(vf('the query has more than 10000 fields (node limit)'));
    expect(await e.state()).toEqual(before);
  });

  it('fields are counted with fragments expanded: a fragment spread twice per level doubles them', async () => {
    // F0 has 2 fields; Fi spreads F(i-1) under two aliases: 2^(i+1) fields, though the document stays small.
    const frags = ['fragment F0 on article { id title }'];
    for (let i = 1; i <= 13; i++) frags.push(`fragment F${i} on article { ...F${i - 1} ...F${i - 1} }`);
    const r = await gql(e, { query: `{ article { ...F13 } } ${frags.join(' ')}` });
    expect(r.body).toEqual(vf('the query has more than 10000 fields (node limit)'));
    // 2^13 = 8,192 fields plus the root field: within the limit, and merged to two keys.
    const ok = await gql(e, { query: `{ article(order_by: {id: asc}) { ...F12 } } ${frags.slice(0, 13).join(' ')}` });
    expect(ok.body).toEqual({ data: { article: [{ id: 1, title: 'Intro' }, { id: 2, title: 'Draft' }, { id: 3, title: 'News' }] } });
  });

  it('10,000 fields are answered; 10,001 are refused', async () => {
    const at = await gql(e, { query: `{ ${Array.from({ length: 5000 }, () => 'article_by_pk(id: 1) { id }').join(' ')} }` });
    expect(at.body).toEqual({ data: { article_by_pk: { id: 1 } } });
    const over = await gql(e, { query: `{ __typename ${Array.from({ length: 5000 }, () => 'article_by_pk(id: 1) { id }').join(' ')} }` });
    expect(over.body).toEqual(vf('the query has more than 10000 fields (node limit)'));
  });

  it('1,000 aliases are answered; 1,001 are refused by the alias limit, fragments expanded', async () => {
    const ok = await gql(e, { query: `{ ${aliases(1000, '__typename')} }` });
    expect(Object.keys(ok.body.data)).toHaveLength(1000);
    expect((await gql(e, { query: `{ ${aliases(1001, '__typename')} }` })).body).toEqual(vf('the query has more than 1000 aliases (alias limit)'));
    const twice = await gql(e, { query: `{ ...F ...G } fragment F on query_root { ${aliases(600, '__typename')} } fragment G on query_root { ...F }` });
    expect(twice.body).toEqual(vf('the query has more than 1000 aliases (alias limit)'));
  });

  it('a field repeated 1,000 times is answered (its copies merge), as is one repeated with its sub-selection', async () => {
    const r = await gql(e, { query: `{ article(order_by: {id: asc}) { ${'title '.repeat(1000)} } }` }, USER1);
    expect(r.body).toEqual({ data: { article: [{ title: 'Intro' }, { title: 'Draft' }, { title: 'News' }] } });
    const nested = await gql(e, { query: `{ author_by_pk(id: 1) { ${'name articles(order_by: {id: asc}) { id } '.repeat(1000)} } }` });
    expect(nested.body).toEqual({ data: { author_by_pk: { name: 'Ann', articles: [{ id: 1 }, { id: 2 }] } } });
  });

  it('repetitions keep validation errors where they were: the first in document order', async () => {
    const r = await gql(e, { query: `{ article { ${'title '.repeat(500)} nope ${'title '.repeat(500)} } }` });
    expect(r.body).toEqual(vf('field "nope" not found in type: \'article\'', '$.selectionSet.article.selectionSet.nope'));
    const conflict = await gql(e, { query: `{ article { ${'x: title '.repeat(500)} x: id } }` });
    expect(conflict.body).toEqual(vf('Fields "x" conflict because "title" and "id" are different fields. Use different aliases on the fields to fetch both if this was intentional.'));
  });

  it('a response key given a thousand different ways is a clear error when graphql-js gives up validating it', async () => {
    const n = 1000;
    const vars = Array.from({ length: n }, (_, i) => `$v${i}: Boolean!`).join(' ');
    const query = `query (${vars}) { article { ${Array.from({ length: n }, (_, i) => `title @skip(if: $v${i})`).join(' ')} } }`;
    const r = await gql(e, { query, variables: Object.fromEntries(Array.from({ length: n }, (_, i) => [`v${i}`, false])) });
    expect(r.body).toEqual(vf('the query is too complex to validate (beyond the validator\'s budget for comparing fields and fragments)'));
  });
});

describe('configured limits (--node-limit, --alias-limit)', () => {
  const e = useExampleEngine({ graphqlLimits: { nodes: 5, aliases: 4000 } });

  it('the node limit is the configured one', async () => {
    expect((await gql(e, { query: '{ article { id title author { id } } }' })).body).toHaveProperty('data');
    expect((await gql(e, { query: '{ article { id title author { id name } } }' })).body).toEqual(vf('the query has more than 5 fields (node limit)'));
  });
});

describe('PostgreSQL\'s 1,664 target columns', () => {
  const e = useExampleEngine({ graphqlLimits: { nodes: 10_000, aliases: 4000 } });

  it('1,664 keys in one object are answered; 1,665 are refused at that object, before any SQL', async () => {
    const ok = await gql(e, { query: `{ article_by_pk(id: 1) { ${aliases(1664, 'title')} } }` }, USER1);
    expect(Object.keys(ok.body.data.article_by_pk)).toHaveLength(1664);
    const r = await gql(e, { query: `{ article_by_pk(id: 1) { author { ${aliases(1665, 'name')} } } }` }, USER1);
    expect(r.body).toEqual(vf('more than 1664 fields selected in one object (PostgreSQL\'s limit of target columns)', '$.selectionSet.article_by_pk.selectionSet.author'));
  });

  it('keys are counted after merging: the same keys from several nodes and fragments count once', async () => {
    const half = aliases(1000, 'title');
    const r = await gql(e, { query: `{ article_by_pk(id: 1) { ${half} ...F } } fragment F on article { ${half} id }` }, USER1);
    expect(Object.keys(r.body.data.article_by_pk)).toHaveLength(1001);
    const wide = `{ article_by_pk(id: 1) { ${aliases(1000, 'title')} } article_by_pk(id: 1) { ${Array.from({ length: 665 }, (_, i) => `b${i}: id`).join(' ')} } }`;
    expect((await gql(e, { query: wide }, USER1)).body).toEqual(vf('more than 1664 fields selected in one object (PostgreSQL\'s limit of target columns)', '$.selectionSet.article_by_pk'));
  });
});
