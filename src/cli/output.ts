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
  /** Only its `isTTY` is read (interactivity, cli.md §3.3). */
  stdin?: { isTTY?: boolean };
  /** The environment consulted for `NO_COLOR`, `TERM` and `CI`; defaults to `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/** Spinner frames and the control sequence that returns to the line start and erases it. */
const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const CLEAR_LINE = '\r\x1b[K';
const FRAME_MS = 80;

interface ActiveSpinner {
  text: string;
  frame: number;
  drawn: boolean;
  timer: ReturnType<typeof setInterval>;
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
  /** Whether stderr gets colour (cli.md §3.3). */
  readonly colour: boolean;
  /** Whether stdout gets colour: the same rule on stdout's own TTY (diffs, plans, findings). */
  readonly dataColour: boolean;
  private readonly paintData: InstanceType<typeof Chalk>;
  /** Whether a spinner may be shown (cli.md §3.3); otherwise spinner texts are logged at debug. */
  readonly spinners: boolean;
  /** Whether the run may prompt: stdin and stderr are TTYs, `CI` is unset and output is text (cli.md §3.3). */
  readonly interactive: boolean;
  private spinner: ActiveSpinner | null = null;

  constructor(opts: OutputOptions) {
    this.mode = opts.mode;
    this.level = opts.level;
    this.out = opts.stdout ?? process.stdout;
    this.err = opts.stderr ?? process.stderr;
    const env = opts.env ?? process.env;
    const tty = !!(opts.stderr ?? process.stderr).isTTY;
    const ci = !!env['CI'];
    const colourable = !opts.noColor && !env['NO_COLOR'] && env['TERM'] !== 'dumb';
    this.colour = tty && colourable;
    this.paint = new Chalk({ level: this.colour ? 1 : 0 });
    this.dataColour = !!(opts.stdout ?? process.stdout).isTTY && colourable && this.mode === 'text';
    this.paintData = new Chalk({ level: this.dataColour ? 1 : 0 });
    this.spinners = tty && this.mode === 'text' && !ci && (this.level === 'debug' || this.level === 'info');
    this.interactive = !!(opts.stdin ?? process.stdin).isTTY && tty && !ci && this.mode === 'text';
    const enabled = (l: LogLevel) => LEVELS.indexOf(l) >= LEVELS.indexOf(this.level);
    this.logger = {
      debug: (m) => enabled('debug') && this.line(`debug: ${m}`),
      info: (m) => enabled('info') && this.line(m),
      warn: (m) => this.warn('warning', m),
      error: (m) => this.line(`${this.paint.red('error:')} ${m}`),
      debugEnabled: enabled('debug'),
    };
  }

  private line(text: string): void {
    this.clearSpinner();
    this.err.write(`${text}\n`);
  }

  /**
   * Shows a spinner with `text` on stderr until the returned function is called (cli.md §3.3); any other line
   * clears it first, and it is drawn again on its next frame. When no spinner may be shown, the text is logged at
   * debug instead. Only one spinner shows at a time: a second call replaces the text of the first.
   */
  spin(text: string): () => void {
    if (!this.spinners) {
      this.logger.debug(text);
      return () => {};
    }
    if (this.spinner) {
      const s = this.spinner;
      s.text = text;
      this.drawSpinner();
      return () => this.stopSpinner(s);
    }
    const timer = setInterval(() => this.drawSpinner(), FRAME_MS);
    timer.unref?.();
    const s: ActiveSpinner = { text, frame: 0, drawn: false, timer };
    this.spinner = s;
    this.drawSpinner();
    return () => this.stopSpinner(s);
  }

  /** Runs `task` under a spinner (see `spin`), stopping it however the task ends. */
  async spinning<T>(text: string, task: () => Promise<T>): Promise<T> {
    const stop = this.spin(text);
    try {
      return await task();
    } finally {
      stop();
    }
  }

