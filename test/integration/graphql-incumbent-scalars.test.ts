import { describe, expect, it } from 'vitest';
import { post, useTestEngine, type TestEngine } from '../helpers/engine.js';

// Issue 29.8: the scalar names the incumbent generates (only integer, real, boolean, text and varchar are GraphQL's
// own Int, Float, Boolean, String), and `offset` given as a numeric string (the incumbent parses it as a bigint) while
// `limit: "3"` stays an error, as there.

const SQL = `CREATE TABLE t (id integer PRIMARY KEY, s smallint, b bigint, x numeric, r real, f double precision, c character(2),
  v varchar(5), tx text, nm name, ts timestamptz, ok boolean);
INSERT INTO t (id, s, c) VALUES (1, 1, 'a'), (2, 2, 'b'), (3, 3, 'c');`;

const setup = async (e: TestEngine): Promise<void> => {
  await e.sql(SQL);
  await e.ok({ type: 'pg_track_table', args: { table: 't' } });
};

const gql = async (e: TestEngine, query: string): Promise<unknown> => (await post(`${e.url}/v1/graphql`, { query })).body;

describe('the incumbent\'s scalar names and string offsets', () => {
  const e = useTestEngine({ setup });

  it('introspection names each column type as the incumbent does', async () => {
    const body = await gql(e, '{ __type(name: "t") { fields { name type { name ofType { name } } } } }') as
      { data: { __type: { fields: { name: string; type: { name: string | null; ofType: { name: string } | null } }[] } } };
    const types = Object.fromEntries(body.data.__type.fields.map((f) => [f.name, f.type.name ?? f.type.ofType?.name]));
    expect(types).toEqual({
      id: 'Int', s: 'smallint', b: 'bigint', x: 'numeric', r: 'Float', f: 'float8', c: 'bpchar', v: 'String', tx: 'String',
      nm: 'name', ts: 'timestamptz', ok: 'Boolean',
    });
    expect(await gql(e, '{ __type(name: "float8_comparison_exp") { name } }')).toEqual({ data: { __type: { name: 'float8_comparison_exp' } } });
    expect(await gql(e, '{ t(where: {s: {_gt: 1}, c: {_eq: "b"}}) { id s c } }')).toEqual({ data: { t: [{ id: 2, s: 2, c: 'b ' }] } });
  });

  it('offset takes a numeric string; limit does not; a negative offset string is refused', async () => {
    expect(await gql(e, '{ t(offset: "1", limit: 1, order_by: {id: desc}) { id } }')).toEqual({ data: { t: [{ id: 2 }] } });
    expect(await gql(e, '{ t(limit: "3", offset: 1) { id } }')).toEqual({
      errors: [{ message: 'invalid value for type "Int": "3"', extensions: { path: '$.selectionSet.t.args.limit', code: 'validation-failed' } }],
    });
    expect(await gql(e, '{ t(offset: "-1") { id } }')).toEqual({
      errors: [{ message: 'invalid value for type "Int": "-1"', extensions: { path: '$.selectionSet.t.args.offset', code: 'validation-failed' } }],
    });
  });
});
