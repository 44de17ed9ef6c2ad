import { describe, expect, it } from 'vitest';
import { useTestEngine, type TestEngine } from '../helpers/engine.js';
import { expectError, qt, write } from '../helpers/assertions.js';
import { as, gql, gqlErr } from './graphql-fixture.js';

// Issue 29 points 6 (tracked functions as the incumbent exposes them) and ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS:
// a function returning one row of a tracked table is an object root field (its first row, or null) with the list
// arguments; a scalar-returning one is refused, as the incumbent refuses it; with the setting false a role gets a
// function's root fields only through a function permission (its own or a member role's).

const SQL = `create table account (id int primary key, name text, owner int);
  insert into account values (1, 'one', 1), (2, 'two', 2), (3, 'three', 1);
  create function account_by_id(want int) returns account stable language sql as $$ select * from account where id = want $$;
  create function accounts_named(q text) returns setof account stable language sql as $$ select * from account where name like q $$;
  create function account_count() returns int stable language sql as $$ select count(*)::int from account $$;
  create function my_account(hasura_session json) returns account stable language sql
    as $$ select * from account where id = coalesce(hasura_session ->> 'x-hasura-user-id', hasura_session ->> 'x-engine-user-id')::int $$`;

async function setup(e: TestEngine): Promise<void> {
  await e.sql(SQL);
  await write(e, { type: 'track_table', args: 'account' });
  await write(e, { type: 'create_select_permission', args: { table: 'account', role: 'user', permission: { columns: ['id', 'name'], filter: { owner: { _eq: 'X-Hasura-User-Id' } }, allow_aggregations: true } } });
  await write(e, { type: 'create_select_permission', args: { table: 'account', role: 'guest', permission: { columns: ['id'], filter: {} } } });
  await write(e, { type: 'add_inherited_role', args: { role_name: 'member', role_set: ['guest'] } });
  await write(e, { type: 'track_function', args: 'account_by_id' });
  await write(e, { type: 'track_function', args: 'accounts_named' });
  await write(e, { type: 'track_function', args: { function: 'my_account', configuration: { session_argument: 'hasura_session' } } });
}

const USER1 = as('user', 1);
const data = (d: unknown) => ({ data: d });
const typeOf = async (e: TestEngine, field: string) => {
  const r = await gql(e, { query: '{ __schema { queryType { fields { name type { kind name ofType { kind name } } args { name } } } } }' });
  const fields = (r.body as { data: { __schema: { queryType: { fields: { name: string; type: unknown; args: { name: string }[] }[] } } } }).data.__schema.queryType.fields;
  const f = fields.find((x) => x.name === field);
  return f ? { type: f.type, args: f.args.map((a) => a.name) } : undefined;
};

describe('tracked functions returning one row (the incumbent\'s object root field)', () => {
  const e = useTestEngine({ setup });

  it('is a nullable object field with the function and list arguments, and an aggregate field', async () => {
    expect(await typeOf(e, 'account_by_id')).toEqual({ type: { kind: 'OBJECT', name: 'account', ofType: null }, args: ['args', 'distinct_on', 'limit', 'offset', 'order_by', 'where'] });
    expect((await typeOf(e, 'account_by_id_aggregate'))?.type).toEqual({ kind: 'NON_NULL', name: null, ofType: { kind: 'OBJECT', name: 'account_aggregate' } });
    expect((await typeOf(e, 'accounts_named'))?.type).toEqual({ kind: 'NON_NULL', name: null, ofType: { kind: 'LIST', name: null } });
  });

  it('answers the row, or null when the function returns none, where filters it out or the permission hides it', async () => {
    expect((await gql(e, { query: '{ account_by_id(args: {want: 2}) { id name } }' })).body).toEqual(data({ account_by_id: { id: 2, name: 'two' } }));
    expect((await gql(e, { query: '{ account_by_id(args: {want: 9}) { id } }' })).body).toEqual(data({ account_by_id: null }));
    expect((await gql(e, { query: '{ account_by_id(args: {want: 2}, where: {name: {_eq: "one"}}) { id } }' })).body).toEqual(data({ account_by_id: null }));
    expect((await gql(e, { query: '{ account_by_id(args: {want: 3}) { id } a: account_by_id_aggregate(args: {want: 3}) { aggregate { count } } }' }, USER1)).body)
      .toEqual(data({ account_by_id: { id: 3 }, a: { aggregate: { count: 1 } } }));
    expect((await gql(e, { query: '{ account_by_id(args: {want: 2}) { id } }' }, USER1)).body).toEqual(data({ account_by_id: null }));
  });

  it('takes the session argument, as a SETOF function does', async () => {
    expect((await gql(e, { query: '{ my_account { id name } }' }, USER1)).body).toEqual(data({ my_account: { id: 1, name: 'one' } }));
    // User 3's row (id 3) belongs to user 1: the select filter hides it.
    expect((await gql(e, { query: '{ my_account { id name } }' }, as('user', 3))).body).toEqual(data({ my_account: null }));
  });

  it('refuses a function returning a scalar (the incumbent cannot track it either), changing nothing', async () => {
    const reason = 'in function "account_count": the function "account_count" does not return a "COMPOSITE" type; only functions returning rows of a tracked table can be tracked';
    await expectError(e, { type: 'track_function', args: 'account_count' }, 400,
      { path: '$.args', error: reason, code: 'constraint-violation', internal: [{ definition: { function: qt('account_count') }, reason, type: 'function' }] });
  });
});

