import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CliError } from '../../src/errors.js';
import { confirmPrompt, missingFlag, pasteText, textPrompt } from '../../src/cli/prompts.js';

// The prompts of issue 19 item 8 answered through injected streams (inquirer's `input`/`output` context).

function io() {
  const input = new PassThrough();
  const output = new PassThrough();
  let screen = '';
  output.on('data', (d: Buffer) => (screen += d.toString('utf8')));
  return { input, output, screen: () => screen };
}

describe('prompts', () => {
  it('confirm: "y" is yes, an empty answer is the default no', async () => {
    const a = io();
    const yes = confirmPrompt('Delete migration 1?', a);
    a.input.write('y\n');
    expect(await yes).toBe(true);
    expect(a.screen()).toContain('Delete migration 1?');
    const b = io();
    const no = confirmPrompt('Delete migration 1?', b);
    b.input.write('\n');
    expect(await no).toBe(false);
  });

  it('text: the typed value, or the default', async () => {
    const a = io();
    const dir = textPrompt('Project directory', { default: 'my-project' }, a);
    a.input.write('\n');
    expect(await dir).toBe('my-project');
    const b = io();
    const url = textPrompt('Endpoint', { validate: (v) => (/^https?:\/\//.test(v) ? true : 'expected an http(s) URL') }, b);
    b.input.write('http://127.0.0.1:9\n');
    expect(await url).toBe('http://127.0.0.1:9');
  });

  it('paste: lines until two blank lines', async () => {
    const a = io();
    const sdl = pasteText('Paste the SDL', a);
    a.input.write('type Mutation {\n  x: Int\n}\n\ntype T {\n  a: Int\n}\n\n\nignored\n');
    expect(await sdl).toBe('type Mutation {\n  x: Int\n}\n\ntype T {\n  a: Int\n}');
  });

  it('a non-interactive run gets a usage error naming the flag', () => {
    const e = missingFlag('--version');
    expect(e).toBeInstanceOf(CliError);
    expect(e).toMatchObject({ code: 'missing-argument', message: 'missing required flag --version', exitCode: 64 });
  });
});
