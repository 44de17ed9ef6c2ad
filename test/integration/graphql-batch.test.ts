import { describe, expect, it } from 'vitest';
import { gql, gqlErr, q, USER1, useExampleEngine } from './graphql-fixture.js';

// Issue 29 point 8: a JSON array body is a batch (as the incumbent): an array of results in order, each element its own
// request and transaction; a failing element answers its own error in its slot.

const e = useExampleEngine();

describe('batched requests on POST /v1/graphql', () => {
  it('answers an array of results in order, each with its own variables and operation', async () => {
    const r = await gql(e, [
      { query: 'query A($id: Int!) { author_by_pk(id: $id) { name } }', variables: { id: 2 } },
      { query: 'query X { a: author(where: {id: {_eq: 1}}) { name } } query Y { b: author(where: {id: {_eq: 3}}) { name } }', operationName: 'Y' },
      { query: '{ __typename }' },
    ]);
    expect(r.status).toBe(200);
    expect(r.text).toBe('[{"data":{"author_by_pk":{"name" : "Bob"}}},{"data":{"b":[{"name" : "Cid"}]}},{"data":{"__typename":"query_root"}}]');
  });

  it('a failing element (parse, validation, execution, not an object) fails in its slot; the others run and commit', async () => {
    const r = await gql(e, [
      { query: 'mutation { insert_author_one(object: {name: "Dee"}) { name } }' },
      { query: '{ author(' },
      { query: '{ nope }' },
      { query: 'mutation { insert_author_one(object: {id: 1, name: "Dup"}) { name } }' },
      7,
      { variables: {} },
      { query: 'mutation { insert_author_one(object: {name: "Eve"}) { name } }' },
    ]);
    expect(r.status).toBe(200);
    const slots = r.body as { errors?: { extensions: { code: string; path: string } }[] }[];
    expect(slots).toHaveLength(7);
    expect(slots[0]).toEqual({ data: { insert_author_one: { name: 'Dee' } } });
    expect(slots[1]!.errors![0]!.extensions.code).toBe('parse-failed');
    expect(slots[2]).toEqual(gqlErr('field "nope" not found in type: \'query_root\'', '$.selectionSet.nope', 'validation-failed'));
    expect(slots[3]!.errors![0]!.extensions.code).toBe('constraint-violation');
    expect(slots[4]).toEqual(gqlErr('expected Object, encountered Number', '$', 'parse-failed'));
    expect(slots[5]).toEqual(gqlErr('the key "query" was not present', '$', 'parse-failed'));
    expect(slots[6]).toEqual({ data: { insert_author_one: { name: 'Eve' } } });
    expect(await q(e, '{ author(order_by: {id: asc}) { name } }')).toEqual({ data: { author: [{ name: 'Ann' }, { name: 'Bob' }, { name: 'Cid' }, { name: 'Dee' }, { name: 'Eve' }] } });
  });

  it('an empty array answers an empty array; a role applies to every element', async () => {
    expect((await gql(e, [])).text).toBe('[]');
    const one = await q(e, '{ article { id } }', USER1);
    const r = await gql(e, [{ query: '{ article { id } }' }, { query: '{ article { id } }' }], USER1);
    expect(r.body).toEqual([one, one]);
  });

  it('invalid JSON stays one error for the whole body', async () => {
    expect((await gql(e, '[{"query": "{ __typename }"},')).body).toEqual(gqlErr('request body is not valid JSON', '$', 'invalid-json'));
  });
});
