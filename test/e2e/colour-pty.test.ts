/**
 * Colour on a terminal (issue 37 item 3, cli.md §3.3) through a REAL pseudo-terminal (`script`, as
 * prompts-pty.test.ts): diffs and plans `+` green, `-` red, `~` yellow, findings `error:` red, `warning:` yellow and
 * file positions dim; none with NO_COLOR, --no-color or when not a TTY, where the text is the same, byte for byte.
 * Offline commands only (validate, diff of two directories): no engine.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, childEnv, cli, CLI_TIMEOUT_MS, removeTempDirs, tempDir } from './cli-helpers.js';

afterEach(removeTempDirs);

const HAS_SCRIPT = spawnSync('script', ['--version'], { encoding: 'utf8' }).stdout?.includes('util-linux') ?? false;
const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
const plain = (s: string): string => s.replace(/\x1b\[[0-9;]*m/g, ''); // eslint-disable-line no-control-regex

const GREEN = '\x1b[32m';
const RED = '\x1b[31m';
const YELLOW = '\x1b[33m';
const DIM = '\x1b[2m';

/** The raw bytes a terminal receives (stdout and stderr both on the pty), CRLF as LF. */
function inPty(args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number | null; screen: string }> {
  const e = childEnv(env);
  delete e['CI'];
  e['TERM'] = 'xterm';
  const child = spawn('script', ['-qec', [process.execPath, BIN, ...args].map(quote).join(' '), '/dev/null'], { cwd, env: e, stdio: ['pipe', 'pipe', 'pipe'] });
  let screen = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (screen += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`engine ${args.join(' ')} did not exit\nscreen: ${screen}`));
    }, CLI_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      child.stdin.destroy();
      resolve({ code, screen: screen.replace(/\r\n/g, '\n') });
    });
  });
}

/** Two metadata directories: one table added, one removed, one changed. */
async function twoDirs(): Promise<string> {
  const dir = await tempDir();
  const table = (name: string, extra = '') => `- table:\n    schema: public\n    name: ${name}\n${extra}`;
  for (const [sub, tables] of [['a', [table('gone'), table('kept')]], ['b', [table('kept', '  configuration:\n    custom_name: Kept\n'), table('new')]]] as const) {
    mkdirSync(join(dir, sub));
    writeFileSync(join(dir, sub, 'version.yaml'), 'version: 2\n');
    writeFileSync(join(dir, sub, 'tables.yaml'), tables.join(''));
  }
  return dir;
}

describe.skipIf(!HAS_SCRIPT)('colour on a terminal (issue 37 item 3)', () => {
  it('metadata diff: + green, - red, ~ yellow; the same text without colour (NO_COLOR, --no-color, a pipe)', async () => {
    const dir = await twoDirs();
    const args = ['metadata', 'diff', '--from', 'a', '--to', 'b'];
    const r = await inPty(args, dir);
    expect(r.code, r.screen).toBe(0);
    expect(r.screen).toContain(`${GREEN}+ table public.new`);
    expect(r.screen).toContain(`${RED}- table public.gone`);
    expect(r.screen).toContain(`${YELLOW}~ table public.kept`);
    const piped = await cli(args, { cwd: dir });
    expect(piped.stdout).not.toContain('\x1b[');
    expect(plain(r.screen)).toContain(piped.stdout);
    for (const off of [await inPty(args, dir, { NO_COLOR: '1' }), await inPty([...args, '--no-color'], dir)]) {
      expect(off.screen).not.toContain('\x1b[');
      expect(off.screen).toContain(piped.stdout);
    }
  });

  it('metadata validate: the position dim, error: red, warning: yellow; none with NO_COLOR', async () => {
    const root = await tempDir();
    expect((await cli(['init', 'p'], { cwd: root })).code).toBe(0);
    const dir = join(root, 'p');
    // An unknown key is an error (issue 27.5); --allow-unknown-keys makes it the warning this test needs.
    writeFileSync(join(dir, 'metadata/tables.yaml'), '- table:\n    schema: public\n    name: t\n  bogus_key: 1\n  select_permissions:\n    - permission: {}\n');
    const r = await inPty(['metadata', 'validate', '--allow-unknown-keys'], dir);
    expect(r.code, r.screen).toBe(1);
    expect(r.screen).toMatch(new RegExp(`\\x1b\\[2mmetadata/tables\\.yaml:\\d+:\\d+:\\x1b\\[22m \\x1b\\[31merror:\\x1b\\[39m `));
    expect(r.screen).toMatch(new RegExp(`\\x1b\\[2mmetadata/tables\\.yaml:\\d+:\\d+:\\x1b\\[22m \\x1b\\[33mwarning:\\x1b\\[39m `));
    expect(r.screen).toContain(DIM);
    const piped = await cli(['metadata', 'validate', '--allow-unknown-keys'], { cwd: dir });
    expect(piped.stdout).not.toContain('\x1b[');
    expect(plain(r.screen)).toContain(piped.stdout);
    const off = await inPty(['metadata', 'validate', '--allow-unknown-keys'], dir, { NO_COLOR: '1' });
    expect(off.screen).not.toContain('\x1b[');
  });
});
