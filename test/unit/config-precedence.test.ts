import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { variableFor, type ConfigKey, type LoadConfigOptions } from '../../src/project/config/config.js';
import { load, proj, project, root, useTempProject, write } from './config-fixtures.js';

// The values read from config.yaml and their precedence: flag > env > .env > config.yaml > default (§2.2).

useTempProject();

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
