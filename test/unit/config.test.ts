import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliError } from '../../src/errors.js';
import { loadConfig, variableFor, type ConfigKey, type LoadConfigOptions } from '../../src/project/config.js';
import { levenshtein, nearest } from '../../src/project/config-validate.js';
import { parseEnvFile } from '../../src/project/dotenv.js';
import { loadEnvironment, setting } from '../../src/project/environment.js';

let root: string;
let proj: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'engine-config-'));
  proj = join(root, 'proj');
  mkdirSync(proj);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const write = (rel: string, text: string): string => {
  const p = join(root, rel);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, text);
  return p;
};
const project = (yaml: string, env?: string): void => {
  write('proj/config.yaml', yaml);
  if (env !== undefined) write('proj/.env', env);
};
const load = (o: Partial<LoadConfigOptions> = {}) => loadConfig({ requireProject: true, cwd: proj, env: {}, ...o });

/** The CliError thrown by `f`, with its parts. */
function failure(f: () => unknown) {
  try {
    f();
  } catch (e) {
    if (!(e instanceof CliError)) throw e;
    return { code: e.code, message: e.message, exit: e.exitCode, ...e.location };
  }
  throw new Error('expected a CliError');
}

describe('project discovery (§1.3)', () => {
  it('finds config.yaml in the start directory or a parent', () => {
    project('version: 2\n');
    mkdirSync(join(proj, 'a', 'b'), { recursive: true });
    const c = load({ cwd: join(proj, 'a', 'b') });
    expect(c.projectDir).toBe(proj);
    expect(c.configFile).toBe(join(proj, 'config.yaml'));
    expect(c.metadataDirectory).toBe(join(proj, 'metadata'));
    expect(c.migrationsDirectory).toBe(join(proj, 'migrations'));
  });

  it('--project is the start of discovery, relative to the current directory', () => {
    project('version: 2\n');
    mkdirSync(join(proj, 'sub'));
    expect(load({ cwd: root, project: 'proj/sub' }).projectDir).toBe(proj);
  });

  it('a missing --project directory is project-dir-not-found', () => {
    expect(failure(() => load({ cwd: root, project: 'nope' }))).toMatchObject({
      code: 'project-dir-not-found', message: 'project directory "nope" does not exist', exit: 1,
    });
    write('file.txt', 'x');
    expect(failure(() => load({ cwd: root, project: 'file.txt' })).code).toBe('project-dir-not-found');
  });

  it('without config.yaml: config-not-found when required, else defaults', () => {
    expect(failure(() => load())).toEqual({
      code: 'config-not-found', message: 'no config.yaml found in . or any parent directory', exit: 1,
      hint: "run 'engine init' to create a project, or pass --project",
    });
    mkdirSync(join(proj, 'x'));
    expect(failure(() => load({ project: 'x' })).message).toBe('no config.yaml found in x or any parent directory');
    expect(failure(() => load({ cwd: join(proj, 'x'), project: '..' })).message)
      .toBe(`no config.yaml found in ${proj} or any parent directory`);
    const c = load({ requireProject: false });
    expect(c).toMatchObject({
      projectDir: null, configFile: null, version: 1, endpoint: 'http://localhost:8080', timeoutSeconds: 30, logLevel: 'info',
      metadataDirectory: join(proj, 'metadata'), warnings: [],
      actions: { kind: 'synchronous', handlerWebhookBaseurl: 'http://localhost:3000', codegen: {} },
    });
    expect(c.adminSecret).toBeUndefined();
  });

  it('a directory named config.yaml is not a project', () => {
    mkdirSync(join(proj, 'config.yaml'));
    expect(failure(() => load()).code).toBe('config-not-found');
  });

  it('without a project, .env of the current directory is read', () => {
    write('proj/.env', 'ENGINE_GRAPHQL_ENDPOINT=http://dot:1\n');
    expect(load({ requireProject: false }).endpoint).toBe('http://dot:1');
  });
});

