import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CliError } from '../../src/errors.js';
import { Authenticator } from '../../src/server/auth/index.js';
import { parseJwtConfig } from '../../src/server/auth/jwt-config.js';
import { atPath, parseJsonPath } from '../../src/server/auth/json-path.js';
import { freshForMs } from '../../src/server/auth/cache-control.js';

// Issue 17: a bad authentication setting stops start-up with config-invalid naming the key, never at a request.

const KEY = 'k'.repeat(32);
const PREFIX = 'invalid value for "jwt_secret" (--jwt-secret, ENGINE_GRAPHQL_JWT_SECRET): ';

async function refused(config: unknown, message: string): Promise<void> {
  const text = typeof config === 'string' ? config : JSON.stringify(config);
  const err = await parseJwtConfig(text).then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(CliError);
  expect((err as CliError).code).toBe('config-invalid');
  expect((err as CliError).exitCode).toBe(1);
  expect((err as CliError).message).toBe(PREFIX + message);
}

describe('parseJwtConfig', () => {
  it('refuses each bad key by name', async () => {
    await refused('{type', 'not valid JSON');
    await refused([], 'expected a JSON object');
    await refused({ type: 'HS256', key: KEY, claims_namespce: 'x' }, '"claims_namespce": unknown key (expected "type", "key", "jwk_url", "claims_namespace", "claims_namespace_path", "claims_map", "claims_format", "audience", "issuer", "allowed_skew", "header")');
    await refused({ type: 'HS256' }, 'exactly one of "key" and "jwk_url" is required');
    await refused({ type: 'HS256', key: KEY, jwk_url: 'http://127.0.0.1/jwks' }, 'exactly one of "key" and "jwk_url" is required');
    await refused({ type: 'none', key: KEY }, '"type": expected one of HS256, HS384, HS512, RS256, RS384, RS512, ES256, ES384, ES512, EdDSA');
    await refused({ key: KEY }, '"type": expected one of HS256, HS384, HS512, RS256, RS384, RS512, ES256, ES384, ES512, EdDSA');
    await refused({ type: 'HS256', jwk_url: 'http://127.0.0.1/jwks' }, '"type": expected one of RS256, RS384, RS512, ES256, ES384, ES512, EdDSA');
    await refused({ jwk_url: 'ftp://127.0.0.1/jwks' }, '"jwk_url": expected an http or https URL');
    await refused({ type: 'HS256', key: 'short' }, '"key": a HS256 secret must be at least 32 bytes long');
    await refused({ type: 'HS512', key: KEY }, '"key": a HS512 secret must be at least 64 bytes long');
    await refused({ type: 'RS256', key: KEY }, '"key": expected a PEM public key ("-----BEGIN PUBLIC KEY-----") or certificate for RS256');
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const err = await parseJwtConfig(JSON.stringify({ type: 'RS256', key: ec })).catch((e: Error) => e.message);
    expect(err).toMatch(new RegExp(`^${PREFIX.replace(/[()]/g, '\\$&')}"key": not a RS256 public key: `));
    await refused({ type: 'HS256', key: KEY, claims_namespace_path: 'claims' }, '"claims_namespace_path": expected a JSON path such as "$.claims" or "$[\'https://example.com/claims\']"');
    await refused({ type: 'HS256', key: KEY, claims_namespace: 'a', claims_namespace_path: '$.a' }, '"claims_namespace_path": give either "claims_namespace" or "claims_namespace_path"');
    await refused({ type: 'HS256', key: KEY, claims_map: { 'x-engine-allowed-roles': '$.r' } }, '"claims_map": "x-engine-default-role" must be mapped');
    await refused({ type: 'HS256', key: KEY, claims_map: { 'user-id': '$.sub' } }, '"claims_map.user-id": a session variable name starts with "x-engine-" or "x-hasura-"');
    await refused({ type: 'HS256', key: KEY, claims_map: { 'x-engine-user-id': 'a', 'X-Hasura-User-Id': 'b' } }, '"claims_map.X-Hasura-User-Id": "user-id" is mapped twice');
    await refused({ type: 'HS256', key: KEY, claims_map: { 'x-hasura-user-id': { default: 1 } } }, '"claims_map.x-hasura-user-id": expected {"path", "default"} or a literal value');
    await refused({ type: 'HS256', key: KEY, claims_map: { 'x-engine-a': { path: '$.a', defualt: 1 } } }, '"claims_map.x-engine-a.defualt": unknown key (expected "path" and "default")');
    await refused({ type: 'HS256', key: KEY, claims_format: 'yaml' }, '"claims_format": expected "json" or "stringified_json"');
    await refused({ type: 'HS256', key: KEY, allowed_skew: -1 }, '"allowed_skew": expected a number of seconds, 0 or more');
    await refused({ type: 'HS256', key: KEY, audience: [] }, '"audience": expected a non-empty string or a non-empty list of strings');
    await refused({ type: 'HS256', key: KEY, issuer: 3 }, '"issuer": expected a non-empty string');
    await refused({ type: 'HS256', key: KEY, header: { type: 'Cookie' } }, '"header.name": expected a cookie name');
    await refused({ type: 'HS256', key: KEY, header: { type: 'X-Token' } }, '"header": expected {"type": "Authorization"} or {"type": "Cookie", "name": <cookie name>}');
  });

  it('accepts the full form', async () => {
    const c = await parseJwtConfig(JSON.stringify({ type: 'HS256', key: KEY, audience: ['a', 'b'], issuer: 'i', allowed_skew: 5, header: { type: 'Cookie', name: 'jwt' } }));
    expect(c).toMatchObject({ algorithms: ['HS256'], claimsPath: ['https://engine/jwt/claims'], fallbackClaimsPath: ['https://hasura.io/jwt/claims'], claimsFormat: 'json', audience: ['a', 'b'], issuer: 'i', allowedSkew: 5, header: { type: 'Cookie', name: 'jwt' } });
  });
});

