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

const gql = async (e: TestEngine, query: string, variables?: Record<string, unknown>): Promise<unknown> =>
  (await post(`${e.url}/v1/graphql`, variables ? { query, variables } : { query })).body;

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

  // Issue 30: a column's value may be a string whatever its type, even GraphQL's own Int, Float and Boolean; PostgreSQL
  // parses the text (as the incumbent passes it on).
  it('a column value given as a string: insert, _set, _inc, where, by_pk, in a variable\'s object', async () => {
    expect(await gql(e, `mutation { insert_t(objects: [{id: "10", s: "32767", b: "123456789012", x: "1.234", r: "0.00390625",
      f: "16.0001220703125", ok: "true"}]) { returning { id s b x r f ok } } }`)).toEqual({
      data: { insert_t: { returning: [{ id: 10, s: 32767, b: 123456789012, x: 1.234, r: 0.00390625, f: 16.0001220703125, ok: true }] } },
    });
    expect(await gql(e, 'mutation { update_t(where: {id: {_eq: "10"}, ok: {_eq: "true"}}, _set: {ok: "false", r: "1.5"}, _inc: {id: "1"}) { returning { id r ok } } }'))
      .toEqual({ data: { update_t: { returning: [{ id: 11, r: 1.5, ok: false }] } } });
    expect(await gql(e, '{ t_by_pk(id: "11") { id } t(where: {id: {_in: ["1", "11"]}}, order_by: {id: asc}) { id } }'))
      .toEqual({ data: { t_by_pk: { id: 11 }, t: [{ id: 1 }, { id: 11 }] } });
    const vars = { o: { id: '12', r: '2.5', ok: 'false' }, w: { id: { _in: ['12'] } } };
    expect(await gql(e, 'mutation ($o: t_insert_input!, $w: t_bool_exp!) { insert_t_one(object: $o) { id r ok } delete_t(where: $w) { affected_rows } }', vars))
      .toEqual({ data: { insert_t_one: { id: 12, r: 2.5, ok: false }, delete_t: { affected_rows: 1 } } });
  });

  it('a string PostgreSQL cannot parse for the column is its data exception; elsewhere Int and Boolean still refuse strings', async () => {
    // The admin's answer also has the statement (`internal`), as for any database error.
    const dbError = (body: unknown): unknown => {
      const [err] = (body as { errors: { message: string; extensions: { path: string; code: string } }[] }).errors;
      return { message: err?.message, path: err?.extensions.path, code: err?.extensions.code };
    };
    expect(dbError(await gql(e, 'mutation { insert_t(objects: [{id: "abc"}]) { affected_rows } }')))
      .toEqual({ message: 'invalid input syntax for type integer: "abc"', path: '$.selectionSet.insert_t', code: 'data-exception' });
    expect(dbError(await gql(e, 'mutation ($o: t_insert_input!) { insert_t_one(object: $o) { id } }', { o: { id: '1', ok: 'maybe' } })))
      .toEqual({ message: 'invalid input syntax for type boolean: "maybe"', path: '$.selectionSet.insert_t_one', code: 'data-exception' });
    expect(await gql(e, '{ t(where: {ok: {_is_null: "true"}}) { id } }')).toEqual({
      errors: [{ message: 'invalid value for type "Boolean": "true"', extensions: { path: '$.selectionSet.t.args.where.ok._is_null', code: 'validation-failed' } }],
    });
    expect(await gql(e, '{ t @include(if: "true") { id } }')).toMatchObject({
      errors: [{ message: 'invalid value for type "Boolean": "true"', extensions: { code: 'validation-failed' } }],
    });
    expect(await gql(e, 'query ($n: Int) { t(limit: $n) { id } }', { n: '1' })).toEqual({
      errors: [{ message: 'invalid value for type "Int": "1"', extensions: { path: '$.variables.n', code: 'validation-failed' } }],
    });
  });
});
