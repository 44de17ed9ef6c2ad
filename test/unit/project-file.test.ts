/**
 * Issue 11 items 2, 3, 7: reading project files (absent vs present but unreadable), the metadata size limit, YAML
 * text checks, positions in large lists, and masking of database URLs.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EngineClient } from '../../src/client/engine-client.js';
import { maskUrl } from '../../src/db/database.js';
import { CliError } from '../../src/errors.js';
import { ENGINE_MAX_BODY_BYTES } from '../../src/limits.js';
import { silentLogger } from '../../src/logger.js';
import { checkMetadataSize } from '../../src/project/metadata-dir/build.js';
import { Problems } from '../../src/project/problems.js';
import {
  nonPrintableIndex, projectFileSize, readProjectBytes, readProjectFile, unreadableReason,
} from '../../src/project/project-file.js';
import { parseYaml, positionAt } from '../../src/project/yaml-source.js';
import { MAX_BODY_BYTES } from '../../src/server/http/index.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'engine-project-file-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The CliError thrown by `f`, as code, message, file and position. */
function thrown(f: () => unknown): Record<string, unknown> {
  try {
    f();
  } catch (e) {
    if (!(e instanceof CliError)) throw e;
    return { code: e.code, message: e.message, exit: e.exitCode, ...e.location };
  }
  throw new Error('expected a CliError');
}

const unreadable = (file: string, reason: string) => ({
  code: 'unreadable-project-file', message: `unreadable project file: ${reason}`, exit: 1, file,
  hint: 'fix its type or permissions, or remove it if it should be absent',
});

describe('readProjectFile: absent vs present but unreadable', () => {
  it('absent (ENOENT, or a parent that is a file) is undefined; a regular file is its text', () => {
    expect(readProjectFile(join(dir, 'none.yaml'))).toBeUndefined();
    writeFileSync(join(dir, 'file'), 'x');
    expect(readProjectFile(join(dir, 'file', 'child.yaml'))).toBeUndefined();
    writeFileSync(join(dir, 'a.yaml'), 'a: 1\n');
    expect(readProjectFile(join(dir, 'a.yaml'))).toBe('a: 1\n');
    expect(projectFileSize(join(dir, 'a.yaml'))).toBe(5);
    expect(projectFileSize(join(dir, 'none.yaml'))).toBeUndefined();
  });

  it('a symbolic link loop, a broken link, a directory and a FIFO are unreadable-project-file', () => {
    const at = (name: string) => join(dir, name);
    symlinkSync('loop.yaml', at('loop.yaml'));
    symlinkSync('missing.yaml', at('broken.yaml'));
    mkdirSync(at('dir.yaml'));
    execFileSync('mkfifo', [at('fifo.yaml')]);
    const cases: [string, string][] = [
      ['loop.yaml', 'a symbolic link loop, or too many levels of symbolic links (ELOOP)'],
      ['broken.yaml', 'it is a symbolic link to a file that does not exist'],
      ['dir.yaml', 'it is a directory'],
      ['fifo.yaml', 'it is a named pipe (FIFO), not a regular file'],
    ];
    for (const [name, reason] of cases) {
      expect(thrown(() => readProjectFile(at(name), { cwd: dir })), name).toEqual(unreadable(name, reason));
      expect(thrown(() => readProjectBytes(at(name), dir)), name).toEqual(unreadable(name, reason));
      expect(thrown(() => projectFileSize(at(name), dir)), name).toEqual(unreadable(name, reason));
    }
  });

  it('every other system error is classified, never taken as absent (permission cannot be tested as root)', () => {
    const err = (code: string, message = `${code}: failed, open '/x'`) => Object.assign(new Error(message), { code });
    expect(unreadableReason(err('EACCES'))).toBe('permission denied (EACCES)');
    expect(unreadableReason(err('EPERM'))).toBe('operation not permitted (EPERM)');
    expect(unreadableReason(err('EIO'))).toBe('input/output error (EIO)');
    expect(unreadableReason(err('EISDIR'))).toBe('it is a directory (EISDIR)');
    expect(unreadableReason(err('EWHATEVER', 'something odd'))).toBe('something odd (EWHATEVER)');
  });

  it('bytes that are not UTF-8 are a parse error at the first bad byte when asked (after a BOM)', () => {
    writeFileSync(join(dir, 'c.yaml'), Buffer.concat([Buffer.from('\uFEFFa: é\nb: x'), Buffer.from([0xe9, 0x41]), Buffer.from('\n')]));
    expect(thrown(() => readProjectFile(join(dir, 'c.yaml'), { cwd: dir, utf8ErrorCode: 'config-parse-error' }))).toEqual({
      code: 'config-parse-error', message: 'invalid UTF-8 byte sequence: the file must be UTF-8 text', exit: 1, file: 'c.yaml', line: 2, column: 5,
    });
    // A real U+FFFD is text.
    writeFileSync(join(dir, 'd.yaml'), 'a: \uFFFD\n');
    expect(readProjectFile(join(dir, 'd.yaml'), { utf8ErrorCode: 'yaml-parse-error' })).toBe('a: \uFFFD\n');
  });

  it('YAML text excludes control characters but tab, LF, CR and NEL (YAML 1.2 c-printable)', () => {
    expect(nonPrintableIndex('a: 1\tb\r\n\u0085 é \uFEFF')).toBe(-1);
    expect(nonPrintableIndex('ab\u0000')).toBe(2);
    expect(nonPrintableIndex('\u007F')).toBe(0);
    expect(nonPrintableIndex('x\u0090')).toBe(1);
    expect(nonPrintableIndex('\uFFFF')).toBe(0);
    const problems = new Problems();
    expect(parseYaml('t.yaml', '- a\n- "b\u0001"\n', problems)).toBeNull();
    expect(problems.list).toEqual([{
      severity: 'error', code: 'yaml-parse-error', file: 't.yaml', line: 2, column: 5,
      message: 'character U+0001 is not allowed in YAML text (a control character: is this a binary file?)',
    }]);
  });
});

