import { describe, expect, it } from 'vitest';
import type { Environment } from '../../src/project/config/environment.js';
import { resolveServeSettings } from '../../src/project/config/serve-settings.js';

/** `--enable-allowlist` and ENGINE_GRAPHQL_ENABLE_ALLOWLIST (issue 20). */

const env = (vars: Record<string, string>): Environment => ({
  projectDir: null, configFile: null, warnings: [], variable: (n) => vars[n], configValue: () => undefined, fallbacks: () => [],
});

describe('the allow list setting', () => {
  it('is off by default, on with the flag or the variable set to true', () => {
    expect(resolveServeSettings({}, env({})).enableAllowlist).toBeUndefined();
    expect(resolveServeSettings({ enableAllowlist: true }, env({})).enableAllowlist).toBe(true);
    expect(resolveServeSettings({}, env({ ENGINE_GRAPHQL_ENABLE_ALLOWLIST: 'true' })).enableAllowlist).toBe(true);
    expect(resolveServeSettings({}, env({ ENGINE_GRAPHQL_ENABLE_ALLOWLIST: 'FALSE' })).enableAllowlist).toBeUndefined();
  });

  it('refuses any other value of the variable', () => {
    expect(() => resolveServeSettings({}, env({ ENGINE_GRAPHQL_ENABLE_ALLOWLIST: 'yes' }))).toThrow(
      'invalid value for "enable_allowlist" from ENGINE_GRAPHQL_ENABLE_ALLOWLIST: expected true or false');
  });
});

describe('the node and alias limits of /v1/graphql (issue 28)', () => {
  it('default to the service\'s own (absent); a flag wins over the variable', () => {
    const none = resolveServeSettings({}, env({}));
    expect([none.nodeLimit, none.aliasLimit]).toEqual([undefined, undefined]);
    const s = resolveServeSettings({ nodeLimit: '500' }, env({ ENGINE_GRAPHQL_NODE_LIMIT: '7', ENGINE_GRAPHQL_ALIAS_LIMIT: '20' }));
    expect([s.nodeLimit, s.aliasLimit]).toEqual([500, 20]);
  });

  it('refuse what is not a positive integer: a flag with exit 64, a variable as config-invalid', () => {
    for (const bad of ['0', '-1', '1.5', 'x', '99999999999999999999']) {
      expect(() => resolveServeSettings({ nodeLimit: bad }, env({}))).toThrow(expect.objectContaining({
        code: 'invalid-flag-value', exitCode: 64, message: `invalid value "${bad}" for --node-limit: expected a positive integer`,
      }));
    }
    expect(() => resolveServeSettings({}, env({ ENGINE_GRAPHQL_ALIAS_LIMIT: 'many' }))).toThrow(expect.objectContaining({
      code: 'config-invalid', exitCode: 1, message: 'invalid value for "alias_limit" from ENGINE_GRAPHQL_ALIAS_LIMIT: expected a positive integer',
    }));
  });
});

/** `--query-timeout` and `--graceful-shutdown-timeout` (issue 28): seconds, from the flag, else the variable. */
describe('the time limit and the stop grace period', () => {
  it('are unset (the engine defaults: 60 s, 10 s) without flag or variable; the flag wins over the variable', () => {
    const none = resolveServeSettings({}, env({}));
    expect([none.queryTimeoutMs, none.shutdownGraceMs]).toEqual([undefined, undefined]);
    const vars = env({ ENGINE_GRAPHQL_QUERY_TIMEOUT: '5', ENGINE_GRAPHQL_GRACEFUL_SHUTDOWN_TIMEOUT: '0.5' });
    expect(resolveServeSettings({}, vars)).toMatchObject({ queryTimeoutMs: 5000, shutdownGraceMs: 500 });
    expect(resolveServeSettings({ queryTimeout: '0', gracefulShutdownTimeout: '2' }, vars)).toMatchObject({ queryTimeoutMs: 0, shutdownGraceMs: 2000 });
  });

  it('refuses a value that is not a number of seconds: the flag as invalid-flag-value (64), the variable as config-invalid (1)', () => {
    const flag = (() => {
      try {
        resolveServeSettings({ queryTimeout: '-1' }, env({}));
      } catch (e) {
        return e;
      }
      return null;
    })() as { code: string; message: string; exitCode: number };
    expect(flag).toMatchObject({ code: 'invalid-flag-value', message: 'invalid value "-1" for --query-timeout: expected a number of seconds ≥ 0', exitCode: 64 });
    const variable = (() => {
      try {
        resolveServeSettings({}, env({ ENGINE_GRAPHQL_GRACEFUL_SHUTDOWN_TIMEOUT: '10s' }));
      } catch (e) {
        return e;
      }
      return null;
    })() as { code: string; message: string; exitCode: number };
    expect(variable).toMatchObject({
      code: 'config-invalid', exitCode: 1,
      message: 'invalid value for "graceful_shutdown_timeout" from ENGINE_GRAPHQL_GRACEFUL_SHUTDOWN_TIMEOUT: expected a number of seconds ≥ 0',
    });
  });
});

/** `--live-queries-refetch-interval` (issue 32.3): milliseconds, as the incumbent's variable; 0 turns it off. */
describe('the live queries fallback refetch', () => {
  it('is unset (1 s) by default; the flag wins over the variable; 0 is allowed', () => {
    expect(resolveServeSettings({}, env({})).liveQueriesRefetchMs).toBeUndefined();
    const vars = env({ ENGINE_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_REFETCH_INTERVAL: '250' });
    expect(resolveServeSettings({}, vars).liveQueriesRefetchMs).toBe(250);
    expect(resolveServeSettings({ liveQueriesRefetchInterval: '0' }, vars).liveQueriesRefetchMs).toBe(0);
  });

  it('refuses what is not a whole number of milliseconds', () => {
    expect(() => resolveServeSettings({ liveQueriesRefetchInterval: '1.5' }, env({}))).toThrow(
      expect.objectContaining({ code: 'invalid-flag-value', exitCode: 64, message: 'invalid value "1.5" for --live-queries-refetch-interval: expected a number of milliseconds ≥ 0' }));
    expect(() => resolveServeSettings({}, env({ ENGINE_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_REFETCH_INTERVAL: '1s' }))).toThrow(
      expect.objectContaining({
        code: 'config-invalid', exitCode: 1,
        message: 'invalid value for "live_queries_multiplexed_refetch_interval" from ENGINE_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_REFETCH_INTERVAL: expected a number of milliseconds ≥ 0',
      }));
  });
});
