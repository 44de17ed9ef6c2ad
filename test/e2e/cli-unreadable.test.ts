/**
 * End-to-end (issue 11 items 2, 3, 7): project files that exist but cannot be read, metadata over the engine's request
 * limit, and binary config files, with the real bin against a real engine. Each failure is exit 1 with its code and
 * file, and nothing is applied: the engine's metadata and resource version are unchanged.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, engineExport, initProject, jsonDoc, seedEngine, show, useTestEngine, type CliResult } from './cli-helpers.js';

const e = useTestEngine();

/** A project holding the seeded engine's metadata. */
async function project(): Promise<{ dir: string; tables: string }> {
  await seedEngine(e);
  const { dir } = await initProject(e.url);
  const exp = await cli(['metadata', 'export'], { cwd: dir });
  expect(exp.code, show(exp)).toBe(0);
  const tables = join(dir, 'metadata', 'tables.yaml');
  expect(readFileSync(tables, 'utf8')).toMatch(/name: author/);
  return { dir, tables };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function failure(r: CliResult): any {
  expect(r.code, show(r)).toBe(1);
  const doc = jsonDoc(r);
  expect(doc.ok).toBe(false);
  return doc.error;
}

/** Runs each command in JSON mode and expects the same error from all; the engine's metadata stays as it was. */
async function expectEveryCommandFails(dir: string, commands: string[][], error: Record<string, unknown>): Promise<void> {
  const before = await engineExport(e);
  for (const args of commands) {
    const r = await cli([...args, '-o', 'json'], { cwd: dir });
    expect(failure(r), `${args.join(' ')}\n${show(r)}`).toMatchObject(error);
  }
  const after = await engineExport(e);
  expect(after.version).toBe(before.version);
  expect(after.text).toBe(before.text);
}

const METADATA_COMMANDS = [['metadata', 'validate'], ['metadata', 'build'], ['metadata', 'diff'], ['metadata', 'apply'], ['metadata', 'apply', '--dry-run']];
const UNREADABLE = { code: 'unreadable-project-file', hint: 'fix its type or permissions, or remove it if it should be absent' };

describe('unreadable metadata files are errors, never absent (issue 11 item 2)', () => {
  it('a symbolic link loop for tables.yaml: exit 1 in every command, nothing applied, nothing exported over it', async () => {
    const { dir, tables } = await project();
    rmSync(tables);
    symlinkSync('tables.yaml', tables);
    await expectEveryCommandFails(dir, METADATA_COMMANDS, {
      ...UNREADABLE, file: 'metadata/tables.yaml',
      message: 'unreadable project file: a symbolic link loop, or too many levels of symbolic links (ELOOP)',
    });
    const text = await cli(['metadata', 'apply'], { cwd: dir });
    expect(text.code, show(text)).toBe(1);
    expect(text.stderr).toBe('error: metadata/tables.yaml: unreadable project file: a symbolic link loop, or too many levels of symbolic links (ELOOP)\n' +
      `hint: ${UNREADABLE.hint}\n`);
    expect(text.stdout).toBe('');
    // export reads the file it would replace (its comments are carried over): the same error, the link left alone.
    const exp = await cli(['metadata', 'export'], { cwd: dir });
    expect(exp.code, show(exp)).toBe(1);
    expect(exp.stderr).toMatch(/^error: metadata\/tables.yaml: unreadable project file: a symbolic link loop/);
    expect(lstatSync(tables).isSymbolicLink()).toBe(true);
  });

  it('tables.yaml as a directory is unreadable-project-file, not an internal error', async () => {
    const { dir, tables } = await project();
    rmSync(tables);
    mkdirSync(tables);
    await expectEveryCommandFails(dir, METADATA_COMMANDS, {
      ...UNREADABLE, file: 'metadata/tables.yaml', message: 'unreadable project file: it is a directory',
    });
  });

  it('a broken symbolic link and a FIFO are unreadable (a FIFO is not waited on)', async () => {
    const { dir, tables } = await project();
    rmSync(tables);
    symlinkSync('nowhere.yaml', tables);
    await expectEveryCommandFails(dir, [['metadata', 'apply']], {
      ...UNREADABLE, file: 'metadata/tables.yaml', message: 'unreadable project file: it is a symbolic link to a file that does not exist',
    });
    rmSync(tables);
    execFileSync('mkfifo', [tables]);
    await expectEveryCommandFails(dir, [['metadata', 'validate'], ['metadata', 'apply']], {
      ...UNREADABLE, file: 'metadata/tables.yaml', message: 'unreadable project file: it is a named pipe (FIFO), not a regular file',
    });
  });

  it('actions.graphql, config.yaml, .env and a migration file: the same error', async () => {
    const { dir } = await project();
    const sdl = join(dir, 'metadata', 'actions.graphql');
    rmSync(sdl, { force: true });
    mkdirSync(sdl);
    await expectEveryCommandFails(dir, [['metadata', 'apply']], { ...UNREADABLE, file: 'metadata/actions.graphql' });
    rmSync(sdl, { recursive: true });

    const env = join(dir, '.env');
    symlinkSync('.env', env);
    await expectEveryCommandFails(dir, [['metadata', 'validate'], ['metadata', 'apply']], { ...UNREADABLE, file: '.env' });
    rmSync(env);

    const up = join(dir, 'migrations', '1_a', 'up.sql');
    mkdirSync(join(dir, 'migrations', '1_a'), { recursive: true });
    symlinkSync('up.sql', up);
    await expectEveryCommandFails(dir, [['migrate', 'apply']], { ...UNREADABLE, file: 'migrations/1_a/up.sql' });
    rmSync(join(dir, 'migrations', '1_a'), { recursive: true });

    const config = join(dir, 'config.yaml');
    rmSync(config);
    symlinkSync('config.yaml', config);
    await expectEveryCommandFails(dir, [['metadata', 'apply']], { ...UNREADABLE, file: 'config.yaml' });
  });
});

describe('metadata over the engine request limit is refused before it is read (issue 11 item 3)', () => {
  it('a tables.yaml over 50 MB: metadata-too-large naming the file and the limit, nothing applied', async () => {
    const { dir, tables } = await project();
    // Sparse: the size is what is checked, before a byte is read (read, its NULs would be a yaml-parse-error).
    truncateSync(tables, 50 * 1024 * 1024 + 1);
    await expectEveryCommandFails(dir, METADATA_COMMANDS, {
      code: 'metadata-too-large', file: 'metadata/tables.yaml',
      message: "the file is 52,428,801 bytes (50 MB): more than the engine's request limit of 50 MB; nothing was read",
    });
  });

  it('the limit is on the files together', async () => {
    const { dir, tables } = await project();
    truncateSync(tables, 30 * 1024 * 1024);
    truncateSync(join(dir, 'metadata', 'functions.yaml'), 21 * 1024 * 1024);
    await expectEveryCommandFails(dir, [['metadata', 'apply']], {
      code: 'metadata-too-large', file: 'metadata/tables.yaml',
      message: expect.stringMatching(/^the metadata files total 53,4\d\d,\d{3} bytes \(51 MB\), this one 31,457,280 bytes \(30 MB\): more than the engine's request limit of 50 MB; nothing was read$/),
    });
  });
});

describe('config.yaml that is not YAML text (issue 11 item 7)', () => {
  it('a BOM and binary bytes: config-parse-error with the position, not "version 1"', async () => {
    const { dir } = await project();
    writeFileSync(join(dir, 'config.yaml'), Buffer.from([0xef, 0xbb, 0xbf, 0x00, 0x01, 0x3a, 0x20, 0x02, 0x0a]));
    await expectEveryCommandFails(dir, [['metadata', 'apply'], ['metadata', 'validate']], {
      code: 'config-parse-error', file: 'config.yaml', line: 1, column: 1,
      message: 'character U+0000 is not allowed in YAML text (a control character: is this a binary file?)',
    });
    writeFileSync(join(dir, 'config.yaml'), Buffer.concat([Buffer.from('\uFEFFversion: 2\nendpoint: '), Buffer.from([0xff, 0xfe]), Buffer.from('\n')]));
    await expectEveryCommandFails(dir, [['metadata', 'apply']], {
      code: 'config-parse-error', file: 'config.yaml', line: 2, column: 11, message: 'invalid UTF-8 byte sequence: the file must be UTF-8 text',
    });
  });
});
