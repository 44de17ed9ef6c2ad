/**
 * The prompts of issue 19 item 8 under a REAL pseudo-terminal (`script`, as cli-interactive.test.ts): `migrate delete`
 * confirms, `actions create` without --sdl offers editor / paste / derive and then codegen. Skipped where `script` is
 * missing; the non-interactive usage errors are tested in adopt-deploy.test.ts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestEngine } from '../helpers/engine.js';
import { BIN, childEnv, CLI_TIMEOUT_MS, initProject, useTestEngine } from './cli-helpers.js';

const HAS_SCRIPT = spawnSync('script', ['--version'], { encoding: 'utf8' }).stdout?.includes('util-linux') ?? false;
const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
const plain = (s: string): string => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, ''); // eslint-disable-line no-control-regex

/** Runs the bin in a pseudo-terminal; each answer is typed once the screen shows its text (in order). */
function inPty(args: string[], cwd: string, answers: [string, string][]): Promise<{ code: number | null; screen: string }> {
  const env = childEnv({});
  delete env['CI'];
  env['TERM'] = 'xterm';
  const child = spawn('script', ['-qec', [process.execPath, BIN, ...args].map(quote).join(' '), '/dev/null'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let screen = '';
  let next = 0;
  let from = 0;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`engine ${args.join(' ')} did not exit\nscreen: ${screen}`));
    }, CLI_TIMEOUT_MS);
    const onData = (d: string): void => {
      screen += d;
      const a = answers[next];
      if (a && plain(screen.slice(from)).includes(a[0])) {
        next++;
        from = screen.length;
        child.stdin.write(a[1]);
      }
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', onData);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      child.stdin.destroy();
      resolve({ code, screen: plain(screen.replace(/\r\n/g, '\n')) });
    });
  });
}

let e: TestEngine;

describe.skipIf(!HAS_SCRIPT)('prompts on a terminal (issue 19 item 8)', () => {
  e = useTestEngine();

  it('migrate delete asks; "n" keeps everything, "y" deletes', async () => {
    const { dir } = await initProject(e.url);
    mkdirSync(join(dir, 'migrations/1_a'), { recursive: true });
    writeFileSync(join(dir, 'migrations/1_a/up.sql'), '');
    const no = await inPty(['migrate', 'delete', '--version', '1'], dir, [['Delete migration 1', 'n\r']]);
    expect(no.code, no.screen).toBe(1);
    expect(no.screen).toContain('Aborted; nothing was changed.');
    expect(existsSync(join(dir, 'migrations/1_a'))).toBe(true);
    const yes = await inPty(['migrate', 'delete', '--version', '1'], dir, [['Delete migration 1', 'y\r']]);
    expect(yes.code, yes.screen).toBe(0);
    expect(existsSync(join(dir, 'migrations/1_a'))).toBe(false);
  });

  it('actions create without --sdl: paste the SDL, then generate the handler with the chosen framework', async () => {
    const { dir } = await initProject(e.url);
    const sdl = 'type Mutation {\r  hello(name: String!): HelloOut\r}\r\rtype HelloOut {\r  greeting: String!\r}\r\r\r';
    const r = await inPty(['actions', 'create', 'hello', '--no-apply'], dir, [
      ['How do you want to define the action?', '\x1b[B\r'], // down to "Paste SDL"
      ['Paste the SDL', sdl],
      ['Generate handler code', 'y\r'],
      ['Framework', '\r'],
      ['Output directory', '\r'],
    ]);
    expect(r.code, r.screen).toBe(0);
    expect(readFileSync(join(dir, 'metadata/actions.graphql'), 'utf8')).toContain('hello(name: String!): HelloOut');
    expect(r.screen).toMatch(/handlers\/hello\.(ts|js)/);
  });

  it('actions create without a name asks for it, refusing an invalid one (issue 37 item 4)', async () => {
    const { dir } = await initProject(e.url);
    writeFileSync(join(dir, 'hello.graphql'), 'type Mutation {\n  hello(name: String!): HelloOut\n}\n\ntype HelloOut {\n  greeting: String!\n}\n');
    const r = await inPty(['actions', 'create', '--sdl', 'hello.graphql', '--no-apply'], dir, [
      ['Action name', '1bad\r'],
      ['expected a GraphQL name', '\x15hello\r'], // Ctrl-U clears the refused answer
    ]);
    expect(r.code, r.screen).toBe(0);
    expect(r.screen).toContain('Action "hello" written to metadata');
    expect(readFileSync(join(dir, 'metadata/actions.yaml'), 'utf8')).toContain('name: hello');
  });
});