describe('config.yaml values', () => {
  it('reads every key; directories relative to the project directory; absolute allowed', () => {
    project([
      'version: 2', 'endpoint: https://engine.example.com/base/', 'admin_secret: s3cret', 'metadata_directory: meta',
      `migrations_directory: ${join(root, 'mig')}`, 'actions:', '  kind: asynchronous',
      '  handler_webhook_baseurl: "{{ACTION_BASE_URL}}"', '  codegen:', '    framework: typescript-express',
      '    output_dir: handlers', '',
    ].join('\n'));
    const c = load({ cwd: root, project: 'proj' });
    expect(c).toMatchObject({
      version: 2, endpoint: 'https://engine.example.com/base', adminSecret: 's3cret',
      metadataDirectory: join(proj, 'meta'), migrationsDirectory: join(root, 'mig'),
      actions: {
        kind: 'asynchronous', handlerWebhookBaseurl: '{{ACTION_BASE_URL}}',
        codegen: { framework: 'typescript-express', outputDir: join(proj, 'handlers') },
      },
      warnings: [],
    });
    expect(Object.values(c.sources).filter((s) => s === 'file')).toHaveLength(9);
  });

  it('an empty file, a comment-only file and an absent version mean version 1 and defaults', () => {
    project('');
    expect(load().version).toBe(1);
    project('# nothing\n');
    expect(load().version).toBe(1);
    project('endpoint: http://x\n');
    expect(load()).toMatchObject({ version: 1, sources: { version: 'default', endpoint: 'file' } });
  });

  it('string keys take the scalar source text', () => {
    project('admin_secret: 0123\nactions:\n  codegen:\n    framework: 1.50\n');
    const c = load();
    expect(c.adminSecret).toBe('0123');
    expect(c.actions.codegen.framework).toBe('1.50');
    project("admin_secret: 'quoted # not a comment'\n");
    expect(load().adminSecret).toBe('quoted # not a comment');
    project('admin_secret: true\n');
    expect(load().adminSecret).toBe('true');
  });

  it('null values and empty mappings count as absent', () => {
    project('endpoint:\nadmin_secret: ~\nactions:\n');
    expect(load()).toMatchObject({ endpoint: 'http://localhost:8080', sources: { endpoint: 'default', admin_secret: 'default' } });
    expect(load().adminSecret).toBeUndefined();
  });

  it('aliases resolve', () => {
    project('endpoint: &e http://aliased:9\nactions:\n  handler_webhook_baseurl: *e\n');
    expect(load().actions.handlerWebhookBaseurl).toBe('http://aliased:9');
  });

  it('version as a quoted string is accepted', () => {
    project('version: "2"\n');
    expect(load().version).toBe(2);
  });
});

