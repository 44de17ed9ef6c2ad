/**
 * End-to-end under a REAL pseudo-terminal: `script` (util-linux) gives the CLI a TTY on stdin, stdout and stderr, so the
 * run is interactive (cli.md §3.3) and `metadata clear` asks for confirmation (§5.7); the answer is typed once the prompt
 * shows. Also the spinner of a read from the engine, drawn on a TTY and cleared before the next line (§3.3).
 * Skipped where `script` is missing; test/unit/output.test.ts covers the detection with fake streams.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestEngine } from '../helpers/engine.js';
import { BIN, childEnv, CLI_TIMEOUT_MS, seedEngine, tempDir, useTestEngine } from './cli-helpers.js';

const HAS_SCRIPT = spawnSync('script', ['--version'], { encoding: 'utf8' }).stdout?.includes('util-linux') ?? false;
const PROMPT = 'Continue? [y/N]';
const CLEAR = '\r\x1b[K';

let e: TestEngine;

interface PtyResult {
  code: number | null;
  /** Everything the terminal showed (stdout and stderr of the CLI together), with CRLF turned into LF. */
  screen: string;
}

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** The environment of a run: that of the CLI tests, but without CI, so that the run can be interactive. */
function ptyEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = childEnv(extra);
  if (!('CI' in extra)) delete env['CI'];
  env['TERM'] = 'xterm';
  return env;
}

/**
 * Runs `node bin/engine.js <args>` in a pseudo-terminal (`script -qec`); when the screen shows `waitFor`, types
 * `answer`. stdin stays open until the CLI exits, so no end-of-file reaches the terminal.
 */
function inPty(args: string[], opts: { cwd: string; env?: Record<string, string>; waitFor?: string; answer?: string }): Promise<PtyResult> {
  const cmd = [process.execPath, BIN, ...args].map(quote).join(' ');
  const child = spawn('script', ['-qec', cmd, '/dev/null'], { cwd: opts.cwd, env: ptyEnv(opts.env ?? {}), stdio: ['pipe', 'pipe', 'pipe'] });
  let screen = '';
  let answered = false;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`engine ${args.join(' ')} did not exit within ${CLI_TIMEOUT_MS} ms\nscreen: ${screen}`));
    }, CLI_TIMEOUT_MS);
    const onData = (d: string): void => {
      screen += d;
      if (!answered && opts.waitFor && opts.answer !== undefined && screen.includes(opts.waitFor)) {
        answered = true;
        child.stdin.write(opts.answer);
      }
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', onData);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      child.stdin.destroy();
      resolve({ code, screen: screen.replace(/\r\n/g, '\n') });
    });
  });
}

/** The screen without colour and cursor sequences. */
const plain = (s: string): string => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, ''); // eslint-disable-line no-control-regex

async function exported(): Promise<string> {
  const r = await e.query({ type: 'export_metadata', args: {} });
  expect(r.status, r.text).toBe(200);
  return JSON.stringify(r.body);
}

async function seed(): Promise<string> {
  await seedEngine(e);
  const before = await exported();
  expect(before).not.toBe('{"version":2,"tables":[]}');
  return before;
}

describe.skipIf(!HAS_SCRIPT)('interactive runs under a pseudo-terminal (cli.md §3.3, §5.7)', () => {
  // Registered here, not for the file, so that no engine starts where `script` is missing.
  e = useTestEngine();

  const clear = (cwd: string, answer: string, env?: Record<string, string>) =>
    inPty(['metadata', 'clear', '--endpoint', e.url], { cwd, waitFor: PROMPT, answer, ...(env ? { env } : {}) });

  for (const answer of ['y', 'Y', 'yes', 'YES']) {
    it(`"${answer}" clears the metadata`, async () => {
      await seed();
      const r = await clear(await tempDir(), `${answer}\n`);
      expect(r.code, r.screen).toBe(0);
      expect(plain(r.screen)).toContain(`This removes all metadata from the engine at ${e.url}. ${PROMPT}`);
      expect(plain(r.screen)).toContain('Metadata cleared.');
      expect(await exported()).toBe('{"version":2,"tables":[]}');
    });
  }

  for (const answer of ['n\n', 'no\n', '\n', 'yep\n', 'y es\n', '\x03']) {
    it(`${JSON.stringify(answer)} (anything but y/yes, or Ctrl-C) aborts and changes nothing`, async () => {
      const before = await seed();
      const r = await clear(await tempDir(), answer);
      expect(r.code, r.screen).toBe(1);
      expect(plain(r.screen)).toContain(PROMPT);
      expect(plain(r.screen)).toContain('Aborted; nothing was changed.');
      expect(plain(r.screen)).not.toContain('Metadata cleared.');
      expect(await exported()).toBe(before);
    });
  }

  it('is not interactive with CI set or with -o json, even on a terminal: confirmation-required', async () => {
    const before = await seed();
    const ci = await inPty(['metadata', 'clear', '--endpoint', e.url], { cwd: await tempDir(), env: { CI: 'true' } });
    expect(ci.code, ci.screen).toBe(64);
    expect(plain(ci.screen)).not.toContain(PROMPT);
    expect(plain(ci.screen)).toContain('error: refusing to clear metadata without confirmation; pass --yes');
    const json = await inPty(['metadata', 'clear', '--endpoint', e.url, '-o', 'json'], { cwd: await tempDir() });
    expect(json.code, json.screen).toBe(64);
    expect(plain(json.screen)).not.toContain(PROMPT);
    expect(JSON.parse(json.screen)).toMatchObject({ ok: false, error: { code: 'confirmation-required' } });
    expect(await exported()).toBe(before);
  });

  it('--yes clears without asking', async () => {
    await seed();
    const r = await inPty(['metadata', 'clear', '--endpoint', e.url, '--yes'], { cwd: await tempDir() });
    expect(r.code, r.screen).toBe(0);
    expect(plain(r.screen)).not.toContain(PROMPT);
    expect(plain(r.screen).trim()).toBe('Metadata cleared.');
  });

  it('a read from the engine shows a spinner on the terminal, cleared before the next line', async () => {
    await seed();
    const dir = await tempDir();
    const md = join(dir, 'metadata');
    mkdirSync(md);
    writeFileSync(join(dir, 'config.yaml'), `version: 2\nendpoint: ${e.url}\nmetadata_directory: metadata\n`);
    writeFileSync(join(md, 'version.yaml'), 'version: 2\n');
    const r = await inPty(['metadata', 'diff', '--no-color'], { cwd: dir });
    expect(r.code, r.screen).toBe(0);
    const at = r.screen.indexOf('Reading metadata from the engine…');
    expect(at, r.screen).toBeGreaterThan(0);
    const comparing = r.screen.indexOf('Comparing engine');
    expect(comparing).toBeGreaterThan(at);
    // The spinner's line is erased before "Comparing …" is written.
    expect(r.screen.slice(at, comparing)).toContain(CLEAR);
    expect(r.screen.slice(comparing - CLEAR.length, comparing)).toBe(CLEAR);

    // Without a terminal (CI set) there is no spinner; its text is a debug line.
    const ci = await inPty(['metadata', 'diff', '--no-color', '--log-level', 'debug'], { cwd: dir, env: { CI: 'true' } });
    expect(ci.code, ci.screen).toBe(0);
    expect(ci.screen).not.toContain(CLEAR);
    expect(ci.screen).toContain('debug: Reading metadata from the engine…\n');
  });
});
