import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql, q, useExampleEngine } from './graphql-fixture.js';
import { silentLogger } from '../../src/logger.js';
import { JwksCache } from '../../src/server/auth/jwks.js';
import { bearer, claims, NS, sign } from '../helpers/jwt.js';

// Issue 17, jwk_url: a real JWKS server on 127.0.0.1 whose keys rotate during the test. The set is fetched at
// start-up, not per request, again on an unknown kid (at most once a second), per Cache-Control, and kept on failure.

interface KeyPair { kid: string; alg: string; privateKey: CryptoKey; jwk: JWK }

async function keyPair(kid: string, alg: 'RS256' | 'ES256'): Promise<KeyPair> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

/** The JWKS server: what it answers is set by the test; it counts its requests. */
const jwks = { keys: [] as KeyPair[], status: 200, body: null as string | null, cacheControl: 'max-age=300', requests: 0 };
let server: Server;
let jwksUrl = '';

beforeAll(async () => {
  server = createServer((_req, res) => {
    jwks.requests++;
    const body = jwks.body ?? JSON.stringify({ keys: jwks.keys.map((k) => k.jwk) });
    res.writeHead(jwks.status, { 'content-type': 'application/json', 'cache-control': jwks.cacheControl }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const ARTICLES = '{ article(order_by: {id: asc}) { id } }';
const ids = (body: unknown) => (body as { data: { article: { id: number }[] } }).data.article.map((a) => a.id);
const token = (k: KeyPair, userId = 2) => sign({ [NS]: claims(userId) }, k.privateKey, { alg: k.alg, kid: k.kid });

const rsa1 = await keyPair('rsa-1', 'RS256');
const ec1 = await keyPair('ec-1', 'ES256');
const rsa2 = await keyPair('rsa-2', 'RS256');
jwks.keys = [rsa1, ec1];

describe('an engine with jwk_url and no type', () => {
  // The URL is only known once the JWKS server listens: the setting is read lazily through a getter.
  const auth = { get jwtSecret() { return JSON.stringify({ jwk_url: jwksUrl }); } };
  const e = useExampleEngine({ adminSecret: 'admin', auth });

  it('keys of several types in one set; the set is fetched once at start-up, not per request', async () => {
    expect(e.auth.keySet?.fetches).toBe(1);
    for (let i = 0; i < 3; i++) {
      expect(ids(await q(e, ARTICLES, bearer(await token(rsa1))))).toEqual([1, 3]);
      expect(ids(await q(e, ARTICLES, bearer(await token(ec1, 1))))).toEqual([1, 2, 3]);
    }
    expect(e.auth.keySet?.fetches).toBe(1);
  });

  it('a rotated key (new kid) is accepted without restart; a removed one is refused after the next fetch', async () => {
    const before = e.auth.keySet?.fetches ?? 0;
    jwks.keys = [rsa2, ec1];
    await waitSecond(e.auth.keySet);
    expect(ids(await q(e, ARTICLES, bearer(await token(rsa2))))).toEqual([1, 3]);
    expect(e.auth.keySet?.fetches).toBe(before + 1);
    const old = await gql(e, { query: ARTICLES }, bearer(await token(rsa1)));
    expect(old.status).toBe(200);
    expect(old.text).toBe('{"errors":[{"message":"Could not verify JWT: JWKSNoMatchingKey","extensions":{"path":"$","code":"invalid-jwt"}}]}');
    // A token signed by a key of the set but claiming another kid's key is still checked against that key.
    const forged = await sign({ [NS]: claims(1) }, ec1.privateKey, { alg: 'ES256', kid: 'rsa-2' });
    expect((await gql(e, { query: ARTICLES }, bearer(forged))).text)
      .toBe('{"errors":[{"message":"Could not verify JWT: JWKSNoMatchingKey","extensions":{"path":"$","code":"invalid-jwt"}}]}');
  });
});

/** Waits (polling, with a deadline) until the cache may fetch again: refreshes are at most once a second. */
async function waitSecond(cache: JwksCache | undefined): Promise<void> {
  const deadline = Date.now() + 5000;
  while (cache && !cache.mayRefetch()) {
    if (Date.now() > deadline) throw new Error('the JWKS cache never allowed a refetch');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('JwksCache with a controlled clock', () => {
  let now = 1_000_000;
  const clock = () => now;
  const header = (k: KeyPair) => ({ alg: k.alg, kid: k.kid });
  const input = { payload: '', signature: '' };

  it('unknown kids refetch at most once a second; max-age expiry refetches; failures keep the old keys', async () => {
    jwks.keys = [rsa1];
    jwks.cacheControl = 'max-age=60';
    const start = jwks.requests;
    const cache = new JwksCache(jwksUrl, silentLogger, clock);
    await cache.start();
    expect(jwks.requests - start).toBe(1);
    await expect(cache.getKey(header(rsa2), input)).rejects.toThrow();
    await expect(cache.getKey(header(rsa2), input)).rejects.toThrow();
    expect(jwks.requests - start).toBe(1); // same instant: no refetch
    now += 1000;
    jwks.keys = [rsa1, rsa2];
    await expect(cache.getKey(header(rsa2), input)).resolves.toBeDefined();
    expect(jwks.requests - start).toBe(2);
    // The JWKS goes down, then answers garbage: the keys fetched before stay in use.
    jwks.status = 503;
    now += 61_000;
    await expect(cache.getKey(header(rsa1), input)).resolves.toBeDefined();
    expect(jwks.requests - start).toBe(3);
    jwks.status = 200;
    jwks.body = '<html>not json</html>';
    now += 1000;
    await expect(cache.getKey(header(rsa2), input)).resolves.toBeDefined();
    expect(jwks.requests - start).toBe(4);
    jwks.body = null;
    await expect(cache.getKey(header(rsa2), input)).resolves.toBeDefined();
    expect(jwks.requests - start).toBe(4); // the failed attempt counts for the once-a-second bound
  });

  it('a key of the set that cannot be imported is a JWKSInvalid error, not a crash', async () => {
    jwks.body = JSON.stringify({ keys: [{ kty: 'EC', kid: 'bad', crv: 'P-256', x: 'AA', y: 'AA' }] });
    const cache = new JwksCache(jwksUrl, silentLogger, clock);
    await cache.start();
    jwks.body = null;
    await expect(cache.getKey({ alg: 'ES256', kid: 'bad' }, input)).rejects.toMatchObject({ code: 'ERR_JWKS_INVALID' });
  });

  it('a JWKS that never answers: the fetch gives up after its timeout, tokens are refused, nothing hangs', async () => {
    // A condition of the test, not a synchronisation: the server holds every request until the test ends.
    const held: (() => void)[] = [];
    const slow = createServer((_req, res) => void held.push(() => res.end()));
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/jwks`;
    try {
      const warnings: string[] = [];
      const cache = new JwksCache(url, { ...silentLogger, warn: (m) => warnings.push(m) }, clock);
      await cache.start();
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^cannot fetch the JWKS at http:\/\/127\.0\.0\.1:\d+: /);
      await expect(cache.getKey(header(rsa1), input)).rejects.toThrow('the JWKS could not be fetched');
    } finally {
      for (const h of held) h();
      await new Promise<void>((r) => slow.close(() => r()));
    }
  });

  it('a JWKS that is down at start-up: the engine starts, tokens are refused until it answers', async () => {
    const warnings: string[] = [];
    const cache = new JwksCache('http://127.0.0.1:1/jwks?token=sekret', { ...silentLogger, warn: (m) => warnings.push(m) }, clock);
    await cache.start();
    expect(warnings).toEqual(['cannot fetch the JWKS at http://127.0.0.1:1: connection refused']);
    await expect(cache.getKey(header(rsa1), input)).rejects.toThrow('the JWKS could not be fetched');
  });
});
