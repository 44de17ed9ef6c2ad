import { createHash } from 'node:crypto';
import type { ApiError } from '../../../errors.js';
import type { Queryable } from '../../../db/database.js';
import { rateRuleFor, type ApiLimits } from '../../../metadata/kinds/api-limits.js';
import { sessionValue } from '../../auth/session-names.js';
import { gqlError } from '../errors.js';
import { checkBatchLimit } from './api-limits.js';

/**
 * The rate limit of the API limits (issue 31.6): requests per minute per role, or per role and unique parameters (the
 * client's IP, or session variables). Several engines share one database and so one count: each request bumps its
 * key's counter for the current minute in one statement, which also reads the previous minute's, and the incumbent's
 * sliding window is estimated from the two (the previous minute weighted by how much of it the window still covers).
 * Minutes are the database's, so engines with skewed clocks agree. Keys are digests: session values never reach a table.
 */
const BUMP_SQL = `WITH now AS (SELECT extract(epoch FROM clock_timestamp()) / 60 AS m),
old AS (DELETE FROM engine_catalog.rate_limits WHERE key = $1 AND minute < (SELECT floor(m)::bigint - 1 FROM now)),
bumped AS (
  INSERT INTO engine_catalog.rate_limits AS r (key, minute, count) SELECT $1, floor(m)::bigint, $2 FROM now
  ON CONFLICT (key, minute) DO UPDATE SET count = r.count + excluded.count
  RETURNING r.count, r.minute)
SELECT b.count AS current, coalesce(p.count, 0) AS previous, (SELECT (m - floor(m))::float8 FROM now) AS elapsed
FROM bumped b LEFT JOIN engine_catalog.rate_limits p ON p.key = $1 AND p.minute = b.minute - 1`;

export interface RateCaller {
  role: string;
  sessionVariables: Record<string, string>;
  /** The client's address, read only when a rule is keyed by IP. */
  ip?: () => string | undefined;
}

/** Counts `operations` for the caller; the `rate-limit-exceeded` error when the window is over the role's limit. */
export async function checkRateLimit(db: Queryable, limits: ApiLimits | undefined, caller: RateCaller, operations: number): Promise<ApiError | null> {
  if (!limits || limits.disabled) return null;
  const found = rateRuleFor(limits, caller.role);
  if (!found) return null;
  const { rule } = found;
  const parts: string[] = [found.scope, caller.role];
  if (rule.unique_params === 'IP') parts.push(`ip:${caller.ip?.() ?? ''}`);
  else if (rule.unique_params) for (const name of rule.unique_params) parts.push(`${name}=${sessionValue(caller.sessionVariables, name) ?? ''}`);
  const key = createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
  const [row] = await db.query<{ current: number; previous: number; elapsed: number }>(BUMP_SQL, [key, operations]);
  const current = Number(row?.current ?? 0);
  const previous = Number(row?.previous ?? 0);
  const elapsed = Number(row?.elapsed ?? 0);
  const estimate = current + previous * (1 - elapsed);
  if (estimate <= rule.max_reqs_per_min) return null;
  return gqlError('rate-limit-exceeded', '$', `too many requests: the rate limit is ${rule.max_reqs_per_min} requests per minute`);
}

/** The limits of a whole request, before any of its operations runs: the batch limit, then the rate limit. */
export async function checkRequestLimits(db: Queryable, limits: ApiLimits, caller: RateCaller, operations: number, batched: boolean): Promise<ApiError | null> {
  if (limits.disabled || caller.role === 'admin') return null;
  return (batched ? checkBatchLimit(limits, caller.role, operations) : null) ?? (await checkRateLimit(db, limits, caller, operations));
}
