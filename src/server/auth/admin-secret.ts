import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export interface Caller {
  role: string;
  sessionVariables: Record<string, string>;
  /**
   * Backend-only insert permissions apply: the caller holds the admin secret (or none is configured) and sent
   * `X-Engine-Use-Backend-Only-Permissions: true`. Never true for a token, a hook or the unauthorized role.
   */
  backendOnly?: boolean;
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** Constant time regardless of where the strings differ or how long they are. */
export function secretMatches(given: string, secret: string): boolean {
  return timingSafeEqual(digest(given), digest(secret)) && given.length === secret.length;
}

export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** engine-api.md §2.2 for a caller who holds the secret (or when none is configured): any role, any session variable. */
export function headerCaller(headers: IncomingHttpHeaders): Caller {
  const roleHeader = headerValue(headers, 'x-engine-role');
  const role = roleHeader ? roleHeader : 'admin';
  const sessionVariables: Record<string, string> = {};
  for (const name of Object.keys(headers)) {
    if (name.startsWith('x-engine-') && name !== 'x-engine-admin-secret') {
      sessionVariables[name] = headerValue(headers, name) ?? '';
    }
  }
  sessionVariables['x-engine-role'] = role;
  const backendOnly = sessionVariables['x-engine-use-backend-only-permissions']?.trim().toLowerCase() === 'true';
  return backendOnly ? { role, sessionVariables, backendOnly } : { role, sessionVariables };
}
