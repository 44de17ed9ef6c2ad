/**
 * The terminal rules of cli.md §3.2–§3.4, with fake streams: colour, spinners, interactivity and JSON mode depend only on
 * whether each stream is a TTY, the flags and the environment.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CliError } from '../../src/errors.js';
import { Output, type LogLevel, type OutputMode } from '../../src/cli/output.js';

const CLEAR = '\r\x1b[K';
const RED = '\x1b[31m';

interface FakeStream {
  isTTY: boolean;
  chunks: string[];
  write(chunk: string): boolean;
  text(): string;
}

function fake(isTTY: boolean): FakeStream {
  const s: FakeStream = {
    isTTY,
    chunks: [],
    write(chunk: string) {
      s.chunks.push(chunk);
      return true;
    },
    text: () => s.chunks.join(''),
  };
  return s;
}

interface Setup {
  tty?: boolean;
  stdinTty?: boolean;
  mode?: OutputMode;
  level?: LogLevel;
  noColor?: boolean;
  env?: NodeJS.ProcessEnv;
}

function make(o: Setup = {}): { out: Output; stdout: FakeStream; stderr: FakeStream } {
  const stdout = fake(o.tty ?? true);
  const stderr = fake(o.tty ?? true);
  const out = new Output({
    mode: o.mode ?? 'text', level: o.level ?? 'info', noColor: o.noColor ?? false,
    stdout: stdout as unknown as NodeJS.WritableStream, stderr: stderr as unknown as NodeJS.WritableStream,
    stdin: { isTTY: o.stdinTty ?? true }, env: o.env ?? { TERM: 'xterm-256color' },
  });
  return { out, stdout, stderr };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('colour (cli.md §3.3)', () => {
  it('is on for a TTY without --no-color, NO_COLOR or TERM=dumb', () => {
    const { out, stderr } = make();
    expect(out.colour).toBe(true);
    out.logger.error('boom');
    expect(stderr.text()).toContain(`${RED}error:`);
  });

  it('is off when stderr is not a TTY', () => {
    const { out, stderr } = make({ tty: false });
    expect(out.colour).toBe(false);
    out.logger.error('boom');
    out.logger.warn('careful');
    expect(stderr.text()).toBe('error: boom\nwarning: careful\n');
  });

  it('is off with --no-color', () => {
    const { out, stderr } = make({ noColor: true });
    expect(out.colour).toBe(false);
    out.logger.error('boom');
    expect(stderr.text()).toBe('error: boom\n');
  });

  it('is off when NO_COLOR is set, and on when it is empty', () => {
    expect(make({ env: { NO_COLOR: '1' } }).out.colour).toBe(false);
    expect(make({ env: { NO_COLOR: '' } }).out.colour).toBe(true);
  });

  it('is off when TERM is dumb', () => {
    const { out, stderr } = make({ env: { TERM: 'dumb' } });
    expect(out.colour).toBe(false);
    out.warn('x', 'careful');
    expect(stderr.text()).toBe('warning: careful\n');
  });

  it('colours warning: yellow and hint: cyan', () => {
    const { out, stderr } = make();
    out.warn('x', 'careful');
    out.fail(new CliError('some-code', 'failed', 1, { hint: 'try again' }));
    expect(stderr.text()).toContain('\x1b[33mwarning:');
    expect(stderr.text()).toContain('\x1b[36mhint:');
  });
});

describe('spinner (cli.md §3.3)', () => {
  it('shows on a TTY stderr in text mode without CI at level info', () => {
    vi.useFakeTimers();
    const { out, stderr, stdout } = make();
    expect(out.spinners).toBe(true);
    const stop = out.spin('Applying metadata…');
    expect(stderr.text()).toContain('Applying metadata…');
    expect(stderr.text().startsWith(CLEAR)).toBe(true);
    const before = stderr.chunks.length;
    vi.advanceTimersByTime(250);
    expect(stderr.chunks.length).toBeGreaterThan(before);
    stop();
    expect(stderr.text().endsWith(CLEAR)).toBe(true);
    const after = stderr.chunks.length;
    vi.advanceTimersByTime(1000);
    expect(stderr.chunks.length).toBe(after);
    expect(stdout.text()).toBe('');
  });

  it('shows at level debug too', () => {
    const { out, stderr } = make({ level: 'debug' });
    const stop = out.spin('Working…');
    stop();
    expect(stderr.text()).not.toContain('debug: Working…');
    expect(stderr.text()).toContain(`${CLEAR}`);
  });

  const hidden: [string, Setup][] = [
    ['stderr is not a TTY', { tty: false }],
    ['output is json', { mode: 'json' }],
    ['CI is set', { env: { CI: 'true' } }],
    ['the level is warn', { level: 'warn' }],
    ['the level is error', { level: 'error' }],
  ];
  for (const [why, setup] of hidden) {
    it(`does not show when ${why}`, () => {
      vi.useFakeTimers();
      const { out, stderr, stdout } = make(setup);
      expect(out.spinners).toBe(false);
      const stop = out.spin('Applying metadata…');
      vi.advanceTimersByTime(500);
      stop();
      expect(stderr.text()).not.toContain(CLEAR);
      expect(stdout.text()).toBe('');
    });
  }

  it('without a spinner logs its text at debug', () => {
    const { out, stderr } = make({ tty: false, level: 'debug' });
    out.spin('Reading metadata from the engine…')();
    expect(stderr.text()).toBe('debug: Reading metadata from the engine…\n');
    const quiet = make({ tty: false, level: 'info' });
    quiet.out.spin('Reading metadata from the engine…')();
    expect(quiet.stderr.text()).toBe('');
  });

  it('is cleared before any other line, on stderr and stdout, and drawn again afterwards', () => {
    vi.useFakeTimers();
    const { out, stderr, stdout } = make();
    const order: string[] = [];
    stderr.write = (c: string) => (order.push(`err:${c}`), true);
    stdout.write = (c: string) => (order.push(`out:${c}`), true);
    const stop = out.spin('Applying metadata…');
    out.logger.info('a line');
    out.warn('w', 'a warning');
    out.data('some data');
    const isFrame = (c: string | undefined) => !!c && c.startsWith(`err:${CLEAR}`) && c.endsWith(' Applying metadata…');
    expect(isFrame(order[0])).toBe(true);
    expect(order.slice(1)).toEqual([`err:${CLEAR}`, 'err:a line\n', 'err:\x1b[33mwarning:\x1b[39m a warning\n', 'out:some data\n']);
    vi.advanceTimersByTime(100);
    expect(isFrame(order[order.length - 1])).toBe(true);
    out.logger.error('boom');
    expect(order.slice(-2)).toEqual([`err:${CLEAR}`, `err:${RED}error:\x1b[39m boom\n`]);
    stop();
    // Nothing is drawn after the last line, so there is nothing left to clear.
    expect(order[order.length - 1]).toBe(`err:${RED}error:\x1b[39m boom\n`);
  });

  it('spinning() stops the spinner when the task fails', async () => {
    vi.useFakeTimers();
    const { out, stderr } = make();
    await expect(out.spinning('Applying metadata…', () => Promise.reject(new Error('nope')))).rejects.toThrow('nope');
    expect(stderr.text().endsWith(CLEAR)).toBe(true);
    const n = stderr.chunks.length;
    vi.advanceTimersByTime(1000);
    expect(stderr.chunks.length).toBe(n);
    expect(await out.spinning('Again…', () => Promise.resolve(42))).toBe(42);
  });

  it('a second spinner replaces the text of the first', () => {
    const { out, stderr } = make();
    const a = out.spin('first');
    const b = out.spin('second');
    expect(stderr.chunks[stderr.chunks.length - 1]).toMatch(/ second$/);
    b();
    a();
    expect(stderr.text().endsWith(CLEAR)).toBe(true);
  });
});

describe('interactivity (cli.md §3.3)', () => {
  it('needs stdin and stderr TTYs, CI unset and text output', () => {
    expect(make().out.interactive).toBe(true);
    expect(make({ stdinTty: false }).out.interactive).toBe(false);
    expect(make({ tty: false }).out.interactive).toBe(false);
    expect(make({ env: { CI: '1' } }).out.interactive).toBe(false);
    expect(make({ mode: 'json' }).out.interactive).toBe(false);
    // Colour and log level do not matter.
    expect(make({ noColor: true, level: 'error', env: { TERM: 'dumb', NO_COLOR: '1' } }).out.interactive).toBe(true);
  });
});

describe('JSON mode (cli.md §3.4)', () => {
  it('prints exactly one document on success, with the warnings, and no spinner', () => {
    const { out, stdout, stderr } = make({ mode: 'json', noColor: true });
    const stop = out.spin('Applying metadata…');
    out.warn('some-warning', 'careful');
    out.logger.info('progress');
    stop();
    out.success({ applied: true });
    const text = stdout.text();
    expect(text.endsWith('}\n')).toBe(true);
    expect(JSON.parse(text)).toEqual({ ok: true, applied: true, warnings: [{ code: 'some-warning', message: 'careful' }] });
    expect(text).toBe(`${JSON.stringify(JSON.parse(text), null, 2)}\n`);
    expect(stderr.text()).toBe('warning: careful\nprogress\n');
    expect(stderr.text()).not.toContain(CLEAR);
  });

  it('prints exactly one document on failure, not repeating the error on stderr', () => {
    const { out, stdout, stderr } = make({ mode: 'json' });
    const code = out.fail(new CliError('confirmation-required', 'refusing to clear metadata without confirmation; pass --yes', 64, { hint: 'pass --yes' }));
    expect(code).toBe(64);
    const doc = JSON.parse(stdout.text());
    expect(doc).toEqual({ ok: false, error: { code: 'confirmation-required', message: 'refusing to clear metadata without confirmation; pass --yes', hint: 'pass --yes' } });
    expect(stdout.text().trimEnd().split('\n').filter((l) => l === '}').length).toBe(1);
    expect(stderr.text()).toBe('');
  });

  it('text mode writes errors to stderr and nothing to stdout', () => {
    const { out, stdout, stderr } = make({ tty: false });
    expect(out.fail(new CliError('aborted', 'Aborted; nothing was changed.', 1))).toBe(1);
    expect(stdout.text()).toBe('');
    expect(stderr.text()).toBe('error: Aborted; nothing was changed.\n');
  });
});