describe('Authenticator.create', () => {
  const fails = (settings: Parameters<typeof Authenticator.create>[0], message: string) =>
    expect(Authenticator.create(settings)).rejects.toMatchObject({ code: 'config-invalid', message });
  it('modes require the admin secret; the unauthorized role cannot be admin', async () => {
    await fails({ jwtSecret: JSON.stringify({ type: 'HS256', key: KEY }) }, 'a JWT secret (jwt_secret) requires an admin secret (admin_secret)');
    await fails({ unauthorizedRole: 'anonymous' }, 'an unauthorized role (unauthorized_role) requires an admin secret (admin_secret)');
    await fails({ adminSecret: 's', unauthorizedRole: 'admin' }, 'invalid value for "unauthorized_role": it cannot be "admin"');
  });

  it('the auth hook: a URL, GET or POST, with the admin secret, without JWT or unauthorized role', async () => {
    const hook = 'http://127.0.0.1:9/auth';
    await fails({ authHook: hook }, 'an auth hook (auth_hook) requires an admin secret (admin_secret)');
    await fails({ adminSecret: 's', authHook: 'ftp://x' }, 'invalid value for "auth_hook" (--auth-hook, ENGINE_GRAPHQL_AUTH_HOOK): expected an http or https URL');
    await fails({ adminSecret: 's', authHook: hook, authHookMode: 'PUT' }, 'invalid value for "auth_hook_mode" (--auth-hook-mode, ENGINE_GRAPHQL_AUTH_HOOK_MODE): expected GET or POST');
    await fails({ adminSecret: 's', authHook: hook, jwtSecret: JSON.stringify({ type: 'HS256', key: KEY }) }, 'an auth hook (auth_hook) and a JWT secret (jwt_secret) exclude each other');
    await fails({ adminSecret: 's', authHook: hook, unauthorizedRole: 'anonymous' }, 'an unauthorized role (unauthorized_role) has no use with an auth hook (auth_hook): the hook decides the role of every request');
    expect((await Authenticator.create({ adminSecret: 's', authHook: hook, authHookMode: 'post' })).needsRequest).toBe(true);
  });
});

describe('JSON paths and cache lifetimes', () => {
  it('parses paths and reads values', () => {
    expect(parseJsonPath('$')).toEqual([]);
    expect(parseJsonPath("$.a['b.c'][2].d")).toEqual(['a', 'b.c', 2, 'd']);
    expect(parseJsonPath('$.a.')).toBeNull();
    expect(parseJsonPath('a')).toBeNull();
    expect(atPath({ a: { 'b.c': [0, 1, { d: 'x' }] } }, ['a', 'b.c', 2, 'd'])).toBe('x');
    expect(atPath({ a: 1 }, ['a', 'b'])).toBeUndefined();
    expect(atPath({}, ['toString'])).toBeUndefined();
  });

  it('reads Cache-Control and Expires', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(freshForMs({ 'cache-control': 'public, max-age=60' }, now, 5)).toBe(60_000);
    expect(freshForMs({ 'cache-control': 'no-store' }, now, 5)).toBe(0);
    expect(freshForMs({ 'cache-control': 'max-age=60, no-cache' }, now, 5)).toBe(0);
    expect(freshForMs({ expires: 'Thu, 01 Jan 2026 00:00:30 GMT' }, now, 5)).toBe(30_000);
    expect(freshForMs({ expires: '0' }, now, 5)).toBe(0);
    expect(freshForMs({}, now, 5)).toBe(5);
  });
});
