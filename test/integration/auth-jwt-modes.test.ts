import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { gql, q, useExampleEngine } from './graphql-fixture.js';
import { post } from '../helpers/engine.js';
import { bearer, claims, HS_KEY, HS_SECRET, NS, sign } from '../helpers/jwt.js';

// Issue 17: RS256 and ES256 public keys, the Cookie header, claims_map with defaults, stringified_json claims,
// claims_namespace_path, and the unauthorized role (with JWT, and with the admin secret alone).

const SECRET = 'admin-s3cret';
const ARTICLES = '{ article(order_by: {id: asc}) { id } }';
const ids = (body: unknown) => (body as { data: { article: { id: number }[] } }).data.article.map((a) => a.id);
const pem = (k: ReturnType<typeof generateKeyPairSync>['publicKey']) => k.export({ type: 'spki', format: 'pem' }).toString();

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });

describe('RS256 with a PEM public key', () => {
  const e = useExampleEngine({ adminSecret: SECRET, auth: { jwtSecret: JSON.stringify({ type: 'RS256', key: pem(rsa.publicKey) }) } });
  it("user 2's RS256 token sees articles 1 and 3; an HS256 token made with the public key as secret is refused", async () => {
    expect(ids(await q(e, ARTICLES, bearer(await sign({ [NS]: claims(2) }, rsa.privateKey, { alg: 'RS256' }))))).toEqual([1, 3]);
    // The classic algorithm confusion: the public key (known to all) used as an HMAC secret.
    const confused = await sign({ [NS]: claims(1, ['admin'], 'admin') }, new TextEncoder().encode(pem(rsa.publicKey)), { alg: 'HS256' });
    const r = await post(`${e.url}/v1/query`, { type: 'export_metadata', args: {} }, bearer(confused));
    expect(r.status).toBe(401);
    expect(r.text).toBe('{"path":"$","error":"Could not verify JWT: JWSAlgorithmNotAllowed","code":"invalid-jwt"}');
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const wrong = await gql(e, { query: ARTICLES }, bearer(await sign({ [NS]: claims(2) }, other.privateKey, { alg: 'RS256' })));
    expect(wrong.text).toBe('{"errors":[{"message":"Could not verify JWT: JWSInvalidSignature","extensions":{"path":"$","code":"invalid-jwt"}}]}');
  });
});

describe('ES256, the token in a cookie, claims_map', () => {
  const config = {
    type: 'ES256', key: pem(ec.publicKey), header: { type: 'Cookie', name: 'session' },
    claims_map: {
      'x-engine-allowed-roles': { path: '$.roles', default: ['user'] },
      'x-engine-default-role': { path: '$.role', default: 'user' },
      'x-engine-user-id': { path: '$.sub' },
      'x-engine-org': { path: "$.org['id']", default: 'none' },
    },
  };
  const e = useExampleEngine({ adminSecret: SECRET, auth: { jwtSecret: JSON.stringify(config) } });
  it('the cookie carries the token; claims come from the paths of claims_map, defaults fill the gaps', async () => {
    const token = await sign({ sub: '2' }, ec.privateKey, { alg: 'ES256' });
    expect(ids(await q(e, ARTICLES, { cookie: `theme=dark; session=${token}; other=1` }))).toEqual([1, 3]);
    const r = await gql(e, { query: ARTICLES }, bearer(token));
    expect(r.status).toBe(200);
    expect(r.text).toBe('{"errors":[{"message":"missing cookie \\"session\\" in JWT authentication mode","extensions":{"path":"$","code":"access-denied"}}]}');
    const noRoles = await sign({ sub: '2', roles: 'user' }, ec.privateKey, { alg: 'ES256' });
    expect((await gql(e, { query: ARTICLES }, { cookie: `session=${noRoles}` })).text)
      .toBe('{"errors":[{"message":"Could not verify JWT: claim \\"x-engine-allowed-roles\\" must be a non-empty list of roles","extensions":{"path":"$","code":"invalid-jwt"}}]}');
  });
});

describe('stringified_json claims at a namespace path, with the unauthorized role', () => {
  const config = { type: 'HS512', key: HS_SECRET.repeat(2), claims_namespace_path: '$.app.claims', claims_format: 'stringified_json' };
  const e = useExampleEngine({ adminSecret: SECRET, auth: { jwtSecret: JSON.stringify(config), unauthorizedRole: 'anonymous' } });
  const key = new TextEncoder().encode(HS_SECRET.repeat(2));
  it('the claims are JSON text inside the payload', async () => {
    const token = await sign({ app: { claims: JSON.stringify(claims(2)) } }, key, { alg: 'HS512' });
    expect(ids(await q(e, ARTICLES, bearer(token)))).toEqual([1, 3]);
    const bad = await sign({ app: { claims: '{not json' } }, key, { alg: 'HS512' });
    expect((await gql(e, { query: ARTICLES }, bearer(bad))).text)
      .toBe('{"errors":[{"message":"Could not verify JWT: the claims are not valid stringified JSON","extensions":{"path":"$","code":"invalid-jwt"}}]}');
  });

  it('a request without credentials has the unauthorized role; X-Engine-* headers do not reach its session', async () => {
    expect(await q(e, '{ article(order_by: {id: asc}) { id title } }', { 'x-engine-role': 'user', 'x-engine-user-id': '1' }))
      .toEqual({ data: { article: [{ id: 1, title: 'Intro' }, { id: 3, title: 'News' }] } });
    const r = await post(`${e.url}/v1/query`, { type: 'export_metadata', args: {} });
    expect(r.status).toBe(400);
    expect(r.text).toBe('{"path":"$.args","error":"restricted access : admin only","code":"access-denied"}');
    // A bad token is refused, never downgraded to the unauthorized role.
    expect((await gql(e, { query: ARTICLES }, bearer(await sign({ app: { claims: '{}' } }, HS_KEY)))).text)
      .toBe('{"errors":[{"message":"Could not verify JWT: JWSAlgorithmNotAllowed","extensions":{"path":"$","code":"invalid-jwt"}}]}');
  });
});

describe('the unauthorized role with the admin secret alone', () => {
  const e = useExampleEngine({ adminSecret: SECRET, auth: { unauthorizedRole: 'anonymous' } });
  it('no secret: the unauthorized role; a wrong secret: still refused', async () => {
    expect(ids(await q(e, ARTICLES, {}))).toEqual([1, 3]);
    const r = await gql(e, { query: ARTICLES }, { 'x-engine-admin-secret': 'wrong' });
    expect(r.status).toBe(200);
    expect(r.text).toBe('{"errors":[{"message":"invalid x-engine-admin-secret","extensions":{"path":"$","code":"access-denied"}}]}');
    expect(ids(await q(e, ARTICLES, { 'x-engine-admin-secret': SECRET }))).toEqual([1, 2, 3]);
  });
});
