import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql, q, useExampleEngine } from './graphql-fixture.js';
import { HS_KEY, HS_SECRET, bearer, sign } from '../helpers/jwt.js';
import { startWebhook, type Webhook } from '../helpers/webhook.js';

// Issue 29.2: tokens and auth hooks as the incumbent issues them: `x-hasura-*` claims in its default namespace
// `https://hasura.io/jwt/claims`, `claims_namespace`, `claims_namespace_path` with `stringified_json`, `claims_map` with
// literal values and paths with defaults; a hook answering `X-Hasura-Role` / `X-Hasura-*`. The example's permissions
// are written with `X-Engine-User-Id`: the two prefixes name one variable. User 1 sees articles 1, 2 and 3; user 2 and
// the anonymous role see the published ones, 1 and 3.

const SECRET = 'admin-s3cret';
const ARTICLES = '{ article(order_by: {id: asc}) { id } }';
const ids = (body: unknown) => (body as { data: { article: { id: number }[] } }).data.article.map((a) => a.id);
const HASURA_NS = 'https://hasura.io/jwt/claims';
const incumbentClaims = (userId: string, extra: Record<string, unknown> = {}) =>
  ({ 'x-hasura-allowed-roles': ['user', 'anonymous'], 'x-hasura-default-role': 'user', 'x-hasura-user-id': userId, ...extra });
const jwt = (config: Record<string, unknown> = {}) => ({ adminSecret: SECRET, auth: { jwtSecret: JSON.stringify({ type: 'HS256', key: HS_SECRET, ...config }) } });

describe("JWT: the incumbent's default namespace", () => {
  const e = useExampleEngine(jwt());

  it('x-hasura-* claims under https://hasura.io/jwt/claims make the session; X-Hasura-Role picks an allowed role', async () => {
    const token = await sign({ [HASURA_NS]: incumbentClaims('1') }, HS_KEY);
    expect(ids(await q(e, ARTICLES, bearer(token)))).toEqual([1, 2, 3]);
    expect(ids(await q(e, ARTICLES, { ...bearer(token), 'X-Hasura-Role': 'anonymous' }))).toEqual([1, 3]);
    const r = await gql(e, { query: ARTICLES }, { ...bearer(token), 'X-Hasura-Role': 'editor' });
    expect(r.text).toBe('{"errors":[{"message":"your requested role is not in allowed roles","extensions":{"path":"$","code":"access-denied"}}]}');
    // Both role headers with different values: refused, never a pick.
    const both = await gql(e, { query: ARTICLES }, { ...bearer(token), 'X-Hasura-Role': 'anonymous', 'X-Engine-Role': 'user' });
    expect(both.body.errors[0].extensions).toEqual({ path: '$', code: 'access-denied' });
    expect(both.body.errors[0].message).toContain('session variable "role" is given twice with different values');
  });

  it("the engine's namespace comes first; claims naming one variable twice with different values are refused", async () => {
    const token = await sign({ 'https://engine/jwt/claims': incumbentClaims('2'), [HASURA_NS]: incumbentClaims('1') }, HS_KEY);
    expect(ids(await q(e, ARTICLES, bearer(token)))).toEqual([1, 3]);
    const twice = await sign({ [HASURA_NS]: incumbentClaims('1', { 'X-Engine-User-Id': '2' }) }, HS_KEY);
    expect((await gql(e, { query: ARTICLES }, bearer(twice))).text).toBe('{"errors":[{"message":"session variable \\"user-id\\" is given twice with different values (\\"X-Engine-User-Id\\" and \\"x-hasura-user-id\\"): send it under one prefix, x-engine- or x-hasura-","extensions":{"path":"$","code":"access-denied"}}]}');
  });
});

describe('JWT: claims_namespace', () => {
  const e = useExampleEngine(jwt({ claims_namespace: 'https://myapp.example/claims' }));
  it('reads x-hasura-* claims in the configured namespace only', async () => {
    expect(ids(await q(e, ARTICLES, bearer(await sign({ 'https://myapp.example/claims': incumbentClaims('1') }, HS_KEY))))).toEqual([1, 2, 3]);
    const elsewhere = await gql(e, { query: ARTICLES }, bearer(await sign({ [HASURA_NS]: incumbentClaims('1') }, HS_KEY)));
    expect(elsewhere.text).toBe('{"errors":[{"message":"Could not verify JWT: the claims namespace is missing","extensions":{"path":"$","code":"invalid-jwt"}}]}');
  });
});

describe('JWT: claims_namespace_path with stringified_json', () => {
  const e = useExampleEngine(jwt({ claims_namespace_path: '$.app.hasura', claims_format: 'stringified_json' }));
  it('reads the claims from JSON text at the path', async () => {
    const token = await sign({ app: { hasura: JSON.stringify(incumbentClaims('1')) } }, HS_KEY);
    expect(ids(await q(e, ARTICLES, bearer(token)))).toEqual([1, 2, 3]);
  });
});

describe('JWT: claims_map with literal values and paths with defaults', () => {
  const e = useExampleEngine(jwt({ claims_map: {
    'x-hasura-allowed-roles': ['user', 'anonymous'],
    'x-hasura-default-role': 'user',
    'X-Hasura-User-Id': { path: '$.user.id', default: '2' },
  } }));
  it('a literal is the value itself; a path reads the token, its default fills a gap', async () => {
    expect(ids(await q(e, ARTICLES, bearer(await sign({ user: { id: '1' } }, HS_KEY))))).toEqual([1, 2, 3]);
    expect(ids(await q(e, ARTICLES, bearer(await sign({ user: {} }, HS_KEY))))).toEqual([1, 3]);
    expect(ids(await q(e, ARTICLES, { ...bearer(await sign({ user: { id: '1' } }, HS_KEY)), 'x-hasura-role': 'anonymous' }))).toEqual([1, 3]);
  });
});

describe('auth hook answering X-Hasura-* keys', () => {
  let hook: Webhook;
  beforeAll(async () => {
    hook = await startWebhook((req, res) => {
      const token = String(req.headers.authorization ?? '');
      const body = token === 'Bearer twice'
        ? { 'X-Hasura-Role': 'user', 'X-Hasura-User-Id': '1', 'X-Engine-User-Id': '2' }
        : { 'X-Hasura-Role': 'user', 'X-Hasura-User-Id': '1', 'X-Hasura-Org': 7 };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  afterAll(async () => hook.close());
  const e = useExampleEngine({ adminSecret: SECRET, auth: { get authHook() { return `${hook.url}/auth`; } } });

  it("the hook's X-Hasura-Role and X-Hasura-User-Id make the session", async () => {
    expect(ids(await q(e, ARTICLES, { authorization: 'Bearer one' }))).toEqual([1, 2, 3]);
    const r = await gql(e, { query: ARTICLES }, { authorization: 'Bearer twice' });
    expect(r.body.errors).toEqual([{ message: expect.stringContaining('session variable "user-id" is given twice with different values'), extensions: { path: '$', code: 'access-denied' } }]);
  });
});
