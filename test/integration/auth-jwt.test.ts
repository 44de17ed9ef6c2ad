import { describe, expect, it } from 'vitest';
import { gql, gqlErr, q, useExampleEngine } from './graphql-fixture.js';
import { post } from '../helpers/engine.js';
import { bearer, claims, HS_KEY, HS_SECRET, NS, sign, userToken } from '../helpers/jwt.js';

// Issue 17, JWT mode with an HS256 key: the token's claims are the session (never the client's X-Engine-* headers),
// every bad token is invalid-jwt (a 401 in the engine-api.md envelope on /v1/query, a GraphQL error on /v1/graphql),
// the metadata API stays admin only.

const SECRET = 'admin-s3cret';
const JWT = JSON.stringify({ type: 'HS256', key: HS_SECRET, issuer: 'https://issuer.test', audience: 'engine-tests', allowed_skew: 30 });
const e = useExampleEngine({ adminSecret: SECRET, auth: { jwtSecret: JWT } });

const ARTICLES = '{ article(order_by: {id: asc}) { id } }';
const ids = (body: unknown) => (body as { data: { article: { id: number }[] } }).data.article.map((a) => a.id);
const envelope = (error: string, code = 'invalid-jwt') => JSON.stringify({ path: '$', error, code });

/** The answer of both endpoints to the same headers: /v1/query the 401 envelope, /v1/graphql a GraphQL error (issue 27). */
async function refusedEverywhere(headers: Record<string, string>, error: string, code = 'invalid-jwt'): Promise<void> {
  const before = await e.state();
  const g = await gql(e, { query: ARTICLES }, headers);
  const v = await post(`${e.url}/v1/query`, { type: 'run_sql', args: { sql: 'DROP TABLE article' } }, headers);
  expect([v.status, v.text]).toEqual([401, envelope(error, code)]);
  expect([g.status, g.text]).toEqual([200, JSON.stringify(gqlErr(error, '$', code))]);
  expect(await e.state()).toEqual(before);
}

describe('a valid token', () => {
  it("user 2's token sees articles 1 and 3 through /v1/graphql (§0)", async () => {
    expect(ids(await q(e, ARTICLES, bearer(await userToken(2))))).toEqual([1, 3]);
    expect(ids(await q(e, ARTICLES, bearer(await userToken(1))))).toEqual([1, 2, 3]);
  });

  it('the client cannot add or change session variables with X-Engine-* headers', async () => {
    const h = { ...bearer(await userToken(2)), 'x-engine-user-id': '1', 'X-Engine-Default-Role': 'admin' };
    expect(ids(await q(e, ARTICLES, h))).toEqual([1, 3]);
  });

  it('X-Engine-Role picks one of the allowed roles; another is refused', async () => {
    const token = await userToken(2);
    expect(await q(e, '{ article(order_by: {id: asc}) { id title } }', { ...bearer(token), 'x-engine-role': 'anonymous' }))
      .toEqual({ data: { article: [{ id: 1, title: 'Intro' }, { id: 3, title: 'News' }] } });
    await refusedEverywhere({ ...bearer(token), 'x-engine-role': 'admin' }, 'your requested role is not in allowed roles', 'access-denied');
  });

  it('other x-engine-* claims are session variables: lists and objects as JSON text, numbers as text', async () => {
    await e.sql(`CREATE FUNCTION whoami(s json) RETURNS SETOF author STABLE LANGUAGE sql AS
      $$ SELECT id, s::text, null::text, true, null::numeric, now() FROM author WHERE id = 1 $$`);
    await e.ok({ type: 'track_function', args: { function: 'whoami', configuration: { session_argument: 's' } } });
    const payload = { [NS]: { ...claims(2, ['user', 'admin']), 'X-Engine-Org': 7, 'x-engine-teams': ['a', 'b'], 'x-engine-meta': { k: 1 }, other: 'no' } };
    const body = await q(e, '{ whoami { name } }', bearer(await sign(payload, HS_KEY, { iss: 'https://issuer.test', aud: 'engine-tests' })));
    const name = (body as { data: { whoami: { name: string }[] } }).data.whoami[0]?.name ?? '';
    expect(JSON.parse(name)).toEqual({ 'x-engine-role': 'user', 'x-engine-user-id': '2', 'x-engine-org': '7', 'x-engine-teams': '["a","b"]', 'x-engine-meta': '{"k":1}' });
  });

  it("a token's session variables drive insert presets and the update filter (§0): user 1 writes as user 1 whatever the headers say", async () => {
    const h = { ...bearer(await userToken(1)), 'x-engine-user-id': '2' };
    expect(await q(e, 'mutation { insert_article_one(object: {title: "By token"}) { author_id } }', h)).toEqual({ data: { insert_article_one: { author_id: 1 } } });
    expect(await q(e, 'mutation { update_article(where: {}, _set: {content: "t"}) { affected_rows returning { id } } }', h))
      .toEqual({ data: { update_article: { affected_rows: 3, returning: [{ id: 1 }, { id: 2 }, { id: 4 }] } } });
    const rows = await e.db.query<{ id: number; content: string | null }>('SELECT id, content FROM article ORDER BY id');
    expect(rows.filter((r) => r.content === 't').map((r) => r.id)).toEqual([1, 2, 4]);
  });

  it('a token cannot enable backend-only insert permissions, whatever its claims or headers say (issue 12)', async () => {
    await e.ok({ type: 'drop_insert_permission', args: { table: 'article', role: 'user' } });
    await e.ok({ type: 'create_insert_permission', args: { table: 'article', role: 'user', permission: { columns: ['title'], set: { author_id: 'X-Engine-User-Id' }, check: {}, backend_only: true } } });
    const payload = { [NS]: { ...claims(1, ['user']), 'x-engine-use-backend-only-permissions': 'true' } };
    const h = { ...bearer(await sign(payload, HS_KEY, { iss: 'https://issuer.test', aud: 'engine-tests' })), 'x-engine-use-backend-only-permissions': 'true' };
    expect(await q(e, 'mutation { insert_article_one(object: {title: "B"}) { id } }', h))
      .toEqual({ errors: [{ message: 'field "insert_article_one" not found in type: \'mutation_root\'', extensions: { path: '$.selectionSet.insert_article_one', code: 'validation-failed' } }] });
    expect(await q(e, 'mutation { insert_article_one(object: {title: "B"}) { author_id } }', { 'x-engine-admin-secret': SECRET, 'x-engine-role': 'user', 'x-engine-user-id': '1', 'x-engine-use-backend-only-permissions': 'true' }))
      .toEqual({ data: { insert_article_one: { author_id: 1 } } });
  });

  it('allowed_skew accepts a token expired 10 s ago (skew 30 s)', async () => {
    expect(ids(await q(e, ARTICLES, bearer(await userToken(2, { exp: -10 }))))).toEqual([1, 3]);
  });

  it('the scheme of the Authorization header is case-insensitive', async () => {
    expect(ids(await q(e, ARTICLES, { authorization: `bearer ${await userToken(2)}` }))).toEqual([1, 3]);
  });
});

