import { describe, expect, it } from 'vitest';
import { post, useTestEngine, type TestEngine } from '../helpers/engine.js';

// Issue 30.7: POST /v1/graphql/explain as the incumbent's explain API: admin only, the query planned as the role and
// session variables of `user`, per root field its SQL (parameters written in) and PostgreSQL's plan.

const SQL = `
CREATE TABLE "user" (id serial PRIMARY KEY, name text NOT NULL, age integer);
INSERT INTO "user" (name, age) VALUES ('Ann', 30), ('Bob', 40);
`;
const e: TestEngine = useTestEngine({
  setup: async (t) => {
    await t.sql(SQL);
    await t.ok({ type: 'bulk', args: [
      { type: 'track_table', args: { table: { schema: 'public', name: 'user' } } },
      { type: 'create_select_permission', args: { table: 'user', role: 'user', permission: { columns: '*', filter: { id: 'X-Hasura-User-Id' } } } },
      // Fields only in the subscription root: `sub` subscribes to what it may not query; `nosub` the reverse.
      { type: 'create_select_permission', args: { table: 'user', role: 'sub', permission: { columns: '*', filter: {}, query_root_fields: [], subscription_root_fields: ['select', 'select_stream'] } } },
      { type: 'create_select_permission', args: { table: 'user', role: 'nosub', permission: { columns: '*', filter: {}, subscription_root_fields: [] } } },
      { type: 'set_custom_types', args: { objects: [{ name: 'Pong', fields: [{ name: 'ok', type: 'String' }] }] } },
      { type: 'create_action', args: { name: 'ping', definition: { handler: 'http://127.0.0.1:9/ping', output_type: 'Pong', kind: 'synchronous', type: 'query' } } },
    ] });
  },
});

const explain = (body: unknown, headers: Record<string, string> = {}) => post(`${e.url}/v1/graphql/explain`, body, headers);