describe('precedence flag > env > .env > config.yaml > default (§2.2)', () => {
  const keys: { key: ConfigKey; flag?: keyof LoadConfigOptions; yaml: (v: string) => string; values: string[];
    get: (c: ReturnType<typeof load>) => unknown; expected: (v: string) => unknown; dflt: unknown }[] = [
    { key: 'version', yaml: (v) => `version: ${v}`, values: ['2', '1', '2'], get: (c) => c.version, expected: Number, dflt: 1 },
    { key: 'endpoint', flag: 'endpoint', yaml: (v) => `endpoint: ${v}`, values: ['http://f:1', 'http://e:2', 'http://d:3', 'http://y:4'],
      get: (c) => c.endpoint, expected: (v) => v, dflt: 'http://localhost:8080' },
    { key: 'admin_secret', flag: 'adminSecret', yaml: (v) => `admin_secret: ${v}`, values: ['flag', 'env', 'dot', 'yaml'],
      get: (c) => c.adminSecret, expected: (v) => v, dflt: undefined },
    { key: 'metadata_directory', yaml: (v) => `metadata_directory: ${v}`, values: ['env', 'dot', 'yaml'],
      get: (c) => c.metadataDirectory, expected: (v) => join(proj, v), dflt: 'default' },
    { key: 'migrations_directory', yaml: (v) => `migrations_directory: ${v}`, values: ['env', 'dot', 'yaml'],
      get: (c) => c.migrationsDirectory, expected: (v) => join(proj, v), dflt: 'default' },
    { key: 'actions.kind', yaml: (v) => `actions:\n  kind: ${v}`, values: ['asynchronous', 'synchronous', 'asynchronous'],
      get: (c) => c.actions.kind, expected: (v) => v, dflt: 'synchronous' },
    { key: 'actions.handler_webhook_baseurl', yaml: (v) => `actions:\n  handler_webhook_baseurl: ${v}`,
      values: ['http://e:1', 'http://d:2', 'http://y:3'], get: (c) => c.actions.handlerWebhookBaseurl, expected: (v) => v,
      dflt: 'http://localhost:3000' },
    { key: 'actions.codegen.framework', yaml: (v) => `actions:\n  codegen:\n    framework: ${v}`, values: ['env', 'dot', 'yaml'],
      get: (c) => c.actions.codegen.framework, expected: (v) => v, dflt: undefined },
    { key: 'actions.codegen.output_dir', yaml: (v) => `actions:\n  codegen:\n    output_dir: ${v}`, values: ['env', 'dot', 'yaml'],
      get: (c) => c.actions.codegen.outputDir, expected: (v) => join(proj, v), dflt: undefined },
    { key: 'timeout', flag: 'timeout', yaml: () => '', values: ['5', '6', '7'], get: (c) => c.timeoutSeconds, expected: Number, dflt: 30 },
    { key: 'log_level', flag: 'logLevel', yaml: () => '', values: ['DEBUG', 'warn', 'error'], get: (c) => c.logLevel,
      expected: (v) => v.toLowerCase(), dflt: 'info' },
  ];

  for (const k of keys) {
    it(k.key, () => {
      const name = variableFor(k.key);
      const vals = [...k.values];
      const flag = k.flag ? vals.shift() : undefined;
      const [envV, dotV, yamlV] = vals as [string, string, string | undefined];
      const inFile = yamlV !== undefined && k.yaml(yamlV) !== '';
      project(inFile ? `${k.yaml(yamlV)}\n` : '', `${name}=${dotV}\n`);
      const flags = k.flag && flag !== undefined ? { [k.flag]: flag } : {};
      let c = load({ ...flags, env: { [name]: envV } });
      if (flag !== undefined) {
        expect(k.get(c)).toEqual(k.expected(flag));
        expect(c.sources[k.key]).toBe('flag');
      }
      c = load({ env: { [name]: envV } });
      expect(k.get(c)).toEqual(k.expected(envV));
      expect(c.sources[k.key]).toBe('env');
      c = load();
      expect(k.get(c)).toEqual(k.expected(dotV));
      expect(c.sources[k.key]).toBe('envfile');
      // An empty variable counts as unset, and keeps .env from supplying it.
      c = load({ env: { [name]: '' } });
      expect(c.sources[k.key]).toBe(inFile ? 'file' : 'default');
      write('proj/.env', '');
      c = load();
      if (inFile) expect(k.get(c)).toEqual(k.expected(yamlV as string));
      project('', '');
      c = load();
      expect(c.sources[k.key]).toBe('default');
      if (k.dflt !== 'default') expect(k.get(c)).toEqual(k.dflt);
    });
  }

  it('variableFor follows ENGINE_GRAPHQL_ + KEY with . → _', () => {
    expect(variableFor('actions.handler_webhook_baseurl')).toBe('ENGINE_GRAPHQL_ACTIONS_HANDLER_WEBHOOK_BASEURL');
    expect(variableFor('admin_secret')).toBe('ENGINE_GRAPHQL_ADMIN_SECRET');
  });

  it('an empty --admin-secret flag wins and means no secret', () => {
    project('admin_secret: yaml\n');
    const c = load({ adminSecret: '' });
    expect(c.adminSecret).toBeUndefined();
    expect(c.sources.admin_secret).toBe('flag');
  });
});

