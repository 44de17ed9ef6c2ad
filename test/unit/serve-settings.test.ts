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
