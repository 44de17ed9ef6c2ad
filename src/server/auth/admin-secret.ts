import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { ADMIN_SECRET_HEADERS, collectSession, DEFAULT_SESSION_PREFIX, prefixedHeader, prefixedName, sessionValue, sessionVariableName, type SessionPrefix } from './session-names.js';

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

/**
 * engine-api.md §2.2 for a caller who holds the secret (or when none is configured): any role, any session variable,
 * under either prefix (issue 29.1).
 */
export function headerCaller(headers: IncomingHttpHeaders, prefix: SessionPrefix = DEFAULT_SESSION_PREFIX): Caller {
  const roleHeader = prefixedHeader(headers, 'role');
  const role = roleHeader ? roleHeader : 'admin';
  const entries: [string, string][] = [];
  for (const name of Object.keys(headers)) {
    const canonical = sessionVariableName(name);
    if (canonical !== undefined && canonical !== 'x-engine-admin-secret' && !ADMIN_SECRET_HEADERS.includes(name.toLowerCase())) {
      entries.push([name, headerValue(headers, name) ?? '']);
    }
  }
  const sessionVariables = collectSession(entries, prefix);
  sessionVariables[prefixedName('x-engine-role', prefix)] = role;
  const backendOnly = sessionValue(sessionVariables, 'x-engine-use-backend-only-permissions')?.trim().toLowerCase() === 'true';
  return backendOnly ? { role, sessionVariables, backendOnly } : { role, sessionVariables };
}