describe('.env (§2.3)', () => {
  it('never overrides the process environment, even an empty variable', () => {
    project('admin_secret: ${SECRET}\n', 'SECRET=from-dotenv\nOTHER=dot\n');
    expect(load({ env: { SECRET: 'from-env' } }).adminSecret).toBe('from-env');
    expect(load().adminSecret).toBe('from-dotenv');
    const c = load({ env: { SECRET: '' } });
    expect(c.adminSecret).toBeUndefined();
    expect(c.variable('SECRET')).toBe('');
    expect(c.variable('OTHER')).toBe('dot');
  });

  it('--envfile is relative to the project directory; absolute allowed; must exist', () => {
    project('version: 2\n');
    write('proj/conf/prod.env', 'ENGINE_GRAPHQL_ENDPOINT=http://prod\n');
    mkdirSync(join(proj, 'deep'));
    const c = load({ cwd: join(proj, 'deep'), envfile: 'conf/prod.env' });
    expect(c.endpoint).toBe('http://prod');
    expect(c.envFile).toBe(join(proj, 'conf', 'prod.env'));
    expect(load({ cwd: root, project: 'proj', envfile: join(proj, 'conf', 'prod.env') }).endpoint).toBe('http://prod');
    // Outside the current directory the path is shown absolute.
    expect(failure(() => load({ cwd: join(proj, 'deep'), envfile: 'missing.env' }))).toEqual({
      code: 'envfile-not-found', message: `env file "${join(proj, 'missing.env')}" not found`, exit: 1,
    });
    expect(failure(() => load({ cwd: root, project: 'proj', envfile: 'missing.env' })).message)
      .toBe('env file "proj/missing.env" not found');
    expect(failure(() => load({ envfile: 'missing.env' })).message).toBe('env file "missing.env" not found');
  });

  it('without a project --envfile is relative to the current directory', () => {
    write('proj/my.env', 'ENGINE_GRAPHQL_TIMEOUT=9\n');
    expect(load({ requireProject: false, envfile: 'my.env' }).timeoutSeconds).toBe(9);
  });

  it('invalid lines are envfile-invalid-line warnings; the default .env may be absent', () => {
    project('version: 2\n', 'GOOD=1\nnot a line\n\n# comment\n1BAD=x\nA="unterminated\n');
    expect(load().warnings).toEqual([
      { severity: 'warning', code: 'envfile-invalid-line', message: '.env:2: ignoring invalid line (expected KEY=VALUE)' },
      { severity: 'warning', code: 'envfile-invalid-line', message: '.env:5: ignoring invalid line (expected KEY=VALUE)' },
      { severity: 'warning', code: 'envfile-invalid-line', message: '.env:6: ignoring invalid line (expected KEY=VALUE)' },
    ]);
    rmSync(join(proj, '.env'));
    expect(load().warnings).toEqual([]);
  });

  it('syntax', () => {
    const f = parseEnvFile([
      'A=plain', '  export B = spaced value  ', 'C=value #comment', 'D=a#b', "E='lit \\n #x' # c", 'F="q\\n\\t\\"\\\\x"',
      'G=', 'H= #only comment', 'A=later', 'I="x" junk', "J='x'y", 'K=\'a\'  ', 'export=e', 'CRLF=yes\r',
    ].join('\n'), '.env');
    expect(Object.fromEntries(f.vars)).toEqual({
      A: 'later', B: 'spaced value', C: 'value', D: 'a#b', E: 'lit \\n #x', F: 'q\n\t"\\x', G: '', H: '', K: 'a',
      export: 'e', CRLF: 'yes',
    });
    expect(f.warnings).toEqual([
      '.env:10: ignoring invalid line (expected KEY=VALUE)', '.env:11: ignoring invalid line (expected KEY=VALUE)',

    ]);
    expect(Object.fromEntries(parseEnvFile('\uFEFFBOM=1\n', '.env').vars)).toEqual({ BOM: '1' });
  });
});

describe('${VAR} interpolation (§2.4)', () => {
  it('several references in one value, from the environment then .env', () => {
    project('endpoint: https://${HOST}:${PORT}/${PREFIX}\n', 'PORT=8443\nHOST=dot\n');
    expect(load({ env: { HOST: 'engine.example.com', PREFIX: 'p' } }).endpoint).toBe('https://engine.example.com:8443/p');
  });

  it('$${ is a literal ${; {{NAME}} is kept verbatim', () => {
    project('admin_secret: a$${NOT}b\nactions:\n  handler_webhook_baseurl: "{{BASE}}/x/${{ KEEP }}"\n');
    const c = load();
    expect(c.adminSecret).toBe('a${NOT}b');
    expect(c.actions.handlerWebhookBaseurl).toBe('{{BASE}}/x/${{ KEEP }}');
  });

  it('an unset variable is env-var-missing (an empty one is set)', () => {
    project('version: 2\nactions:\n  codegen:\n    framework: ${FW}\n');
    expect(failure(() => load())).toEqual({
      code: 'env-var-missing', message: 'environment variable "FW" is not set (referenced by "actions.codegen.framework")',
      exit: 1, hint: 'set it in the environment or in .env',
    });
    expect(load({ env: { FW: '' } }).actions.codegen.framework).toBeUndefined();
  });

  it('a value overridden by a flag or a variable is never interpolated', () => {
    project('endpoint: ${MISSING}\nadmin_secret: ${MISSING}\nmetadata_directory: ${MISSING}\n');
    const c = load({
      endpoint: 'http://flag', adminSecret: 'flag',
      env: { ENGINE_GRAPHQL_METADATA_DIRECTORY: 'm' },
    });
    expect([c.endpoint, c.adminSecret, c.metadataDirectory]).toEqual(['http://flag', 'flag', join(proj, 'm')]);
    write('proj/.env', 'ENGINE_GRAPHQL_ENDPOINT=http://dot\nENGINE_GRAPHQL_ADMIN_SECRET=d\nENGINE_GRAPHQL_METADATA_DIRECTORY=m\n');
    expect(load().endpoint).toBe('http://dot');
  });

  it('a malformed reference is config-invalid at the value', () => {
    for (const bad of ['${}', '${1X}', '${A-B}', '${OPEN']) {
      project(`version: 2\nadmin_secret: x${bad}\n`);
      expect(failure(() => load())).toEqual({
        code: 'config-invalid', message: `invalid variable reference "${bad}"`, exit: 1, file: 'config.yaml', line: 2, column: 15,
      });
    }
  });

  it('$ alone and $NAME are literal', () => {
    project('admin_secret: $HOME$ and $\n');
    expect(load().adminSecret).toBe('$HOME$ and $');
  });
});