describe('POST /v1/graphql/explain', () => {
  it('answers per root field the SQL with its parameters written in and the plan; constants have neither', async () => {
    const r = await explain({ query: { query: 'query q($n: Int) { __typename user(limit: $n) { id name } }', variables: { n: 5 }, operationName: 'q' } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual([{ field: '__typename', sql: null, plan: null }, { field: 'user', sql: expect.any(String), plan: expect.any(Array) }]);
    const user = r.body[1] as { sql: string; plan: string[] };
    expect(user.sql).toContain('FROM "public"."user"');
    expect(user.sql).toContain("LIMIT '5'::integer");
    expect(user.sql).not.toMatch(/\$\d/);
    expect(user.plan.length).toBeGreaterThan(0);
    expect(user.plan.join('\n')).toMatch(/Scan|Limit|Result/);
  });

  it('plans as the role and session variables of `user`: the permission filter with its value', async () => {
    const r = await explain({ query: { query: '{ user { name } }' }, user: { 'X-Hasura-Role': 'user', 'X-Hasura-User-Id': '2' } });
    expect(r.status).toBe(200);
    expect(r.body[0].field).toBe('user');
    expect(r.body[0].sql).toContain("'2'::integer");
  });

  it('explains a live query as the multiplexed statement its cohort runs, with the cohort\'s parameters written in', async () => {
    const r = await explain({ query: { query: 'subscription s($n: Int) { user(limit: $n) { name } }', variables: { n: 1 }, operationName: 's' } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ sql: expect.stringContaining('"public"."user"'), plan: expect.any(Array) });
    expect(r.body.sql).toContain('jsonb_array_elements(\'[["1"]]\'::jsonb) WITH ORDINALITY');
    expect(r.body.sql).not.toMatch(/\$\d/);
    expect(r.body.plan.join('\n')).toMatch(/Nested Loop|Function Scan/);
  });

  it('explains a `_stream` field (only in the subscription root) as its first batch after the initial cursor', async () => {
    const q = 'subscription { user_stream(batch_size: 2, cursor: {initial_value: {id: 1}, ordering: ASC}) { id name } }';
    const r = await explain({ query: { query: q } });
    expect(r.status).toBe(200);
    expect(r.body.sql).toContain('"public"."user"');
    expect(r.body.sql).toMatch(/"id" > /);
    expect(r.body.plan.length).toBeGreaterThan(0);
    // A query cannot name it: the explain of a query plans on the query root.
    const asQuery = await explain({ query: { query: q.replace('subscription', 'query') } });
    expect(asQuery.status).toBe(400);
    expect(asQuery.body).toEqual({ path: '$.selectionSet.user_stream', error: "field \"user_stream\" not found in type: 'query_root'", code: 'validation-failed' });
  });

  it('plans on the role\'s subscription root: a field its subscription_root_fields allow and its query root lacks', async () => {
    const user = { 'X-Hasura-Role': 'sub' };
    const r = await explain({ query: { query: 'subscription { user { name } }' }, user });
    expect(r.status).toBe(200);
    expect(r.body.sql).toContain('"public"."user"');
    const stream = await explain({ query: { query: 'subscription { user_stream(batch_size: 1, cursor: {initial_value: {id: 0}}) { id } }' }, user });
    expect(stream.status).toBe(200);
    const asQuery = await explain({ query: { query: '{ user { name } }' }, user });
    expect(asQuery.status).toBe(400);
    expect(asQuery.body.code).toBe('validation-failed');
  });

  const errors: [string, unknown, Record<string, string>, { path: string; error: string; code: string }][] = [
    ['a caller that is not admin', { query: { query: '{ __typename }' } }, { 'x-engine-role': 'user' }, { path: '$', error: 'You have to be an admin to access this endpoint', code: 'access-denied' }],
    ['a mutation', { query: { query: 'mutation { __typename }' } }, {}, { path: '$', error: 'only queries can be explained', code: 'invalid-params' }],
    ['an unknown field', { query: { query: '{ nope }' } }, {}, { path: '$.selectionSet.nope', error: "field \"nope\" not found in type: 'query_root'", code: 'validation-failed' }],
    ['a missing session variable', { query: { query: '{ user { id } }' }, user: { 'x-hasura-role': 'user' } }, {}, { path: '$', error: 'missing session variable: "x-hasura-user-id"', code: 'not-found' }],
    ['a query action', { query: { query: '{ ping { ok } }' } }, {}, { path: '$', error: 'query actions cannot be explained', code: 'invalid-params' }],
    ['a subscription field the role\'s subscription root lacks', { query: { query: 'subscription { user { id } }' }, user: { 'x-hasura-role': 'nosub' } }, {}, { path: '$.selectionSet.user', error: "field \"user\" not found in type: 'subscription_root'", code: 'validation-failed' }],
    ['a stream the role may not stream', { query: { query: 'subscription { user_stream(batch_size: 1, cursor: {initial_value: {id: 0}}) { id } }' }, user: { 'x-hasura-role': 'nosub' } }, {}, { path: '$.selectionSet.user_stream', error: "field \"user_stream\" not found in type: 'subscription_root'", code: 'validation-failed' }],
    ['a stream with a bad batch_size', { query: { query: 'subscription { user_stream(batch_size: -1, cursor: {initial_value: {id: 0}}) { id } }' } }, {}, { path: '$.selectionSet.user_stream.args.batch_size', error: 'the argument "batch_size" must be a non-negative Int', code: 'validation-failed' }],
    ['a body without query', { user: {} }, {}, { path: '$.query', error: 'expected an object with the GraphQL request ("query", "variables", "operationName")', code: 'parse-failed' }],
  ];
  for (const [what, body, headers, expected] of errors) {
    it(`refuses ${what} with the incumbent's 400`, async () => {
      const before = await e.state();
      const r = await explain(body, headers);
      expect(r.status).toBe(400);
      expect(r.body).toEqual(expected);
      expect(await e.state()).toEqual(before);
    });
  }
});
