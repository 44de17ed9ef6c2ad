import { describe, expect, it } from 'vitest';
import { levenshtein, nearest } from '../../src/project/config/config-validate.js';
import { failure, load, project, root, useTempProject, write } from './config-fixtures.js';

// Validation of config values from every source, and unknown keys (§2.5).

useTempProject();

describe('validation (§2.5)', () => {
  const invalid = (yaml: string) => failure(() => load({ cwd: root, project: 'proj', ...(project(yaml), {}) }));

  it('file values: config-invalid with file:line:col of the value', () => {
    expect(invalid('version: 4\n')).toEqual({
      code: 'config-invalid', message: 'invalid value for "version": expected 1, 2 or 3, got 4', exit: 1,
      file: 'proj/config.yaml', line: 1, column: 10,
    });
    expect(invalid('version: 2.0\n').message).toBe('invalid value for "version": expected 1, 2 or 3, got 2.0');
    expect(invalid('version: [2]\n').message).toBe('invalid value for "version": expected 1, 2 or 3, got [2]');
    expect(invalid('# c\nendpoint:   ftp://x\n')).toMatchObject({
      message: 'invalid value for "endpoint": expected an http:// or https:// URL', line: 2, column: 13,
    });
    expect(invalid('actions:\n  kind: sync\n')).toMatchObject({
      message: 'invalid value for "actions.kind": expected "synchronous" or "asynchronous"', line: 2, column: 9,
    });
    expect(invalid('metadata_directory: ""\n')).toMatchObject({
      message: 'invalid value for "metadata_directory": must not be empty', line: 1, column: 21,
    });
    expect(invalid('migrations_directory: "  "\n').message).toBe('invalid value for "migrations_directory": must not be empty');
    expect(invalid('actions:\n  codegen:\n    output_dir: ""\n').message)
      .toBe('invalid value for "actions.codegen.output_dir": must not be empty');
    expect(invalid('actions: [1]\n')).toMatchObject({
      message: 'invalid value for "actions": expected a mapping', line: 1, column: 10,
    });
    expect(invalid('actions:\n  codegen: typescript\n')).toMatchObject({
      message: 'invalid value for "actions.codegen": expected a mapping', line: 2, column: 12,
    });
    expect(invalid('endpoint: {a: 1}\n').message).toBe('invalid value for "endpoint": expected a string');
    expect(invalid('actions:\n  handler_webhook_baseurl: localhost:3000\n').message)
      .toBe('invalid value for "actions.handler_webhook_baseurl": expected an http:// or https:// URL or a {{NAME}} template');
  });

  it('config.yaml must be a mapping', () => {
    expect(invalid('- a\n- b\n')).toEqual({
      code: 'config-invalid', message: 'expected a mapping', exit: 1, file: 'proj/config.yaml', line: 1, column: 1,
    });
    expect(invalid('just text\n').code).toBe('config-invalid');
  });

  it('environment values: config-invalid naming the variable, from the process or .env', () => {
    project('version: 2\n');
    expect(failure(() => load({ env: { ENGINE_GRAPHQL_VERSION: '7' } }))).toEqual({
      code: 'config-invalid', message: 'invalid value for "version" from ENGINE_GRAPHQL_VERSION: expected 1, 2 or 3, got 7', exit: 1,
    });
    write('proj/.env', 'ENGINE_GRAPHQL_ACTIONS_KIND=later\n');
    expect(failure(() => load()).message)
      .toBe('invalid value for "actions.kind" from ENGINE_GRAPHQL_ACTIONS_KIND: expected "synchronous" or "asynchronous"');
    write('proj/.env', '');
    expect(failure(() => load({ env: { ENGINE_GRAPHQL_TIMEOUT: '0' } })).message)
      .toBe('invalid value for "timeout" from ENGINE_GRAPHQL_TIMEOUT: expected an integer ≥ 1');
    expect(failure(() => load({ env: { ENGINE_GRAPHQL_LOG_LEVEL: 'loud' } })).message)
      .toBe('invalid value for "log_level" from ENGINE_GRAPHQL_LOG_LEVEL: expected one of debug, info, warn, error');
    expect(failure(() => load({ env: { ENGINE_GRAPHQL_ENDPOINT: 'http://x/v1/graphql' } }))).toEqual({
      code: 'config-invalid', exit: 1, hint: 'use http://x',
      message: 'invalid value for "endpoint" from ENGINE_GRAPHQL_ENDPOINT: must be the engine\'s base URL, not an API path',
    });
  });

  it('flag values: invalid-flag-value, exit 64, before the project is read', () => {
    expect(failure(() => load({ timeout: '0' }))).toEqual({
      code: 'invalid-flag-value', message: 'invalid value "0" for --timeout: expected an integer ≥ 1', exit: 64,
    });
    for (const t of ['1.5', '-1', 'abc', '', ' 5', '+5']) expect(failure(() => load({ timeout: t })).code).toBe('invalid-flag-value');
    expect(failure(() => load({ logLevel: 'verbose' })).message)
      .toBe('invalid value "verbose" for --log-level: expected one of debug, info, warn, error');
    expect(failure(() => load({ endpoint: 'localhost:8080' })).message)
      .toBe('invalid value "localhost:8080" for --endpoint: expected an http:// or https:// URL');
    expect(failure(() => load({ endpoint: 'http://h:1/api/v1/query/' }))).toEqual({
      code: 'invalid-flag-value', exit: 64, hint: 'use http://h:1/api',
      message: 'invalid value "http://h:1/api/v1/query/" for --endpoint: must be the engine\'s base URL, not an API path',
    });
    project('version: 2\n');
    expect(load({ timeout: '007', logLevel: 'WARN' })).toMatchObject({ timeoutSeconds: 7, logLevel: 'warn' });
  });

  it('endpoint rules', () => {
    const ep = (v: string) => {
      project(`endpoint: "${v}"\n`);
      return load().endpoint;
    };
    expect(ep('http://localhost:8080/')).toBe('http://localhost:8080');
    expect(ep('https://h/engine//')).toBe('https://h/engine');
    expect(ep('HTTPS://H:1')).toBe('HTTPS://H:1');
    expect(ep('http://healthz')).toBe('http://healthz');
    expect(ep('http://h/v1/graphqlx')).toBe('http://h/v1/graphqlx');
    for (const [v, hint] of [
      ['http://h/v1/query', 'use http://h'], ['http://h/v1/metadata/', 'use http://h'], ['http://h/v1/graphql', 'use http://h'],
      ['http://h:9/x/v1/version', 'use http://h:9/x'], ['http://h/healthz', 'use http://h'],
    ] as const) {
      project(`endpoint: ${v}\n`);
      expect(failure(() => load())).toMatchObject({
        code: 'config-invalid', message: 'invalid value for "endpoint": must be the engine\'s base URL, not an API path', hint,
        line: 1, column: 11,
      });
    }
    for (const v of ['http://h/?a=1', 'http://h/#f', 'http://h?']) {
      project(`endpoint: "${v}"\n`);
      expect(failure(() => load()).message)
        .toBe('invalid value for "endpoint": expected an http:// or https:// URL without query or fragment');
    }
    for (const v of ['/relative', 'http://', 'http:host', 'ws://h', 'http://a b', '']) {
      project(`endpoint: "${v}"\n`);
      expect(failure(() => load()).message).toBe('invalid value for "endpoint": expected an http:// or https:// URL');
    }
  });

  it('handler_webhook_baseurl: URL or {{NAME}} template', () => {
    for (const v of ['http://h:3000', 'https://h/a/', '{{BASE}}', 'http://{{ HOST }}/x', 'prefix{{A_1}}']) {
      project(`actions:\n  handler_webhook_baseurl: "${v}"\n`);
      expect(load().actions.handlerWebhookBaseurl).toBe(v);
    }
    for (const v of ['{{1A}}', '{BASE}', 'h/x']) {
      project(`actions:\n  handler_webhook_baseurl: "${v}"\n`);
      expect(failure(() => load()).code).toBe('config-invalid');
    }
  });

  it('invalid values that are overridden are not reported', () => {
    project('endpoint: nope\nversion: 9\n');
    expect(load({ endpoint: 'http://ok', env: { ENGINE_GRAPHQL_VERSION: '2' } }).version).toBe(2);
  });

  it('YAML syntax errors are config-parse-error with a position', () => {
    project('version: 2\nendpoint: [unclosed\n');
    const e = failure(() => load({ cwd: root, project: 'proj' }));
    expect(e).toMatchObject({ code: 'config-parse-error', exit: 1, file: 'proj/config.yaml' });
    expect(e.line).toBeGreaterThanOrEqual(2);
    expect(e.message).not.toMatch(/\n/);
    project('version: 2\nversion: 1\n');
    expect(failure(() => load())).toMatchObject({ code: 'config-parse-error', line: 2, column: 1 });
    project('a: 1\n---\nb: 2\n');
    expect(failure(() => load())).toMatchObject({ code: 'config-parse-error', message: 'expected a single YAML document' });
    project('key: "bad\n');
    expect(failure(() => load()).code).toBe('config-parse-error');
  });
});

