import { Chalk } from 'chalk';
import { CliError, EngineError } from '../errors.js';
import type { Logger } from '../logger.js';

export type OutputMode = 'text' | 'json';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const LEVELS: LogLevel[] = ['debug', 'info', 'warn', 'error'];

export interface OutputOptions {
  mode: OutputMode;
  level: LogLevel;
  noColor: boolean;
  stdout?: NodeJS.WritableStream & { isTTY?: boolean };
  stderr?: NodeJS.WritableStream & { isTTY?: boolean };
}

/** The one place that writes to the terminal: data to stdout, everything else to stderr (cli.md §3.2). */
export class Output {
  readonly mode: OutputMode;
  readonly logger: Logger;
  readonly warnings: { code: string; message: string }[] = [];
  private readonly out: NodeJS.WritableStream;
  private readonly err: NodeJS.WritableStream;
  private readonly level: LogLevel;
  private readonly paint: InstanceType<typeof Chalk>;

  constructor(opts: OutputOptions) {
    this.mode = opts.mode;
    this.level = opts.level;
    this.out = opts.stdout ?? process.stdout;
    this.err = opts.stderr ?? process.stderr;
    const tty = !!(opts.stderr ?? process.stderr).isTTY;
    const colour = tty && !opts.noColor && !process.env['NO_COLOR'] && process.env['TERM'] !== 'dumb';
    this.paint = new Chalk({ level: colour ? 1 : 0 });
    const enabled = (l: LogLevel) => LEVELS.indexOf(l) >= LEVELS.indexOf(this.level);
    this.logger = {
      debug: (m) => enabled('debug') && this.line(`debug: ${m}`),
      info: (m) => enabled('info') && this.line(m),
      warn: (m) => this.warn('warning', m),
      error: (m) => this.line(`${this.paint.red('error:')} ${m}`),
    };
  }

  private line(text: string): void {
    this.err.write(`${text}\n`);
  }

  warn(code: string, message: string): void {
    this.warnings.push({ code, message });
    if (LEVELS.indexOf(this.level) <= LEVELS.indexOf('warn')) this.line(`${this.paint.yellow('warning:')} ${message}`);
  }

  /** Data for stdout (text mode). */
  data(text: string): void {
    this.out.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  /** The single JSON document of JSON mode (cli.md §3.4). */
  json(doc: unknown): void {
    this.out.write(`${JSON.stringify(doc, null, 2)}\n`);
  }

  success(fields: Record<string, unknown>): void {
    if (this.mode === 'json') this.json({ ok: true, ...fields, warnings: this.warnings });
  }

  /** Renders a failure and returns the exit status. */
  fail(e: unknown): number {
    const err = toEngineError(e);
    const exit = err instanceof CliError ? err.exitCode : 1;
    const loc = err.location;
    if (this.mode === 'json') {
      const error: Record<string, unknown> = { code: err.code, message: err.message };
      for (const k of ['file', 'line', 'column', 'path', 'hint'] as const) if (loc[k] !== undefined) error[k] = loc[k];
      // Commands may name extra keys of the failure document (cli.md §3.4: problems, objects, inconsistent_objects).
      const extra = (e as { extra?: Record<string, unknown> }).extra ?? {};
      this.json({ ok: false, error, ...extra });
      return exit;
    }
    const where = loc.file ? `${loc.file}${loc.line ? `:${loc.line}:${loc.column ?? 1}` : ''}: ` : '';
    this.line(`${this.paint.red('error:')} ${where}${err.message}`);
    if (loc.path && !loc.file) this.line(`  at ${loc.path}`);
    if (loc.hint) this.line(`${this.paint.cyan('hint:')} ${loc.hint}`);
    if (!(e instanceof EngineError) && e instanceof Error && this.level === 'debug') this.line(`debug: ${e.stack ?? ''}`);
    return exit;
  }
}

function toEngineError(e: unknown): EngineError {
  if (e instanceof EngineError) return e;
  const message = e instanceof Error ? e.message : String(e);
  return new CliError('internal-error', `internal error: ${message}`, 1, {
    hint: 'this is a bug; rerun with --log-level debug and report the output',
  });
}
