import { describe, expect, it } from 'vitest';
import { post } from '../helpers/engine.js';
import { gql, gqlErr, q, useExampleEngine } from './graphql-fixture.js';

// graphql-api.md §1.2 with an admin secret: on /v1/graphql a GraphQL body with HTTP 200, as the incumbent answers
// (issue 27; /v1/query and /api/rest keep the engine-api.md envelope and 401); the secret plus a role selects that
// role's schema; session variables reach functions' session arguments; connections run in UTC.

const SECRET = 's3cret';
const e = useExampleEngine({ adminSecret: SECRET });
const withSecret = (h: Record<string, string> = {}) => ({ 'x-engine-admin-secret': SECRET, ...h });

describe('§1.2 caller resolution on /v1/graphql', () => {
  it('a missing or wrong secret is HTTP 200 with a GraphQL error (access-denied at $); the body is not read', async () => {
    const missing = await gql(e, { query: '{ __typename }' }, {});
    expect(missing.status).toBe(200);
    expect(missing.text).toBe(JSON.stringify(gqlErr('x-engine-admin-secret required, but not found', '$', 'access-denied')));
    const wrong = await gql(e, 'not even json', { 'x-engine-admin-secret': 'nope', 'x-engine-role': 'user' });
    expect(wrong.status).toBe(200);
    expect(wrong.text).toBe('{"errors":[{"message":"invalid x-engine-admin-secret","extensions":{"path":"$","code":"access-denied"}}]}');
  });

  it('/v1/query and /api/rest keep the engine-api.md envelope and 401', async () => {
    const query = await post(`${e.url}/v1/query`, { type: 'export_metadata', args: {} }, {});
    expect([query.status, query.text]).toEqual([401, '{"path":"$","error":"x-engine-admin-secret required, but not found","code":"access-denied"}']);
    const rest = await post(`${e.url}/api/rest/anything`, {}, { 'x-engine-admin-secret': 'nope' });
    expect([rest.status, rest.text]).toEqual([401, '{"path":"$","error":"invalid x-engine-admin-secret","code":"access-denied"}']);
  });

  it('the secret alone is admin; with X-Engine-Role the role\'s schema; an empty role header is admin', async () => {
    expect(await q(e, '{ author_aggregate { aggregate { count } } }', withSecret())).toEqual({ data: { author_aggregate: { aggregate: { count: 3 } } } });
    expect(await q(e, '{ article { id } }', withSecret({ 'x-engine-role': 'anonymous' }))).toEqual({ data: { article: expect.any(Array) } });
    expect(await q(e, '{ author_aggregate { aggregate { count } } }', withSecret({ 'x-engine-role': '' }))).toEqual({ data: { author_aggregate: { aggregate: { count: 3 } } } });
    expect(((await q(e, '{ author_aggregate { aggregate { count } } }', withSecret({ 'x-engine-role': 'Admin' }))) as { errors: unknown[] }).errors).toHaveLength(1);
  });
});

describe('session arguments and time zone', () => {
  it('a tracked function and a computed field receive the session variables as json', async () => {
    await e.ok({ type: 'run_sql', args: { sql: `
      CREATE FUNCTION my_articles(hasura_session json) RETURNS SETOF article STABLE LANGUAGE sql AS
        $$ SELECT * FROM article WHERE author_id = (hasura_session->>'x-engine-user-id')::int $$;
      CREATE FUNCTION author_whoami(a author, s jsonb) RETURNS text STABLE LANGUAGE sql AS $$ SELECT a.name || ':' || (s->>'x-engine-role') $$;` } });
    await e.ok({ type: 'bulk', args: [
      { type: 'track_function', args: { function: 'my_articles', configuration: { session_argument: 'hasura_session' } } },
      { type: 'add_computed_field', args: { table: 'author', name: 'whoami', definition: { function: 'author_whoami', session_argument: 's' } } },
    ] });
    const h = withSecret({ 'x-engine-role': 'user', 'x-engine-user-id': '1' });
    expect(await q(e, '{ my_articles(order_by: {id: asc}) { id } }', h)).toEqual({ data: { my_articles: [{ id: 1 }, { id: 2 }] } });
    expect(await q(e, '{ author_by_pk(id: 2) { whoami } }', withSecret())).toEqual({ data: { author_by_pk: { whoami: 'Bob:admin' } } });
  });

  it('timestamptz values are written in UTC whatever the session time zone', async () => {
    await e.db.runScript("SET TIME ZONE 'America/New_York'; UPDATE author SET created_at = '2024-05-01 12:00:00+02' WHERE id = 1");
    expect(await q(e, '{ author_by_pk(id: 1) { created_at } }', withSecret())).toEqual({ data: { author_by_pk: { created_at: '2024-05-01T10:00:00+00:00' } } });
    await e.db.runScript("SET TIME ZONE 'UTC'");
  });
});
