import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseEnvFile } from '../../src/project/config/dotenv.js';
import { failure, load, proj, project, root, useTempProject, write } from './config-fixtures.js';

// .env files (§2.3) and ${VAR} interpolation (§2.4).

useTempProject();

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
