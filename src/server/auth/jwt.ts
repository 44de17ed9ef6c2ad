import type { JWTPayload } from 'jose';
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError } from '../../errors.js';
import type { Caller } from './admin-secret.js';
import { atPath } from './json-path.js';
import type { JwtConfig } from './jwt-config.js';
import type { JwksCache } from './jwks.js';
import { jose } from './jose.js';
import { collectSession, conflictingSessionVariable, DEFAULT_SESSION_PREFIX, prefixedName, sessionVariableName, type SessionPrefix } from './session-names.js';

/**
 * JWT mode (issue 17): jose verifies the signature and the registered claims with the algorithms of the
 * configuration only — the token's `alg` never chooses (no `none`, no RS/HS confusion) — then the `x-engine-*`
 * claims become the session.
 */

const ALLOWED = 'x-engine-allowed-roles';
/** Far above real tokens (a few KB); a longer one is refused before any decoding. */
export const MAX_TOKEN_CHARS = 65536;
const DEFAULT = 'x-engine-default-role';

export const invalidJwt = (reason: string): ApiError => new ApiError(401, 'invalid-jwt', '$', `Could not verify JWT: ${reason}`);

/** jose's failures, named like the JWT errors users of GraphQL engines know. Messages never quote the token. */
function reasonOf(e: unknown, errors: Awaited<ReturnType<typeof jose>>['errors']): string {
  if (e instanceof errors.JWTExpired) return 'JWTExpired';
  if (e instanceof errors.JWSSignatureVerificationFailed) return 'JWSInvalidSignature';
  if (e instanceof errors.JWTClaimValidationFailed) {
    if (e.claim === 'iss') return 'JWTIssuerMismatch';
    if (e.claim === 'aud') return 'JWTAudienceMismatch';
    if (e.claim === 'nbf') return e.reason === 'check_failed' ? 'JWTNotYetValid' : 'JWTClaimsInvalid: "nbf" must be a number';
    if (e.claim === 'iat') return e.reason === 'check_failed' ? 'JWTIssuedAtFuture' : 'JWTClaimsInvalid: "iat" must be a number';
    if (e.claim === 'exp') return 'JWTClaimsInvalid: "exp" must be a number';
    return 'JWTClaimsInvalid';
  }
  if (e instanceof errors.JOSEAlgNotAllowed || e instanceof errors.JOSENotSupported) return 'JWSAlgorithmNotAllowed';
  if (e instanceof errors.JWKSNoMatchingKey || e instanceof errors.JWKSMultipleMatchingKeys) return 'JWKSNoMatchingKey';
  if (e instanceof errors.JWKSInvalid) return 'JWKSInvalidKey';
  if (e instanceof errors.JOSEError) return 'JWTMalformed';
  throw e;
}

/** The token of a request, undefined when it carries none; a malformed Authorization header is an error. */
export function tokenOf(config: JwtConfig, headers: IncomingHttpHeaders): string | undefined {
  if (config.header.type === 'Authorization') {
    const value = headers.authorization;
    if (value === undefined) return undefined;
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(value);
    if (!m) throw invalidJwt('malformed Authorization header (expected "Bearer <token>")');
    return m[1];
  }
  const name = config.header.name;
  for (const part of (headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const v = part.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
      return v === '' ? undefined : v;
    }
  }
  return undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The session claims of a verified payload (`x-engine-*` or `x-hasura-*`), keys canonical (issue 29). */
function claimsOf(config: JwtConfig, payload: JWTPayload): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (config.claimsMap) {
    for (const [name, m] of Object.entries(config.claimsMap)) {
      if ('literal' in m) {
        out[name] = m.literal;
        continue;
      }
      const v = atPath(payload, m.steps);
      if (v !== undefined) out[name] = v;
      else if (m.default !== undefined) out[name] = m.default;
    }
    return out;
  }
  let claims = atPath(payload, config.claimsPath);
  // Without a configured namespace, the incumbent's default one serves tokens issued for it.
  if (claims === undefined && config.fallbackClaimsPath) claims = atPath(payload, config.fallbackClaimsPath);
  if (config.claimsFormat === 'stringified_json' && typeof claims === 'string') {
    try {
      claims = JSON.parse(claims);
    } catch {
      throw invalidJwt('the claims are not valid stringified JSON');
    }
  }
  if (!isObject(claims)) throw invalidJwt(claims === undefined ? 'the claims namespace is missing' : 'the claims namespace is not an object');
  const names = new Map<string, string>();
  for (const [k, v] of Object.entries(claims)) {
    const canonical = sessionVariableName(k);
    if (canonical === undefined) continue;
    const before = names.get(canonical);
    if (before !== undefined && JSON.stringify(out[canonical]) !== JSON.stringify(v)) throw conflictingSessionVariable(canonical, before, k);
    names.set(canonical, k);
    out[canonical] = v;
  }
  return out;
}

/** Verifies a token and resolves the caller, honouring the requested role (`X-Engine-Role`). */
export async function jwtCaller(
  config: JwtConfig, jwks: JwksCache | undefined, token: string, requestedRole: string | undefined, prefix: SessionPrefix = DEFAULT_SESSION_PREFIX,
): Promise<Caller> {
  if (token.length > MAX_TOKEN_CHARS) throw invalidJwt(`the token is longer than ${MAX_TOKEN_CHARS} characters`);
  const { jwtVerify, errors } = await jose();
  let payload: JWTPayload;
  try {
    const options = {
      algorithms: config.algorithms,
      clockTolerance: config.allowedSkew,
      ...(config.audience !== undefined ? { audience: config.audience } : {}),
      ...(config.issuer !== undefined ? { issuer: config.issuer } : {}),
    };
    const result = jwks ? await jwtVerify(token, jwks.getKey, options) : await jwtVerify(token, config.key as Uint8Array, options);
    payload = result.payload;
  } catch (e) {
    throw invalidJwt(reasonOf(e, errors));
  }
  // jose checks `iat` only against a maximum age; a token issued in the future (beyond the skew) is refused too.
  if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + config.allowedSkew) throw invalidJwt('JWTIssuedAtFuture');
  const claims = claimsOf(config, payload);
  const allowed = claims[ALLOWED];
  if (allowed === undefined) throw invalidJwt(`claim "${ALLOWED}" is missing`);
  if (!Array.isArray(allowed) || allowed.length === 0 || !allowed.every((r) => typeof r === 'string' && r !== '')) {
    throw invalidJwt(`claim "${ALLOWED}" must be a non-empty list of roles`);
  }
  const fallback = claims[DEFAULT];
  if (fallback === undefined) throw invalidJwt(`claim "${DEFAULT}" is missing`);
  if (typeof fallback !== 'string' || !allowed.includes(fallback)) throw invalidJwt(`claim "${DEFAULT}" must be one of the allowed roles`);
  let role = fallback;
  if (requestedRole !== undefined && requestedRole !== '') {
    if (!allowed.includes(requestedRole)) throw new ApiError(401, 'access-denied', '$', 'your requested role is not in allowed roles');
    role = requestedRole;
  }
  const entries = Object.entries(claims)
    .filter(([k, v]) => k !== ALLOWED && k !== DEFAULT && v !== null)
    .map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]);
  const sessionVariables = collectSession(entries, prefix);
  sessionVariables[prefixedName('x-engine-role', prefix)] = role;
  return { role, sessionVariables };
}
