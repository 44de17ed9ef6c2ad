import type { CryptoKey } from 'jose';
import { CliError } from '../../errors.js';
import { jose } from './jose.js';
import { parseJsonPath, type PathStep } from './json-path.js';
import { sessionVariableName } from './session-names.js';

/**
 * The JWT configuration (issue 17): parsed and checked once at start-up, so that a bad value stops `engine serve`
 * with a message naming the offending key instead of failing at the first request.
 */

export const ALGORITHMS = ['HS256', 'HS384', 'HS512', 'RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;
export type Algorithm = (typeof ALGORITHMS)[number];

export const DEFAULT_NAMESPACE = 'https://engine/jwt/claims';
/** The incumbent's default namespace, read when the engine's is absent and no namespace is configured (issue 29.2). */
export const INCUMBENT_NAMESPACE = 'https://hasura.io/jwt/claims';

/** A session variable taken from the token: at a path of the payload with an optional default, or a literal value. */
export type ClaimMapping = { steps: PathStep[]; default?: unknown } | { literal: unknown };

export interface JwtConfig {
  /** The algorithms a token may use: the configured one; with a JWKS and no `type`, every asymmetric one. */
  algorithms: Algorithm[];
  /** The verification key (`key`), or the URL of a JWKS (`jwk_url`): exactly one is set. */
  key?: CryptoKey | Uint8Array;
  jwkUrl?: string;
  /** Where the `x-engine-*` claims are: a path in the payload (the namespace is the path `$['<namespace>']`). */
  claimsPath: PathStep[];
  /** Where the claims are looked for when `claimsPath` holds nothing: the incumbent's default namespace. */
  fallbackClaimsPath?: PathStep[];
  claimsMap?: Record<string, ClaimMapping>;
  claimsFormat: 'json' | 'stringified_json';
  audience?: string | string[];
  issuer?: string;
  allowedSkew: number;
  header: { type: 'Authorization' } | { type: 'Cookie'; name: string };
}

const KEYS = ['type', 'key', 'jwk_url', 'claims_namespace', 'claims_namespace_path', 'claims_map', 'claims_format', 'audience', 'issuer', 'allowed_skew', 'header'];

/** HMAC keys shorter than the hash output are refused (RFC 7518 §3.2). */
const HMAC_MIN_BYTES: Record<string, number> = { HS256: 32, HS384: 48, HS512: 64 };

function fail(key: string | null, reason: string): never {
  const where = key === null ? '' : `"${key}": `;
  throw new CliError('config-invalid', `invalid value for "jwt_secret" (--jwt-secret, ENGINE_GRAPHQL_JWT_SECRET): ${where}${reason}`, 1);
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function nonEmptyString(o: Record<string, unknown>, key: string): string | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v === '') fail(key, 'expected a non-empty string');
  return v;
}

function jsonPath(key: string, v: unknown): PathStep[] {
  const steps = typeof v === 'string' ? parseJsonPath(v) : null;
  if (!steps) fail(key, 'expected a JSON path such as "$.claims" or "$[\'https://example.com/claims\']"');
  return steps;
}

async function importKey(alg: Algorithm, key: string): Promise<CryptoKey | Uint8Array> {
  if (alg.startsWith('HS')) {
    const bytes = new TextEncoder().encode(key);
    const min = HMAC_MIN_BYTES[alg] ?? 32;
    if (bytes.length < min) fail('key', `a ${alg} secret must be at least ${min} bytes long`);
    return bytes;
  }
  const pem = key.trim();
  const { importSPKI, importX509 } = await jose();
  try {
    if (pem.startsWith('-----BEGIN CERTIFICATE-----')) return await importX509(pem, alg);
    if (pem.startsWith('-----BEGIN PUBLIC KEY-----')) return await importSPKI(pem, alg);
  } catch (e) {
    fail('key', `not a ${alg} public key: ${e instanceof Error ? e.message : String(e)}`);
  }
  return fail('key', `expected a PEM public key ("-----BEGIN PUBLIC KEY-----") or certificate for ${alg}`);
}

function claimsMap(v: unknown): Record<string, ClaimMapping> {
  if (!isObject(v) || Object.keys(v).length === 0) fail('claims_map', 'expected an object of session variables');
  const out: Record<string, ClaimMapping> = {};
  for (const [name, m] of Object.entries(v)) {
    const key = `claims_map.${name}`;
    const canonical = sessionVariableName(name);
    if (canonical === undefined) fail(key, 'a session variable name starts with "x-engine-" or "x-hasura-"');
    if (out[canonical]) fail(key, `"${canonical.slice('x-engine-'.length)}" is mapped twice`);
    // As the incumbent reads it: {"path", "default"} is looked up in the token, any other value is the value itself.
    if (isObject(m) && 'path' in m) {
      const extra = Object.keys(m).find((k) => k !== 'path' && k !== 'default');
      if (extra !== undefined) fail(`${key}.${extra}`, 'unknown key (expected "path" and "default")');
      out[canonical] = { steps: jsonPath(`${key}.path`, m['path']), ...('default' in m ? { default: m['default'] } : {}) };
    } else if (m === null || isObject(m)) fail(key, 'expected {"path", "default"} or a literal value');
    else out[canonical] = { literal: m };
  }
  for (const required of ['x-engine-allowed-roles', 'x-engine-default-role']) {
    if (!out[required]) fail('claims_map', `"${required}" must be mapped`);
  }
  return out;
}

