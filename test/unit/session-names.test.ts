import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import type { Environment } from '../../src/project/config/environment.js';
import { resolveServeSettings } from '../../src/project/config/serve-settings.js';
import { headerCaller } from '../../src/server/auth/admin-secret.js';
import {
  collectSession, isSessionVariableName, parseSessionPrefix, prefixedHeader, sessionValue, sessionVariableName,
} from '../../src/server/auth/session-names.js';

// Issue 29: one place decides what names a session variable, and how the outbound prefix is set.

describe('session-variable names', () => {
  it('x-engine- and x-hasura- in any case name one variable; anything else names none', () => {
    expect(['X-Hasura-User-Id', 'x-hasura-user-id', 'X-ENGINE-USER-ID', 'x-Engine-User-id'].map(sessionVariableName)).toEqual(Array(4).fill('x-engine-user-id'));
    expect(['x-hasurauser', 'x-engine', 'hasura-user-id', 'X-Other-Id', ''].map(sessionVariableName)).toEqual(Array(5).fill(undefined));
    expect([isSessionVariableName('X-Hasura-Org'), isSessionVariableName(3), isSessionVariableName('x-engine')]).toEqual([true, false, false]);
    // Compared by character codes: one character off anywhere in the prefix, or a non-letter that is a letter's code
    // with the case bit cleared, names none.
    expect(['y-engine-a', 'x_engine-a', 'x-engine_a', 'x-engin3-a', 'x-hasurb-a', 'x-\u0005ngine-a', 'x-ENGİNE-a', 'x-engine'].map(sessionVariableName))
      .toEqual(Array(8).fill(undefined));
    expect(['x-hasura-', 'X-hAsUrA-Org', 'x-engine-Org'].map(sessionVariableName)).toEqual(['x-engine-', 'x-engine-org', 'x-engine-org']);
  });

  it('a value is found under either prefix', () => {
    expect(sessionValue({ 'x-hasura-user-id': '7' }, 'X-Engine-User-Id')).toBe('7');
    expect(sessionValue({ 'x-engine-user-id': '8' }, 'X-HASURA-USER-ID')).toBe('8');
    expect(sessionValue({ 'x-engine-user-id': '8' }, 'user-id')).toBeUndefined();
  });

  it('collects under the outbound prefix; the same value twice is one variable, two values are refused', () => {
    expect(collectSession([['X-Hasura-User-Id', '1'], ['x-engine-user-id', '1'], ['other', 'x']], 'x-hasura-')).toEqual({ 'x-hasura-user-id': '1' });
    expect(collectSession([['X-Hasura-Role', 'user']], 'x-engine-')).toEqual({ 'x-engine-role': 'user' });
    let err: unknown;
    try {
      collectSession([['x-hasura-user-id', '1'], ['X-Engine-User-Id', '2']], 'x-engine-');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 400, code: 'access-denied', path: '$',
      message: 'session variable "user-id" is given twice with different values ("X-Engine-User-Id" and "x-hasura-user-id"): send it under one prefix, x-engine- or x-hasura-' });
  });

  it('headers: either prefix; both with different values refused', () => {
    expect(prefixedHeader({ 'x-hasura-admin-secret': 's' }, 'admin-secret')).toBe('s');
    expect(prefixedHeader({ 'x-hasura-role': 'u', 'x-engine-role': 'u' }, 'role')).toBe('u');
    expect(() => prefixedHeader({ 'x-hasura-role': 'u', 'x-engine-role': 'v' }, 'role')).toThrow('session variable "role" is given twice');
    expect(headerCaller({ 'x-hasura-role': 'user', 'x-hasura-use-backend-only-permissions': 'true', 'x-hasura-admin-secret': 's' }, 'x-hasura-'))
      .toEqual({ role: 'user', backendOnly: true, sessionVariables: { 'x-hasura-role': 'user', 'x-hasura-use-backend-only-permissions': 'true' } });
  });
});

const env = (vars: Record<string, string>): Environment => ({
  projectDir: null, configFile: null, warnings: [], variable: (n) => vars[n], configValue: () => undefined, fallbacks: () => [],
});

describe('ENGINE_GRAPHQL_SESSION_VARIABLE_PREFIX and --session-variable-prefix', () => {
  it('default absent (x-engine-); the flag wins over the variable; the dash is optional, case ignored', () => {
    expect(resolveServeSettings({}, env({})).sessionVariablePrefix).toBeUndefined();
    expect(resolveServeSettings({}, env({ ENGINE_GRAPHQL_SESSION_VARIABLE_PREFIX: 'X-Hasura-' })).sessionVariablePrefix).toBe('x-hasura-');
    expect(resolveServeSettings({ sessionVariablePrefix: 'x-engine' }, env({ ENGINE_GRAPHQL_SESSION_VARIABLE_PREFIX: 'x-hasura-' })).sessionVariablePrefix).toBe('x-engine-');
    expect(['x-hasura', 'X-ENGINE-', ' x-hasura- '].map(parseSessionPrefix)).toEqual(['x-hasura-', 'x-engine-', 'x-hasura-']);
  });

  it('refuses another prefix: a flag with exit 64, the variable as config-invalid', () => {
    expect(() => resolveServeSettings({ sessionVariablePrefix: 'x-' }, env({}))).toThrow(expect.objectContaining({
      code: 'invalid-flag-value', exitCode: 64, message: 'invalid value "x-" for --session-variable-prefix: expected x-engine- or x-hasura-',
    }));
    expect(() => resolveServeSettings({}, env({ ENGINE_GRAPHQL_SESSION_VARIABLE_PREFIX: 'hasura' }))).toThrow(expect.objectContaining({
      code: 'config-invalid', exitCode: 1,
      message: 'invalid value for "session_variable_prefix" from ENGINE_GRAPHQL_SESSION_VARIABLE_PREFIX: expected x-engine- or x-hasura-',
    }));
  });
});