describe('validation (§2.5)', () => {
  const invalid = (yaml: string) => failure(() => load({ cwd: root, project: 'proj', ...(project(yaml), {}) }));

  it('file values: config-invalid with file:line:col of the value', () => {
    expect(invalid('version: 3\n')).toEqual({
      code: 'config-invalid', message: 'invalid value for "version": expected 1 or 2, got 3', exit: 1,
      file: 'proj/config.yaml', line: 1, column: 10,
    });
    expect(invalid('version: 2.0\n').message).toBe('invalid value for "version": expected 1 or 2, got 2.0');
    expect(invalid('version: [2]\n').message).toBe('invalid value for "version": expected 1 or 2, got [2]');
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
      code: 'config-invalid', message: 'invalid value for "version" from ENGINE_GRAPHQL_VERSION: expected 1 or 2, got 7', exit: 1,
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

describe('config version (§1.4)', () => {
  it('a version-2 command on a version-1 project is config-version-unsupported', () => {
    project('endpoint: http://x\n');
    expect(failure(() => load({ cwd: root, project: 'proj', requireVersion2: true }))).toEqual({
      code: 'config-version-unsupported', message: 'this command needs config version 2, but proj/config.yaml has version 1',
      exit: 1, hint: "run 'engine migrate config' to upgrade the project",
    });
    project('version: 2\n');
    expect(failure(() => load({ requireVersion2: true, env: { ENGINE_GRAPHQL_VERSION: '1' } })).message)
      .toBe('this command needs config version 2, but ENGINE_GRAPHQL_VERSION has version 1');
    expect(load({ requireVersion2: true }).version).toBe(2);
  });

  it('is checked before other values, and not without a project', () => {
    project('version: 1\nendpoint: bad\n');
    expect(failure(() => load({ requireVersion2: true })).code).toBe('config-version-unsupported');
    rmSync(join(proj, 'config.yaml'));
    expect(load({ requireProject: false, requireVersion2: true }).version).toBe(1);
  });
});

describe('environment.ts (serve, version)', () => {
  it('loadEnvironment and setting keep working', () => {
    project('admin_secret: 0123\nendpoint: ${HOST}\n', 'HOST=http://dot\nbad\n');
    const env = loadEnvironment({ cwd: proj, env: {} });
    expect(env.projectDir).toBe(proj);
    expect(env.configValue('admin_secret')).toBe('0123');
    expect(setting(env, undefined, 'ENGINE_GRAPHQL_ENDPOINT', 'endpoint')).toBe('http://dot');
    expect(setting(env, 'http://f', 'ENGINE_GRAPHQL_ENDPOINT', 'endpoint')).toBe('http://f');
    expect(env.warnings).toEqual(['.env:2: ignoring invalid line (expected KEY=VALUE)']);
    expect(env.configValue('nothing')).toBeUndefined();
  });
});

describe('offline commands', () => {
  it('do not fail on endpoint or admin_secret, which they do not use', () => {
    project('version: 2\nendpoint: ${NOPE}\nadmin_secret: ${MISSING}\nmetadata_directory: md\n');
    expect(failure(() => load()).code).toBe('env-var-missing');
    const c = load({ offline: true });
    expect(c).toMatchObject({ endpoint: 'http://localhost:8080', metadataDirectory: join(proj, 'md'), sources: { endpoint: 'default' } });
    expect(c.adminSecret).toBeUndefined();
    expect(load({ offline: true, env: { NOPE: 'http://ok' } }).endpoint).toBe('http://ok');
    project('endpoint: http://x/v1/graphql\nmetadata_directory: ""\n');
    expect(failure(() => load({ offline: true })).message).toBe('invalid value for "metadata_directory": must not be empty');
    expect(failure(() => load({ offline: true, endpoint: 'bad' })).code).toBe('invalid-flag-value');
  });
});