function header(v: unknown): JwtConfig['header'] {
  if (v === undefined) return { type: 'Authorization' };
  if (isObject(v) && v['type'] === 'Authorization' && Object.keys(v).length === 1) return { type: 'Authorization' };
  if (isObject(v) && v['type'] === 'Cookie' && Object.keys(v).every((k) => k === 'type' || k === 'name')) {
    const name = v['name'];
    if (typeof name !== 'string' || !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) fail('header.name', 'expected a cookie name');
    return { type: 'Cookie', name };
  }
  return fail('header', 'expected {"type": "Authorization"} or {"type": "Cookie", "name": <cookie name>}');
}

function audience(v: unknown): string | string[] | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'string' && v !== '') return v;
  if (Array.isArray(v) && v.length > 0 && v.every((a) => typeof a === 'string' && a !== '')) return v as string[];
  return fail('audience', 'expected a non-empty string or a non-empty list of strings');
}

/** Parses the JSON text of the setting; throws CliError `config-invalid` naming the key at fault. */
export async function parseJwtConfig(text: string): Promise<JwtConfig> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    fail(null, 'not valid JSON');
  }
  if (!isObject(raw)) fail(null, 'expected a JSON object');
  const unknown = Object.keys(raw).find((k) => !KEYS.includes(k));
  if (unknown !== undefined) fail(unknown, `unknown key (expected ${KEYS.map((k) => `"${k}"`).join(', ')})`);
  const key = nonEmptyString(raw, 'key');
  const jwkUrl = nonEmptyString(raw, 'jwk_url');
  if ((key === undefined) === (jwkUrl === undefined)) fail(null, 'exactly one of "key" and "jwk_url" is required');
  const type = raw['type'];
  // A JWKS names each key's type; an HMAC algorithm there would turn a public key into a shared secret.
  const allowed: readonly Algorithm[] = key !== undefined ? ALGORITHMS : ALGORITHMS.filter((a) => !a.startsWith('HS'));
  if (!(type === undefined && jwkUrl !== undefined) && !allowed.includes(type as Algorithm)) {
    fail('type', `expected one of ${allowed.join(', ')}`);
  }
  const algorithms = type === undefined ? [...allowed] : [type as Algorithm];
  if (jwkUrl !== undefined && !/^https?:\/\/[^/]/i.test(jwkUrl)) fail('jwk_url', 'expected an http or https URL');
  const namespace = nonEmptyString(raw, 'claims_namespace');
  const namespacePath = raw['claims_namespace_path'] === undefined ? undefined : jsonPath('claims_namespace_path', raw['claims_namespace_path']);
  if (namespace !== undefined && namespacePath !== undefined) fail('claims_namespace_path', 'give either "claims_namespace" or "claims_namespace_path"');
  const map = raw['claims_map'] === undefined ? undefined : claimsMap(raw['claims_map']);
  if (map && (namespace !== undefined || namespacePath !== undefined)) fail('claims_map', '"claims_map" replaces "claims_namespace" and "claims_namespace_path"');
  const format = raw['claims_format'] ?? 'json';
  if (format !== 'json' && format !== 'stringified_json') fail('claims_format', 'expected "json" or "stringified_json"');
  const issuer = nonEmptyString(raw, 'issuer');
  const skew = raw['allowed_skew'] ?? 0;
  if (typeof skew !== 'number' || !Number.isFinite(skew) || skew < 0) fail('allowed_skew', 'expected a number of seconds, 0 or more');
  const aud = audience(raw['audience']);
  return {
    algorithms,
    ...(key !== undefined ? { key: await importKey(algorithms[0] as Algorithm, key) } : { jwkUrl: jwkUrl as string }),
    claimsPath: namespacePath ?? [namespace ?? DEFAULT_NAMESPACE],
    ...(namespacePath === undefined && namespace === undefined ? { fallbackClaimsPath: [INCUMBENT_NAMESPACE] } : {}),
    ...(map ? { claimsMap: map } : {}),
    claimsFormat: format,
    ...(aud !== undefined ? { audience: aud } : {}),
    ...(issuer !== undefined ? { issuer } : {}),
    allowedSkew: skew,
    header: header(raw['header']),
  };
}
