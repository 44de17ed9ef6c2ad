import { describe, expect, it } from 'vitest';
import { variableFor, type ConfigKey } from '../../src/project/config/config.js';
import { fallbackMessage, loadEnvironment } from '../../src/project/config/environment.js';
import { resolveServeSettings } from '../../src/project/config/serve-settings.js';
import { failure, load, proj, project, useTempProject } from './config-fixtures.js';

/** Issue 29 point 3: the incumbent's HASURA_GRAPHQL_* variables and config.yaml keys stand in for the engine's. */

useTempProject();

const incumbent = (name: string) => name.replace(/^ENGINE_GRAPHQL_/, 'HASURA_GRAPHQL_');

describe("the incumbent's variables as fallbacks", () => {
  const keys: [ConfigKey, string, (c: ReturnType<typeof load>) => unknown][] = [
    ['endpoint', 'http://h:1', (c) => c.endpoint],
    ['admin_secret', 's3cret', (c) => c.adminSecret],
    ['actions.kind', 'asynchronous', (c) => c.actions.kind],
    ['timeout', '7', (c) => String(c.timeoutSeconds)],
    ['log_level', 'warn', (c) => c.logLevel],
  ];
  for (const [key, value, get] of keys) {
    it(`${key}: from the process environment and from .env; the engine's name wins`, () => {
      const name = variableFor(key);
      project('version: 2\n', '');
      let c = load({ env: { [incumbent(name)]: value } });
      expect(get(c)).toBe(value);
      expect(c.sources[key]).toBe('env');
      expect(c.fallbacks()).toEqual([{ variable: name, from: incumbent(name) }]);
      project('version: 2\n', `${incumbent(name)}=${value}\n`);
      c = load();
      expect([get(c), c.sources[key]]).toEqual([value, 'envfile']);
      // The engine's name wins wherever it is set, here in .env over the process's incumbent name.
      project('version: 2\n', `${name}=${key === 'timeout' ? '9' : key === 'log_level' ? 'error' : key === 'actions.kind' ? 'synchronous' : key === 'endpoint' ? 'http://e:2' : 'own'}\n`);
      c = load({ env: { [incumbent(name)]: value } });
      expect(get(c)).not.toBe(value);
      expect(c.sources[key]).toBe('envfile');
      expect(c.fallbacks()).toEqual([]);
    });
  }

  it('an engine variable set to "" lets the incumbent\'s stand in', () => {
    project('version: 2\n', '');
    const c = load({ env: { ENGINE_GRAPHQL_ENDPOINT: '', HASURA_GRAPHQL_ENDPOINT: 'http://h:1' } });
    expect(c.endpoint).toBe('http://h:1');
  });

  it('HASURA_GRAPHQL_ACCESS_KEY (the incumbent\'s 1.0 name) is the admin secret after HASURA_GRAPHQL_ADMIN_SECRET', () => {
    project('version: 2\n', 'HASURA_GRAPHQL_ACCESS_KEY=old\n');
    expect(load().adminSecret).toBe('old');
    expect(load({ env: { HASURA_GRAPHQL_ADMIN_SECRET: 'new' } }).adminSecret).toBe('new');
  });

  it('an invalid value names the variable it came from, and the failure changes nothing', () => {
    project('version: 2\n', 'HASURA_GRAPHQL_TIMEOUT=soon\n');
    expect(failure(() => load())).toEqual({
      code: 'config-invalid', message: 'invalid value for "timeout" from HASURA_GRAPHQL_TIMEOUT: expected an integer ≥ 1', exit: 1,
    });
  });

  it('only ENGINE_GRAPHQL_ names have fallbacks: other variables are read as written', () => {
    project('version: 2\nadmin_secret: ${MY_SECRET}\n', '');
    expect(failure(() => load({ env: { HASURA_GRAPHQL_MY_SECRET: 'x' } })).code).toBe('env-var-missing');
  });

  it('the start-up line lists each fallback once', () => {
    project('version: 2\n', 'HASURA_GRAPHQL_ADMIN_SECRET=a\nHASURA_GRAPHQL_SERVER_PORT=8181\n');
    const env = loadEnvironment({ cwd: proj, env: { HASURA_GRAPHQL_DATABASE_URL: 'postgres://u@127.0.0.1/db' } });
    const s = resolveServeSettings({}, env);
    expect([s.adminSecret, s.port, s.databaseUrl]).toEqual(['a', 8181, 'postgres://u@127.0.0.1/db']);
    resolveServeSettings({}, env);
    expect(fallbackMessage(env.fallbacks())).toBe("Using the incumbent's variables: HASURA_GRAPHQL_SERVER_PORT for " +
      'ENGINE_GRAPHQL_SERVER_PORT, HASURA_GRAPHQL_DATABASE_URL for ENGINE_GRAPHQL_DATABASE_URL, HASURA_GRAPHQL_ADMIN_SECRET for ' +
      'ENGINE_GRAPHQL_ADMIN_SECRET');
    expect(fallbackMessage([])).toBeNull();
  });
});

describe("config.yaml's access_key (the incumbent's version 1)", () => {
  it('is the admin secret when admin_secret is absent, without a warning; admin_secret wins', () => {
    project('access_key: ${KEY}\n', 'KEY=k1\n');
    const c = load();
    expect([c.adminSecret, c.sources.admin_secret, c.warnings]).toEqual(['k1', 'file', []]);
    project('access_key: k1\nadmin_secret: k2\n');
    expect(load().adminSecret).toBe('k2');
  });

  it('is the admin secret of engine serve too', () => {
    project('version: 2\naccess_key: k1\n', '');
    expect(resolveServeSettings({}, loadEnvironment({ cwd: proj, env: {} })).adminSecret).toBe('k1');
  });

  it('an invalid access_key is reported at its line', () => {
    project('version: 2\naccess_key: [a]\n');
    expect(failure(() => load())).toMatchObject({ code: 'config-invalid', message: 'invalid value for "admin_secret": expected a string', line: 2, column: 13 });
  });
});