describe('unknown keys (§2.5)', () => {
  it('warn with the nearest known key at the same level and the key position', () => {
    project([
      'version: 2', 'endpont: http://x', 'admin-secret: s', 'metadata_dir: m', 'actions:', '  knd: synchronous',
      '  handler_url: http://h', '  codegen:', '    frameworks: x', '    extra: 1', 'zzz: 1', '',
    ].join('\n'));
    const w = load({ cwd: root, project: 'proj' }).warnings;
    const at = (line: number, column: number) => ({ severity: 'warning', code: 'config-unknown-key', file: 'proj/config.yaml', line, column });
    expect(w).toEqual([
      { ...at(2, 1), message: 'unknown key "endpont" (did you mean "endpoint"?)' },
      { ...at(3, 1), message: 'unknown key "admin-secret" (did you mean "admin_secret"?)' },
      { ...at(4, 1), message: 'unknown key "metadata_dir" (did you mean "metadata_directory"?)' },
      { ...at(11, 1), message: 'unknown key "zzz" (did you mean "actions"?)' },
      { ...at(6, 3), message: 'unknown key "actions.knd" (did you mean "actions.kind"?)' },
      { ...at(7, 3), message: 'unknown key "actions.handler_url" (did you mean "actions.codegen"?)' },
      { ...at(9, 5), message: 'unknown key "actions.codegen.frameworks" (did you mean "actions.codegen.framework"?)' },
      { ...at(10, 5), message: 'unknown key "actions.codegen.extra" (did you mean "actions.codegen.framework"?)' },
    ]);
  });

  it("says the incumbent's config keys are ignored, without a did-you-mean (issue 12 item 5)", () => {
    project(['version: 2', 'endpoint: http://x', 'enable_telemetry: false', 'api_paths:', '  query: v1/query', 'actions:', '  codegen:',
      '    uri: http://codegen', ''].join('\n'));
    const w = load({ cwd: root, project: 'proj' }).warnings;
    const at = (line: number, column: number) => ({ severity: 'warning', code: 'config-key-ignored', file: 'proj/config.yaml', line, column });
    expect(w).toEqual([
      { ...at(3, 1), message: 'key "enable_telemetry" of the incumbent\'s config.yaml is not used by engine; it is ignored' },
      { ...at(4, 1), message: 'key "api_paths" of the incumbent\'s config.yaml is not used by engine; it is ignored' },
      { ...at(8, 5), message: 'key "actions.codegen.uri" of the incumbent\'s config.yaml is not used by engine; it is ignored' },
    ]);
  });

  it('.env warnings come first; unknown keys do not change values', () => {
    project('endpoint: http://e\nbogus: 1\n', 'bad line\n');
    const c = load();
    expect(c.endpoint).toBe('http://e');
    expect(c.warnings.map((p) => p.code)).toEqual(['envfile-invalid-line', 'config-unknown-key']);
  });

  it('nearest: smallest Levenshtein distance, ties alphabetical', () => {
    expect(levenshtein('kitten', 'sitting')).toBe(3);
    expect(levenshtein('', 'abc')).toBe(3);
    expect(nearest('ab', ['bb', 'aa'])).toBe('aa');
    expect(nearest('x', ['version', 'endpoint'])).toBe('version');
    expect(nearest('ab', ['ba', 'bb', 'aa'])).toBe('aa');
  });
});