describe('ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS=false', () => {
  const e = useTestEngine({ setup, http: { inferFunctionPermissions: false } });
  const notFound = (f: string) => gqlErr(`field "${f}" not found in type: 'query_root'`, `$.selectionSet.${f}`, 'validation-failed');

  it('a role that may select the returned table gets no function field without a function permission', async () => {
    for (const f of ['account_by_id', 'accounts_named', 'account_by_id_aggregate']) {
      expect((await gql(e, { query: `{ ${f}(args: {${f === 'accounts_named' ? 'q: "%"' : 'want: 1'}}) { __typename } }` }, USER1)).body).toEqual(notFound(f));
    }
    expect((await gql(e, { query: '{ account(order_by: {id: asc}) { id } }' }, USER1)).body).toEqual(data({ account: [{ id: 1 }, { id: 3 }] }));
    // admin needs none.
    expect((await gql(e, { query: '{ account_by_id(args: {want: 2}) { id } }' })).body).toEqual(data({ account_by_id: { id: 2 } }));
  });

  it('a function permission grants the function\'s fields, the table\'s select permission still filtering; dropping it takes them away', async () => {
    await write(e, { type: 'pg_create_function_permission', args: { source: 'default', function: 'accounts_named', role: 'user' } });
    expect((await gql(e, { query: '{ accounts_named(args: {q: "t%"}, order_by: {id: asc}) { id name } }' }, USER1)).body)
      .toEqual(data({ accounts_named: [{ id: 3, name: 'three' }] }));
    expect((await gql(e, { query: '{ account_by_id(args: {want: 1}) { id } }' }, USER1)).body).toEqual(notFound('account_by_id'));
    await write(e, { type: 'drop_function_permission', args: { function: 'accounts_named', role: 'user' } });
    expect((await gql(e, { query: '{ accounts_named(args: {q: "%"}) { id } }' }, USER1)).body).toEqual(notFound('accounts_named'));
  });

  it('an inherited role gets a function its member role has a permission for', async () => {
    expect((await gql(e, { query: '{ account_by_id(args: {want: 2}) { id } }' }, as('member'))).body).toEqual(notFound('account_by_id'));
    await write(e, { type: 'create_function_permission', args: { function: 'account_by_id', role: 'guest' } });
    for (const role of ['guest', 'member']) {
      expect((await gql(e, { query: '{ account_by_id(args: {want: 2}) { id } }' }, as(role))).body).toEqual(data({ account_by_id: { id: 2 } }));
    }
  });

  it('a function permission for a role that may not select the returned table is refused, as the incumbent refuses it', async () => {
    await expectError(e, { type: 'create_function_permission', args: { function: 'account_by_id', role: 'stranger' } }, 400,
      { path: '$.args', error: 'function permission can only be added when the function\'s return table "account" has select permission configured for role: "stranger"', code: 'not-supported' });
  });
});
