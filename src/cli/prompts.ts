import { CliError } from '../errors.js';

/**
 * Questions asked of a person at the terminal, through @inquirer/prompts (issue 19 item 8). Only interactive runs ask
 * (cli.md §3.3: stdin and stderr TTYs, no `CI`, text output); every other run must be given the answer as a flag, and
 * `missingFlag` is the usage error that names it. Prompts draw on stderr: stdout carries only data (§3.2).
 */

export interface PromptIo {
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
}

const context = (io: PromptIo) => ({ input: io.input ?? process.stdin, output: io.output ?? process.stderr });

/** Ctrl-C or a closed terminal while asking is an abort: nothing was changed. */
async function asked<T>(ask: () => Promise<T>): Promise<T> {
  try {
    return await ask();
  } catch (e) {
    if (e instanceof Error && (e.name === 'ExitPromptError' || e.name === 'AbortPromptError')) {
      throw new CliError('aborted', 'Aborted; nothing was changed.', 1);
    }
    throw e;
  }
}

/** The usage error of a non-interactive run that lacks what a prompt would have asked. */
export function missingFlag(flag: string, what?: string): CliError {
  return new CliError('missing-argument', `missing required flag ${flag}${what ? ` (${what})` : ''}`, 64, {
    hint: 'this run is not interactive (stdin is not a terminal, CI is set, or the output is JSON), so nothing is asked',
  });
}

export async function confirmPrompt(message: string, io: PromptIo = {}): Promise<boolean> {
  const { confirm } = await import('@inquirer/prompts');
  return asked(() => confirm({ message, default: false }, context(io)));
}

export async function textPrompt(message: string, opts: { default?: string; validate?: (v: string) => string | true } = {}, io: PromptIo = {}): Promise<string> {
  const { input } = await import('@inquirer/prompts');
  const config: Parameters<typeof input>[0] = { message };
  if (opts.default !== undefined) config.default = opts.default;
  if (opts.validate) config.validate = opts.validate;
  return asked(() => input(config, context(io)));
}

export async function choicePrompt<T extends string>(message: string, choices: { value: T; name: string; description?: string }[], io: PromptIo = {}): Promise<T> {
  const { select } = await import('@inquirer/prompts');
  return asked(() => select<T>({ message, choices }, context(io)));
}

/** A multi-line answer typed at the terminal, ended by an empty line after the text (or end of input). */
export async function pasteText(message: string, io: PromptIo = {}): Promise<string> {
  const { input, output } = context(io);
  output.write(`${message}\n`);
  const { createInterface } = await import('node:readline');
  const rl = createInterface({ input, terminal: false });
  const lines: string[] = [];
  let blank = 0;
  for await (const line of rl) {
    blank = line.trim() === '' ? blank + 1 : 0;
    // Two blank lines in a row end the text: SDL often holds single blank lines between types.
    if (blank === 2) break;
    lines.push(line);
  }
  rl.close();
  return lines.join('\n').trim();
}

/** `engine init` without arguments on a terminal: the directory and the endpoint. */
export async function askInit(io: PromptIo = {}): Promise<{ dir: string; endpoint: string }> {
  const { checkEndpoint } = await import('../project/config/config-validate.js');
  const dir = await textPrompt('Project directory', { default: 'my-project' }, io);
  const endpoint = await textPrompt('Engine endpoint', {
    default: 'http://localhost:8080',
    validate: (v) => {
      const c = checkEndpoint(v.replace(/\/$/, ''));
      return c.ok ? true : c.reason;
    },
  }, io);
  return { dir, endpoint };
}
