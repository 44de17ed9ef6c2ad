import pg from 'pg';
import { ApiError } from '../errors.js';

/** The pool of an external PostgreSQL (issue 31 point 7); every field has a default. */
export interface PoolSettings {
  /** Most connections open at once (`--pg-connections`). */
  max?: number;
  /** How long a request waits for a connection, from the pool or a new one (`--pg-pool-timeout`), in ms. */
  acquireTimeoutMs?: number;
  /** An idle connection is closed after this long (`--pg-timeout`), in ms; 0: never. */
  idleTimeoutMs?: number;
  /** A connection is closed once this old, when next idle (`--pg-conn-lifetime`), in ms; 0: never. */
  lifetimeMs?: number;
  /**
   * False behind a pooler in transaction mode (PgBouncer): no named prepared statements and no session settings, each
   * transaction sets what it needs with SET LOCAL (`--no-prepared-statements`).
   */
  preparedStatements?: boolean;
  /** The statement_timeout of GraphQL work (ms), or null for none. */
  statementTimeoutMs?: number | null;
}

export const DEFAULT_POOL = { max: 10, acquireTimeoutMs: 10_000, idleTimeoutMs: 180_000, lifetimeMs: 600_000 } as const;

/**
 * The connection string pg is given for `url`, with libpq's meaning of `sslmode` (the incumbent's driver is libpq):
 * `require` encrypts without verifying the certificate, `verify-ca` checks the chain only, `verify-full` the host name
 * too, `disable` never encrypts, `prefer` and `allow` encrypt when the server offers it (see `withoutSsl`). Without
 * sslmode nothing is encrypted, as before. pg reads libpq's meaning when the URL asks for it (`uselibpqcompat`).
 */
export function connectionString(url: string): string {
  const mode = sslMode(url);
  if (mode === null || /[?&]uselibpqcompat=/i.test(url)) return url;
  // libpq's `allow` tries without encryption first: pg cannot, and `prefer` is the nearest.
  const u = mode === 'allow' ? url.replace(/([?&]sslmode=)allow/i, '$1prefer') : url;
  const at = u.search(/#/);
  const [head, tail] = at < 0 ? [u, ''] : [u.slice(0, at), u.slice(at)];
  return `${head}&uselibpqcompat=true${tail}`;
}

/** The URL's sslmode, lower case, or null. */
export function sslMode(url: string): string | null {
  const m = /[?&]sslmode=([^&#]*)/i.exec(url);
  return m?.[1] ? decodeURIComponent(m[1]).toLowerCase() : null;
}

/** `url` without encryption: what `prefer` falls back to when the server offers none. */
export function withoutSsl(url: string): string {
  return url.replace(/([?&]sslmode=)[^&#]*/i, '$1disable');
}

/** Whether `url` asks for encryption only when the server offers it (libpq's `prefer`, `allow`). */
export function sslOptional(url: string): boolean {
  const mode = sslMode(url);
  return mode === 'prefer' || mode === 'allow';
}

/** The error pg raises when it asked for SSL and the server has none. */
export function noSslOnServer(e: unknown): boolean {
  return e instanceof Error && /does not support SSL/i.test(e.message);
}

/** pg-pool's error when no connection came within connectionTimeoutMillis (from the pool or a new one). */
export const POOL_TIMEOUT = 'timeout exceeded when trying to connect';

/**
 * A request that got no connection within the pool timeout: the server is busy, not the request wrong (503 on the
 * metadata API; a GraphQL error with the same code).
 */
export function poolBusy(timeoutMs: number): ApiError {
  return new ApiError(503, 'database-busy', '$', `no database connection was free within the pool timeout of ${timeoutMs / 1000} s`);
}

/** The pool's configuration from the settings (defaults filled in). */
export function poolConfig(url: string, s: PoolSettings): pg.PoolConfig {
  return {
    connectionString: connectionString(url),
    max: s.max ?? DEFAULT_POOL.max,
    connectionTimeoutMillis: s.acquireTimeoutMs ?? DEFAULT_POOL.acquireTimeoutMs,
    idleTimeoutMillis: s.idleTimeoutMs ?? DEFAULT_POOL.idleTimeoutMs,
    // pg-pool counts whole seconds; below one second a lifetime would mean none.
    maxLifetimeSeconds: Math.max(0, Math.ceil((s.lifetimeMs ?? DEFAULT_POOL.lifetimeMs) / 1000)),
    // Pipelining (pg ≥ 8.20) lets `batch` send a request's statements without waiting for each answer; code that
    // awaits every query behaves as without it.
    pipeline: true,
  } as pg.PoolConfig;
}