  private drawSpinner(): void {
    const s = this.spinner;
    if (!s) return;
    const frame = FRAMES[s.frame % FRAMES.length] as string;
    s.frame++;
    s.drawn = true;
    this.err.write(`${CLEAR_LINE}${this.paint.cyan(frame)} ${s.text}`);
  }

  /** Erases the spinner's line, if it is drawn; it stays active and is drawn again on its next frame. */
  private clearSpinner(): void {
    if (!this.spinner?.drawn) return;
    this.spinner.drawn = false;
    this.err.write(CLEAR_LINE);
  }

  private stopSpinner(s: ActiveSpinner): void {
    if (this.spinner !== s) return;
    clearInterval(s.timer);
    this.clearSpinner();
    this.spinner = null;
  }

  warn(code: string, message: string): void {
    this.warnings.push({ code, message });
    if (LEVELS.indexOf(this.level) <= LEVELS.indexOf('warn')) this.line(`${this.paint.yellow('warning:')} ${message}`);
  }

  /** A problem line on stderr (already formatted): errors always show, warnings as `warn` does, and are counted. */
  problem(severity: 'error' | 'warning', code: string, text: string): void {
    if (severity === 'warning') this.warnings.push({ code, message: text });
    if (severity === 'error' || LEVELS.indexOf(this.level) <= LEVELS.indexOf('warn')) this.line(paintProblem(text, this.paint));
  }

  /** A formatted problem (`file:line:col: error: …`) for stdout, coloured when stdout is (issue 37 item 3). */
  problemData(text: string): void {
    this.data(paintProblem(text, this.paintData));
  }

  /**
   * A diff or plan (cli.md §4.12) for stdout: `+` lines green, `-` red, `~` yellow when stdout gets colour; the text
   * is the same without it.
   */
  diffData(text: string): void {
    if (!this.dataColour) return this.data(text);
    const p = this.paintData;
    this.data(text.split('\n').map((l) => {
      const mark = /^\s*([+~-]) /.exec(l)?.[1];
      return mark === '+' ? p.green(l) : mark === '-' ? p.red(l) : mark === '~' ? p.yellow(l) : l;
    }).join('\n'));
  }

  /** Data for stdout (text mode). */
  data(text: string): void {
    this.clearSpinner();
    this.out.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  /** The single JSON document of JSON mode (cli.md §3.4). */
  json(doc: unknown): void {
    this.clearSpinner();
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
    const where = loc.file ? `${loc.file}${loc.line ? `:${loc.line}:${loc.column ?? 1}` : ''}:` : '';
    this.line(`${this.paint.red('error:')} ${where ? `${this.paint.dim(where)} ` : ''}${err.message}`);
    // Source lines under a located error (a migration's SQL line and a caret), indented like apply's object lines.
    const excerpt = (e as { excerpt?: unknown }).excerpt;
    if (Array.isArray(excerpt)) for (const l of excerpt) this.line(`    ${String(l)}`);
    if (loc.path && !loc.file) this.line(`  at ${loc.path}`);
    if (loc.hint) this.line(`${this.paint.cyan('hint:')} ${loc.hint}`);
    if (!(e instanceof EngineError) && e instanceof Error && this.level === 'debug') this.line(`debug: ${e.stack ?? ''}`);
    return exit;
  }
}

/** `file:line:col:` dim, `error:` red, `warning:` yellow; the text itself unchanged (a no-op without colour). */
function paintProblem(text: string, paint: InstanceType<typeof Chalk>): string {
  const m = /^(\S+:\d+:\d+:)? ?(error|warning):/.exec(text);
  if (!m || paint.level === 0) return text;
  const where = m[1] ? `${paint.dim(m[1])} ` : '';
  const severity = m[2] === 'error' ? paint.red('error:') : paint.yellow('warning:');
  return `${where}${severity}${text.slice(m[0].length)}`;
}

function toEngineError(e: unknown): EngineError {
  if (e instanceof EngineError) return e;
  const message = e instanceof Error ? e.message : String(e);
  return new CliError('internal-error', `internal error: ${message}`, 1, {
    hint: 'this is a bug; rerun with --log-level debug and report the output',
  });
}
