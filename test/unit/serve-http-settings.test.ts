import { describe, expect, it } from 'vitest';
import type { Environment } from '../../src/project/config/environment.js';
import { resolveServeSettings } from '../../src/project/config/serve-settings.js';

/** `--cors-domain`, `--disable-cors`, `--enabled-log-types`, `--log-format` and their variables (issue 31). */

const env = (vars: Record<string, string>): Environment => ({
  projectDir: null, configFile: null, warnings: [], variable: (n) => vars[n], configValue: () => undefined, fallbacks: () => [],
});

describe('CORS settings', () => {
  it('default to any origin (absent); a flag wins over the variable; lists are lower-cased', () => {
    expect(resolveServeSettings({}, env({})).cors).toBeUndefined();
    expect(resolveServeSettings({ corsDomain: '*' }, env({})).cors).toEqual({ origins: '*' });
    expect(resolveServeSettings({ corsDomain: 'https://App.test, http://localhost:3000,https://*.example.com' }, env({ ENGINE_GRAPHQL_CORS_DOMAIN: 'http://x.test' })).cors)
      .toEqual({ origins: ['https://app.test', 'http://localhost:3000', 'https://*.example.com'] });
    expect(resolveServeSettings({}, env({ ENGINE_GRAPHQL_CORS_DOMAIN: 'http://x.test' })).cors).toEqual({ origins: ['http://x.test'] });
  });

  it('--disable-cors or ENGINE_GRAPHQL_DISABLE_CORS=true wins over any domain', () => {
    expect(resolveServeSettings({ disableCors: true, corsDomain: 'http://x.test' }, env({})).cors).toEqual({ disabled: true });
    expect(resolveServeSettings({}, env({ ENGINE_GRAPHQL_DISABLE_CORS: 'TRUE' })).cors).toEqual({ disabled: true });
    expect(resolveServeSettings({}, env({ ENGINE_GRAPHQL_DISABLE_CORS: 'false' })).cors).toBeUndefined();
  });

  it('refuses an entry that is not an origin: a flag with exit 64, a variable as config-invalid', () => {
    for (const bad of ['example.com', 'ftp://x.test', 'http://x.test/path', 'http://*x.test', 'http://x.test:99999x']) {
      expect(() => resolveServeSettings({ corsDomain: `http://ok.test,${bad}` }, env({}))).toThrow(expect.objectContaining({
        code: 'invalid-flag-value', exitCode: 64,
        message: `invalid value "http://ok.test,${bad}" for --cors-domain: "${bad}" is not an origin (expected * or scheme://host[:port], host may start with *.)`,
      }));
    }
    expect(() => resolveServeSettings({}, env({ ENGINE_GRAPHQL_CORS_DOMAIN: 'nope' }))).toThrow(expect.objectContaining({
      code: 'config-invalid', exitCode: 1,
      message: 'invalid value for "cors_domain" from ENGINE_GRAPHQL_CORS_DOMAIN: "nope" is not an origin (expected * or scheme://host[:port], host may start with *.)',
    }));
    expect(() => resolveServeSettings({}, env({ ENGINE_GRAPHQL_DISABLE_CORS: 'yes' }))).toThrow(expect.objectContaining({
      code: 'config-invalid', message: 'invalid value for "disable_cors" from ENGINE_GRAPHQL_DISABLE_CORS: expected true or false',
    }));
  });
});

describe('log settings', () => {
  it('types and format from a flag or a variable; absent by default', () => {
    const none = resolveServeSettings({}, env({}));
    expect([none.logTypes, none.logFormat]).toEqual([undefined, undefined]);
    const s = resolveServeSettings({ enabledLogTypes: 'startup, query-log', logFormat: 'JSON' }, env({ ENGINE_GRAPHQL_ENABLED_LOG_TYPES: 'http-log' }));
    expect([s.logTypes, s.logFormat]).toEqual([['startup', 'query-log'], 'json']);
    const v = resolveServeSettings({}, env({ ENGINE_GRAPHQL_ENABLED_LOG_TYPES: 'http-log,health-check', ENGINE_GRAPHQL_LOG_FORMAT: 'text' }));
    expect([v.logTypes, v.logFormat]).toEqual([['http-log', 'health-check'], 'text']);
  });

  it('refuses unknown types and formats', () => {
    expect(() => resolveServeSettings({ enabledLogTypes: 'startup,access-log' }, env({}))).toThrow(expect.objectContaining({
      code: 'invalid-flag-value', exitCode: 64,
      message: 'invalid value "startup,access-log" for --enabled-log-types: unknown log type "access-log" (expected a comma list of startup, http-log, query-log, webhook-log, websocket-log, event-trigger, health-check)',
    }));
    expect(() => resolveServeSettings({}, env({ ENGINE_GRAPHQL_LOG_FORMAT: 'yaml' }))).toThrow(expect.objectContaining({
      code: 'config-invalid', exitCode: 1, message: 'invalid value for "log_format" from ENGINE_GRAPHQL_LOG_FORMAT: expected json or text',
    }));
  });
});

describe('metrics secret (issue 31.3)', () => {
  it('is read from ENGINE_GRAPHQL_METRICS_SECRET only; unset or empty leaves /v1/metrics off', () => {
    expect(resolveServeSettings({}, env({})).metricsSecret).toBeUndefined();
    expect(resolveServeSettings({}, env({ ENGINE_GRAPHQL_METRICS_SECRET: '' })).metricsSecret).toBeUndefined();
    expect(resolveServeSettings({}, env({ ENGINE_GRAPHQL_METRICS_SECRET: 's3cret' })).metricsSecret).toBe('s3cret');
  });
});
