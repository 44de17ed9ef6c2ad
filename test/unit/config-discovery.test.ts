import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadEnvironment, setting } from '../../src/project/config/environment.js';
import { failure, load, proj, project, root, useTempProject, write } from './config-fixtures.js';

// Finding the project (§1.3), the config version (§1.4), environment.ts and offline commands.

useTempProject();

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

  it('a config.yaml that is there but unreadable (a directory) is unreadable-project-file, not another project (issue 11)', () => {
    mkdirSync(join(proj, 'config.yaml'));
    expect(failure(() => load())).toMatchObject({
      code: 'unreadable-project-file', message: 'unreadable project file: it is a directory', exit: 1,
    });
  });

  it('without a project, .env of the current directory is read', () => {
    write('proj/.env', 'ENGINE_GRAPHQL_ENDPOINT=http://dot:1\n');
    expect(load({ requireProject: false }).endpoint).toBe('http://dot:1');
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
