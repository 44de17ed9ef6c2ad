import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError } from '../errors.js';

export interface Caller {
  role: string;
  sessionVariables: Record<string, string>;
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** Constant time regardless of where the strings differ or how long they are. */
function secretMatches(given: string, secret: string): boolean {
  return timingSafeEqual(digest(given), digest(secret)) && given.length === secret.length;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** Resolves the caller of a request (engine-api.md §2.2, §2.4). Throws the 401 errors. */
export function resolveCaller(headers: IncomingHttpHeaders, adminSecret: string | undefined): Caller {
  if (adminSecret) {
    const given = header(headers, 'x-engine-admin-secret');
    if (given === undefined) throw new ApiError(401, 'access-denied', '$', 'x-engine-admin-secret required, but not found');
    if (!secretMatches(given, adminSecret)) throw new ApiError(401, 'access-denied', '$', 'invalid x-engine-admin-secret');
  }
  const roleHeader = header(headers, 'x-engine-role');
  const role = roleHeader ? roleHeader : 'admin';
  const sessionVariables: Record<string, string> = {};
  for (const name of Object.keys(headers)) {
    if (name.startsWith('x-engine-') && name !== 'x-engine-admin-secret') {
      sessionVariables[name] = header(headers, name) ?? '';
    }
  }
  sessionVariables['x-engine-role'] = role;
  return { role, sessionVariables };
}