describe('the metadata API stays admin only', () => {
  it('a token of role user gets restricted access; a token whose role is admin is admin', async () => {
    const r = await post(`${e.url}/v1/query`, { type: 'export_metadata', args: {} }, bearer(await userToken(2)));
    expect(r.status).toBe(400);
    expect(r.text).toBe('{"path":"$.args","error":"restricted access : admin only","code":"access-denied"}');
    const admin = await sign({ [NS]: claims(9, ['admin'], 'admin') }, HS_KEY, { iss: 'https://issuer.test', aud: 'engine-tests' });
    expect((await post(`${e.url}/v1/query`, { type: 'export_metadata', args: {} }, bearer(admin))).status).toBe(200);
  });

  it('the admin secret still works, and a wrong one is refused even with a valid token', async () => {
    expect(ids(await q(e, ARTICLES, { 'x-engine-admin-secret': SECRET }))).toEqual([1, 2, 3]);
    await refusedEverywhere({ 'x-engine-admin-secret': 'wrong', ...bearer(await userToken(2)) }, 'invalid x-engine-admin-secret', 'access-denied');
  });
});

describe('bad tokens: invalid-jwt on both endpoints, nothing changes, the engine keeps serving', () => {
  const opts = { iss: 'https://issuer.test', aud: 'engine-tests' };
  it('no credentials', async () => {
    await refusedEverywhere({}, 'missing Authorization header in JWT authentication mode', 'access-denied');
  });

  it('a malformed Authorization header', async () => {
    await refusedEverywhere({ authorization: 'Basic dXNlcjpwYXNz' }, 'Could not verify JWT: malformed Authorization header (expected "Bearer <token>")');
  });

  it('expired, not yet valid, wrong issuer, wrong audience', async () => {
    await refusedEverywhere(bearer(await userToken(2, { exp: -60 })), 'Could not verify JWT: JWTExpired');
    await refusedEverywhere(bearer(await userToken(2, { nbf: 120 })), 'Could not verify JWT: JWTNotYetValid');
    await refusedEverywhere(bearer(await userToken(2, { iat: 120 })), 'Could not verify JWT: JWTIssuedAtFuture');
    expect(ids(await q(e, ARTICLES, bearer(await userToken(2, { iat: 10, nbf: 10 }))))).toEqual([1, 3]); // within the skew
    await refusedEverywhere(bearer(await userToken(2, { iss: 'https://evil.test' })), 'Could not verify JWT: JWTIssuerMismatch');
    await refusedEverywhere(bearer(await userToken(2, { aud: 'other' })), 'Could not verify JWT: JWTAudienceMismatch');
  });

  it('signed with another key, tampered, with another algorithm, alg none', async () => {
    await refusedEverywhere(bearer(await userToken(2, {}, new TextEncoder().encode('another-secret-of-at-least-32-bytes'))), 'Could not verify JWT: JWSInvalidSignature');
    const [h, p, s] = (await userToken(2)).split('.') as [string, string, string];
    const forged = Buffer.from(JSON.stringify({ [NS]: claims(1), iss: 'https://issuer.test', aud: 'engine-tests', exp: 4e9 })).toString('base64url');
    await refusedEverywhere(bearer(`${h}.${forged}.${s}`), 'Could not verify JWT: JWSInvalidSignature');
    await refusedEverywhere(bearer(await userToken(2, { alg: 'HS384' })), 'Could not verify JWT: JWSAlgorithmNotAllowed');
    const none = Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url');
    await refusedEverywhere(bearer(`${none}.${p}.`), 'Could not verify JWT: JWSAlgorithmNotAllowed');
    await refusedEverywhere(bearer(`${h}.${p}.${s.slice(0, 10)}`), 'Could not verify JWT: JWSInvalidSignature');
  });

  it('truncated, garbage, very long', async () => {
    const token = await userToken(2);
    await refusedEverywhere(bearer(token.slice(0, 40)), 'Could not verify JWT: JWTMalformed');
    await refusedEverywhere(bearer('not-a-token'), 'Could not verify JWT: JWTMalformed');
    await refusedEverywhere(bearer(`${token}${'A'.repeat(12_000)}`), 'Could not verify JWT: JWSInvalidSignature');
    const huge = await sign({ [NS]: claims(2), pad: 'x'.repeat(72_000) }, HS_KEY, opts);
    expect(huge.length).toBeGreaterThan(96_000);
    await refusedEverywhere(bearer(huge), 'Could not verify JWT: the token is longer than 65536 characters');
  });

  it('claims missing or of the wrong types', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'the claims namespace is missing'],
      [{ [NS]: 'text' }, 'the claims namespace is not an object'],
      [{ [NS]: { 'x-engine-default-role': 'user' } }, 'claim "x-engine-allowed-roles" is missing'],
      [{ [NS]: { 'x-engine-allowed-roles': 'user', 'x-engine-default-role': 'user' } }, 'claim "x-engine-allowed-roles" must be a non-empty list of roles'],
      [{ [NS]: { 'x-engine-allowed-roles': [], 'x-engine-default-role': 'user' } }, 'claim "x-engine-allowed-roles" must be a non-empty list of roles'],
      [{ [NS]: { 'x-engine-allowed-roles': ['user', 3], 'x-engine-default-role': 'user' } }, 'claim "x-engine-allowed-roles" must be a non-empty list of roles'],
      [{ [NS]: { 'x-engine-allowed-roles': ['user'] } }, 'claim "x-engine-default-role" is missing'],
      [{ [NS]: { 'x-engine-allowed-roles': ['user'], 'x-engine-default-role': 'admin' } }, 'claim "x-engine-default-role" must be one of the allowed roles'],
      [{ [NS]: claims(2), exp: 'tomorrow' }, 'JWTClaimsInvalid: "exp" must be a number'],
    ];
    for (const [payload, reason] of cases) {
      const token = payload['exp'] === undefined ? await sign(payload, HS_KEY, opts) : await signRaw(payload);
      await refusedEverywhere(bearer(token), `Could not verify JWT: ${reason}`);
    }
    expect(ids(await q(e, ARTICLES, bearer(await userToken(2))))).toEqual([1, 3]);
  });
});

/** A token whose registered claims are exactly as given (SignJWT would set exp itself). */
async function signRaw(payload: Record<string, unknown>): Promise<string> {
  const { CompactSign } = await import('jose');
  const body = new TextEncoder().encode(JSON.stringify({ iss: 'https://issuer.test', aud: 'engine-tests', ...payload }));
  return new CompactSign(body).setProtectedHeader({ alg: 'HS256' }).sign(HS_KEY);
}
