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
