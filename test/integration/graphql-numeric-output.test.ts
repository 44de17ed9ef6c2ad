import { describe, expect, it } from 'vitest';
import { post, useTestEngine, type TestEngine } from '../helpers/engine.js';

// Issue 29.8 (replacing graphql-api.md §8 decisions 2 and 4): bigint and numeric, and their aggregates, are JSON
// numbers with every digit PostgreSQL prints (the incumbent's default); ENGINE_GRAPHQL_STRINGIFY_NUMERIC_TYPES=true
// answers bigint, numeric and float8 as strings. Inputs take numbers and strings either way. Bodies are compared as
// text: JSON.parse would round the digits this file is about.

const SQL = `CREATE TABLE n (id integer PRIMARY KEY, b bigint, x numeric, f double precision, s smallint, r real, c character(3), nm name);
INSERT INTO n VALUES (1, 9007199254740993, 123456789012345678901234.5, 1.5, 7, 2.5, 'ab', 'n1'), (2, 2, 0.10, 0.25, 1, 1, 'cd', 'n2');`;

const setup = async (e: TestEngine): Promise<void> => {
  await e.sql(SQL);
  await e.ok({ type: 'pg_track_table', args: { table: 'n' } });
};

const gqlText = async (e: TestEngine, query: string, variables?: unknown): Promise<string> => {
  const r = await post(`${e.url}/v1/graphql`, variables === undefined ? { query } : { query, variables });
  expect(r.status).toBe(200);
  // PostgreSQL's JSON spacing aside (no string here holds a space).
  return r.text.replace(/\s/g, '');
};

describe('bigint and numeric as JSON numbers (the default)', () => {
  const e = useTestEngine({ setup });

  it('columns, aggregates and mutation returning print every digit', async () => {
    expect(await gqlText(e, '{ n(order_by: {id: asc}) { b x f s } }'))
      .toBe('{"data":{"n":[{"b":9007199254740993,"x":123456789012345678901234.5,"f":1.5,"s":7},{"b":2,"x":0.10,"f":0.25,"s":1}]}}');
    // avg is a Float (float8) but for numeric columns, as the incumbent types it (issue 29 point 5).
    expect(await gqlText(e, '{ n_aggregate { aggregate { sum { b x } max { b } avg { s b f x } } } }'))
      .toBe('{"data":{"n_aggregate":{"aggregate":{"sum":{"b":9007199254740995,"x":123456789012345678901234.60},"max":{"b":9007199254740993},"avg":{"s":4,"b":4.503599627370498e+15,"f":0.875,"x":61728394506172839450617.30}}}}}');
    expect(await gqlText(e, 'mutation { update_n_by_pk(pk_columns: {id: 1}, _inc: {b: 2}) { b } }'))
      .toBe('{"data":{"update_n_by_pk":{"b":9007199254740995}}}');
  });

  it('inputs take numbers and strings: literals, variables, where and insert', async () => {
    expect(await gqlText(e, '{ n(where: {b: {_eq: 9007199254740993}}) { id } }')).toBe('{"data":{"n":[{"id":1}]}}');
    expect(await gqlText(e, '{ n(where: {b: {_eq: "9007199254740993"}}) { id } }')).toBe('{"data":{"n":[{"id":1}]}}');
    expect(await gqlText(e, 'query ($b: bigint) { n(where: {b: {_eq: $b}}) { id } }', { b: '9007199254740993' })).toBe('{"data":{"n":[{"id":1}]}}');
    expect(await gqlText(e, 'query ($x: numeric) { n(where: {x: {_gt: $x}}) { id } }', { x: 0.5 })).toBe('{"data":{"n":[{"id":1}]}}');
    expect(await gqlText(e, 'mutation { insert_n_one(object: {id: 3, b: "12", x: 98765432109876543210.25, f: "0.5"}) { b x f } }'))
      .toBe('{"data":{"insert_n_one":{"b":12,"x":98765432109876543210.25,"f":0.5}}}');
  });
});

describe('ENGINE_GRAPHQL_STRINGIFY_NUMERIC_TYPES=true', () => {
  const e = useTestEngine({ setup, http: { stringifyNumeric: true } });

  it('bigint, numeric and float8 (columns and aggregates of such columns) are strings; integer, smallint and real (and their sums and averages, as the incumbent) stay numbers', async () => {
    expect(await gqlText(e, '{ n(order_by: {id: asc}, limit: 1) { id b x f s r } }'))
      .toBe('{"data":{"n":[{"id":1,"b":"9007199254740993","x":"123456789012345678901234.5","f":"1.5","s":7,"r":2.5}]}}');
    expect(await gqlText(e, '{ n_aggregate { aggregate { count sum { b s } avg { s } } } }'))
      .toBe('{"data":{"n_aggregate":{"aggregate":{"count":2,"sum":{"b":"9007199254740995","s":8},"avg":{"s":4}}}}}');
  });

  it('inputs still take numbers and strings', async () => {
    expect(await gqlText(e, '{ n(where: {b: {_eq: 9007199254740993}}) { id } }')).toBe('{"data":{"n":[{"id":1}]}}');
    expect(await gqlText(e, 'mutation { insert_n_one(object: {id: 3, b: 12, x: "1.25"}) { b x } }')).toBe('{"data":{"insert_n_one":{"b":"12","x":"1.25"}}}');
  });
});
