import { describe, expect, it } from 'vitest';
import type { Environment } from '../../src/project/config/environment.js';
import { resolveServeSettings } from '../../src/project/config/serve-settings.js';
import { connectionString, poolConfig, sslMode, withoutSsl } from '../../src/db/postgres-config.js';

/** Issue 31 point 7: the pool, prepared statements, read replicas and sslmode. */

const env = (vars: Record<string, string>): Environment => ({
  projectDir: null, configFile: null, warnings: [], variable: (n) => vars[n], configValue: () => undefined, fallbacks: () => [],
});

describe('the pool settings of serve', () => {
  it('are absent (the pool defaults) without flag or variable', () => {
    const s = resolveServeSettings({ preparedStatements: true }, env({}));
    expect(s.pool).toBeUndefined();
    expect(s.readReplicaUrls).toBeUndefined();
  });

  it('come from the flags, else the variables, in seconds', () => {
    const vars = env({
      ENGINE_GRAPHQL_PG_CONNECTIONS: '20', ENGINE_GRAPHQL_PG_TIMEOUT: '30', ENGINE_GRAPHQL_PG_CONN_LIFETIME: '0',
      ENGINE_GRAPHQL_PG_POOL_TIMEOUT: '2.5', ENGINE_GRAPHQL_USE_PREPARED_STATEMENTS: 'false',
    });
    expect(resolveServeSettings({}, vars).pool).toEqual({ max: 20, idleTimeoutMs: 30_000, lifetimeMs: 0, acquireTimeoutMs: 2500, preparedStatements: false });
    const flags = { pgConnections: '3', pgTimeout: '1', pgConnLifetime: '60', pgPoolTimeout: '0', preparedStatements: false };
    expect(resolveServeSettings(flags, env({ ENGINE_GRAPHQL_USE_PREPARED_STATEMENTS: 'true' })).pool)
      .toEqual({ max: 3, idleTimeoutMs: 1000, lifetimeMs: 60_000, acquireTimeoutMs: 0, preparedStatements: false });
    expect(resolveServeSettings({ preparedStatements: true }, env({ ENGINE_GRAPHQL_USE_PREPARED_STATEMENTS: 'TRUE' })).pool).toBeUndefined();
  });

  it('refuse bad values: a flag as invalid-flag-value (64), a variable as config-invalid (1)', () => {
    expect(() => resolveServeSettings({ pgConnections: '0' }, env({}))).toThrow(expect.objectContaining({
      code: 'invalid-flag-value', exitCode: 64, message: 'invalid value "0" for --pg-connections: expected a positive integer',
    }));
    expect(() => resolveServeSettings({}, env({ ENGINE_GRAPHQL_PG_TIMEOUT: '-3' }))).toThrow(expect.objectContaining({
      code: 'config-invalid', exitCode: 1, message: 'invalid value for "pg_timeout" from ENGINE_GRAPHQL_PG_TIMEOUT: expected a number of seconds ≥ 0',
    }));
    expect(() => resolveServeSettings({ pgPoolTimeout: 'soon' }, env({}))).toThrow(expect.objectContaining({
      code: 'invalid-flag-value', exitCode: 64, message: 'invalid value "soon" for --pg-pool-timeout: expected a number of seconds ≥ 0',
    }));
    expect(() => resolveServeSettings({}, env({ ENGINE_GRAPHQL_USE_PREPARED_STATEMENTS: 'no' }))).toThrow(expect.objectContaining({
      code: 'config-invalid', exitCode: 1,
      message: 'invalid value for "use_prepared_statements" from ENGINE_GRAPHQL_USE_PREPARED_STATEMENTS: expected true or false',
    }));
  });
});

describe('the read replicas of serve', () => {
  it('are a comma list of URLs, from the flag else the variable', () => {
    const vars = env({ ENGINE_GRAPHQL_READ_REPLICA_URLS: 'postgres://a/db, postgresql://b/db,' });
    expect(resolveServeSettings({}, vars).readReplicaUrls).toEqual(['postgres://a/db', 'postgresql://b/db']);
    expect(resolveServeSettings({ readReplicaUrls: 'postgres://c/db' }, vars).readReplicaUrls).toEqual(['postgres://c/db']);
  });

  it('refuse what is not a postgres URL, without showing its password', () => {
    expect(() => resolveServeSettings({ readReplicaUrls: 'postgres://a/db,mysql://u:hunter2@b/db' }, env({}))).toThrow(expect.objectContaining({
      code: 'invalid-flag-value', exitCode: 64,
      message: 'invalid value for --read-replica-urls: expected a comma-separated list of postgres:// URLs, got "mysql://u:***@b/db"',
    }));
    expect(() => resolveServeSettings({}, env({ ENGINE_GRAPHQL_READ_REPLICA_URLS: 'replica-host' }))).toThrow(expect.objectContaining({
      code: 'config-invalid', exitCode: 1,
      message: 'invalid value for "read_replica_urls" from ENGINE_GRAPHQL_READ_REPLICA_URLS: expected a comma-separated list of postgres:// URLs, got "replica-host"',
    }));
  });
});

describe('sslmode and the pool configuration', () => {
  it('reads sslmode with libpq\'s meaning; a URL without one is left as it is', () => {
    expect(connectionString('postgres://h/db')).toBe('postgres://h/db');
    expect(connectionString('postgres://h/db?sslmode=require')).toBe('postgres://h/db?sslmode=require&uselibpqcompat=true');
    expect(connectionString('postgres://h/db?sslmode=allow#x')).toBe('postgres://h/db?sslmode=prefer&uselibpqcompat=true#x');
    expect(connectionString('postgres://h/db?sslmode=require&uselibpqcompat=false')).toBe('postgres://h/db?sslmode=require&uselibpqcompat=false');
    expect(sslMode('postgres://h/db?a=1&sslmode=Verify-Full')).toBe('verify-full');
    expect(withoutSsl('postgres://h/db?sslmode=prefer&a=1')).toBe('postgres://h/db?sslmode=disable&a=1');
  });

  it('gives pg the pool\'s settings, with defaults', () => {
    expect(poolConfig('postgres://h/db', {})).toMatchObject({ max: 10, connectionTimeoutMillis: 10_000, idleTimeoutMillis: 180_000, maxLifetimeSeconds: 600 });
    expect(poolConfig('postgres://h/db', { max: 2, acquireTimeoutMs: 0, idleTimeoutMs: 0, lifetimeMs: 1500 }))
      .toMatchObject({ max: 2, connectionTimeoutMillis: 0, idleTimeoutMillis: 0, maxLifetimeSeconds: 2 });
  });
});