describe('the metadata size limit (issue 11 item 3)', () => {
  it('is the engine request body limit', () => {
    expect(ENGINE_MAX_BODY_BYTES).toBe(MAX_BODY_BYTES);
  });

  it('counts every metadata file, names the largest, reads nothing', () => {
    const md = join(dir, 'metadata');
    mkdirSync(md);
    writeFileSync(join(md, 'tables.yaml'), '');
    truncateSync(join(md, 'tables.yaml'), ENGINE_MAX_BODY_BYTES);
    expect(() => checkMetadataSize(md, dir)).not.toThrow();
    writeFileSync(join(md, 'version.yaml'), 'version: 2\n');
    expect(thrown(() => checkMetadataSize(md, dir))).toMatchObject({
      code: 'metadata-too-large', file: 'metadata/tables.yaml',
      message: "the metadata files total 52,428,811 bytes (50 MB), this one 52,428,800 bytes (50 MB): more than the engine's request limit of 50 MB; nothing was read",
    });
    symlinkSync('x.yaml', join(md, 'functions.yaml'));
    symlinkSync('x.yaml', join(md, 'x.yaml'));
    expect(thrown(() => checkMetadataSize(md, dir))).toMatchObject({ code: 'unreadable-project-file', file: 'metadata/functions.yaml' });
  });

  it('the client refuses a request body over the limit before sending it', async () => {
    let requests = 0;
    const server = createServer((_req, res) => {
      requests++;
      res.end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const client = new EngineClient({
      endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, timeoutSeconds: 5, logger: silentLogger, version: 't',
    });
    try {
      const big = 'x'.repeat(ENGINE_MAX_BODY_BYTES);
      const e = await client.query('run_sql', { sql: big }, { read: false }).catch((err: unknown) => err);
      expect(e).toBeInstanceOf(CliError);
      expect((e as CliError).code).toBe('request-too-large');
      expect((e as CliError).message).toMatch(/^the run_sql request is 52,428,8\d\d bytes \(50 MB\), more than the engine's request limit of 50 MB; nothing was sent$/);
      expect(requests).toBe(0);
      await client.query('run_sql', { sql: 'select 1' }, { read: false });
      expect(requests).toBe(1);
    } finally {
      await client.close();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('positions in a large list come from the item alone, and equal the whole Document ones', () => {
  it('for items, keys and nested values, with comments and block scalars in between', () => {
    const item = (i: number) =>
      `- table:\n    name: t${i}\n  comment: |\n    - not an item\n    text\n  select_permissions:\n    - role: user\n      permission:\n        limit: ${i}\n# between\n`;
    let text = '';
    for (let i = 0; text.length <= 2.5 * 1024 * 1024; i++) text += item(i);
    const big = parseYaml('big.yaml', text, new Problems());
    const count = (big?.value as unknown[]).length;
    // The same document small enough for the whole-Document path: its first items are the same text.
    const head = text.slice(0, text.indexOf(`- table:\n    name: t300\n`));
    const small = parseYaml('big.yaml', head, new Problems());
    expect(big && small).toBeTruthy();
    for (const path of [[0], [7], [299], [150, 'table', 'name'], [42, 'select_permissions', 0, 'permission', 'limit'], [3, 'comment']]) {
      expect(positionAt(big!, path), JSON.stringify(path)).toEqual(positionAt(small!, path));
    }
    expect(positionAt(big!, [12, 'select_permissions'], true)).toEqual(positionAt(small!, [12, 'select_permissions'], true));
    const last = positionAt(big!, [count - 1, 'table', 'name']);
    expect(text.split('\n')[last.line - 1]).toBe(`    name: t${count - 1}`);
  });
});

describe('maskUrl: every credential form the pg connection string accepts (issue 11 item 7)', () => {
  it.each([
    ['postgres://u:p@h/db', 'postgres://u:***@h/db'],
    ['postgresql://u:p%40ss@h:5432/db?sslmode=disable', 'postgresql://u:***@h:5432/db?sslmode=disable'],
    ['postgres://u@h/db?password=sec&application_name=x', 'postgres://u@h/db?password=***&application_name=x'],
    ['postgres://h/db?sslpassword=k&pass%77ord=z', 'postgres://h/db?sslpassword=***&pass%77ord=***'],
    ['postgres://u:p@h/db?options=-c%20x%3Dy&PASSWORD=a+b#f', 'postgres://u:***@h/db?options=-c%20x%3Dy&PASSWORD=***#f'],
    ['postgres://u:p@ss@h/db', 'postgres://u:***@h/db'],
    ['postgres://u:pa/ss@h/db', 'postgres://u:***@h/db'],
    ['postgres://u:pa?ss@h/db', 'postgres://u:***@h/db'],
    ['postgres://u:pa ss@h/db', 'postgres://u:***@h/db'],
    ['postgres:///db?host=/tmp&password=x', 'postgres:///db?host=/tmp&password=***'],
    ['socket://u:pw@/var/run/pg?db=x', 'socket://u:***@/var/run/pg?db=x'],
    ['postgresql://u:p@[::1]:5432/db', 'postgresql://u:***@[::1]:5432/db'],
    ['//u:p@h/db', '//u:***@h/db'],
    ['u:p@h/db', 'u:***@h/db'],
    ['host=h user=u password=secret dbname=d', 'host=h user=u password=*** dbname=d'],
    ["host=h password='se cret' sslpassword = k dbname=d", 'host=h password=*** sslpassword = *** dbname=d'],
  ])('%s', (url, masked) => {
    expect(maskUrl(url)).toBe(masked);
  });

  it.each([
    'postgres://u@h/db', 'postgres://h:5432/db?user=a@b&sslmode=require', '/var/run/postgresql db', 'postgres://h/db',
  ])('%s has nothing to mask', (url) => {
    expect(maskUrl(url)).toBe(url);
  });
});
