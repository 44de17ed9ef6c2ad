import type { KeyObject } from 'node:crypto';
import { SignJWT, type CryptoKey, type JWTPayload } from 'jose';

type SigningKey = Uint8Array | CryptoKey | KeyObject;

/** Tokens for the auth tests, signed with jose (never by hand). */

export const NS = 'https://engine/jwt/claims';
export const HS_SECRET = 'a-test-secret-of-at-least-32-bytes!!';
export const HS_KEY = new TextEncoder().encode(HS_SECRET);

export const claims = (userId: number | string, roles: string[] = ['user', 'anonymous'], defaultRole = 'user') =>
  ({ 'x-engine-allowed-roles': roles, 'x-engine-default-role': defaultRole, 'x-engine-user-id': String(userId) });

export interface SignOptions {
  alg?: string;
  kid?: string;
  /** Seconds from now; negative for a past time. Default: in an hour. */
  exp?: number;
  nbf?: number;
  /** Seconds from now (default 0). */
  iat?: number;
  iss?: string;
  aud?: string | string[];
}

export async function sign(payload: JWTPayload, key: SigningKey, o: SignOptions = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  let jwt = new SignJWT(payload).setProtectedHeader({ alg: o.alg ?? 'HS256', ...(o.kid ? { kid: o.kid } : {}) }).setIssuedAt(now + (o.iat ?? 0)).setExpirationTime(now + (o.exp ?? 3600));
  if (o.nbf !== undefined) jwt = jwt.setNotBefore(now + o.nbf);
  if (o.iss !== undefined) jwt = jwt.setIssuer(o.iss);
  if (o.aud !== undefined) jwt = jwt.setAudience(o.aud);
  return jwt.sign(key);
}

/** A user's token in the default namespace. */
export const userToken = (userId: number | string, o: SignOptions = {}, key: SigningKey = HS_KEY) =>
  sign({ [NS]: claims(userId) }, key, { iss: 'https://issuer.test', aud: 'engine-tests', ...o });

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
