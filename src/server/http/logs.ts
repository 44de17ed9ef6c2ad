import type { DestinationStream } from 'pino';
import type { Logger } from '../../logger.js';
import { observeCalls } from '../outbound/index.js';

/**
 * Structured logs (issue 31.2): one JSON object per line, `{"level","timestamp","type","detail"}`, of the types
 * enabled. Pino's destination writes them (loaded with the first JSON destination); in text format the same events go to
 * the CLI's logger at debug level, so a terminal keeps today's few lines.
 */

export const LOG_TYPES = ['startup', 'http-log', 'query-log', 'webhook-log', 'websocket-log', 'event-trigger', 'health-check'] as const;
export type LogType = (typeof LOG_TYPES)[number];
export const DEFAULT_LOG_TYPES: readonly LogType[] = ['startup', 'http-log', 'webhook-log', 'websocket-log'];
export type LogFormat = 'json' | 'text';
export type LogLevel = 'info' | 'warn' | 'error';

export interface StructuredLogOptions {
  format: LogFormat;
  types?: readonly LogType[];
  /** Where JSON lines go; default stdout. */
  stream?: DestinationStream;
  /** Text format: the CLI's logger. */
  logger?: Logger;
}

// Lines come by thousands a second: the time's text up to the second is made once a second (Date's ISO text goes
// through printf, a few thousand instructions), its milliseconds each time.
let second = -1;
let secondText = '';
function timestamp(): string {
  const now = Date.now();
  const s = Math.floor(now / 1000);
  if (s !== second) {
    second = s;
    secondText = `,"timestamp":"${new Date(s * 1000).toISOString().slice(0, 20)}`;
  }
  return secondText + (MS_TEXT[now - s * 1000] as string);
}

/** `123Z"` for every millisecond of a second: the timestamp's end is one lookup. */
const MS_TEXT = Array.from({ length: 1000 }, (_, ms) => `${String(ms).padStart(3, '0')}Z"`);

/** Where JSON lines are written by default (stdout's file descriptor 1; benchmarks give another). */
const HEADS: Record<LogLevel, string> = { info: '{"level":"info"', warn: '{"level":"warn"', error: '{"level":"error"' };
const TYPES = Object.fromEntries(LOG_TYPES.map((t) => [t, `,"type":"${t}","detail":`])) as Record<LogType, string>;

export function jsonDestination(fd: number): DestinationStream {
  // pino loads only for JSON lines: the default text format starts without it (issue 28: start-up). Lines written
  // before it is loaded wait in the chunk. Synchronous, as pino's own default and Node's stdout on Linux (files,
  // pipes, terminals): a chunk of lines is one write(2) on this thread, where an asynchronous write is a round trip
  // through the thread pool per chunk; a reader that stops reading slows the engine instead of growing its memory.
  // sonic-boom still gives partial writes and EAGAIN (a non-blocking pipe) their retries.
  return new LineChunks(import('pino').then(({ pino }) => {
    const out = pino.destination({ dest: fd, sync: true, minLength: 1, contentMode: 'buffer' });
    // A failing stdout (ENOSPC, EIO; on EPIPE pino drops the lines itself) loses log lines, not the engine: unhandled,
    // the error would fail the request whose line filled the chunk.
    out.on('error', () => {});
    return out as unknown as ChunkSink;
  }));
}

/** A stream that may buffer: pino's destination (sonic-boom) has flush; a test's plain stream may not. */
type Destination = DestinationStream & { flush?: (cb: (err?: Error) => void) => void };

const CHUNK_CHARS = 16384;
const CHUNK_MS = 100;

/** sonic-boom in buffer mode (its types declare only text). */
interface ChunkSink {
  write(chunk: Buffer): boolean;
  flush?: (cb: (err?: Error) => void) => void;
}

/**
 * Lines gathered into chunks of about 16 KB, written once per chunk and at least every 100 ms: a write per line cost a
 * request more than building its line (issue 31's ≤ 3 %).
 */
export class LineChunks implements Destination {
  private lines: string[] = [];
  private chars = 0;
  /** One timer, re-armed for each chunk (no timer object per chunk); `armed` while lines wait for it. */
  private readonly timer = setTimeout(() => this.drain(), CHUNK_MS).unref();
  private armed = true;

  private out: ChunkSink | null = null;

  constructor(private readonly loading: Promise<ChunkSink>) {
    // A failed load leaves the lines unwritten; flush() reports it.
    loading.then((out) => {
      this.out = out;
      this.drain();
    }, () => {});
  }

  write(line: string): boolean {
    this.lines.push(line);
    this.chars += line.length;
    if (this.chars >= CHUNK_CHARS) this.drain();
    else if (!this.armed) {
      this.armed = true;
      this.timer.refresh();
    }
    return true;
  }

  flush(cb: (err?: Error) => void): void {
    const out = this.out;
    if (!out) {
      this.loading.then(() => this.flush(cb), (e: unknown) => cb(e instanceof Error ? e : new Error(String(e))));
      return;
    }
    this.drain();
    if (out.flush) out.flush(cb);
    else cb();
  }

  private drain(): void {
    this.armed = false;
    if (this.lines.length === 0 || !this.out) return;
    const text = this.lines.length === 1 ? (this.lines[0] as string) : this.lines.join('');
    this.lines = [];
    this.chars = 0;
    // Encoded into room for the worst case (3 bytes per UTF-16 unit): Buffer.from measures the UTF-8 length first, a
    // second pass over the chunk.
    const bytes = Buffer.allocUnsafeSlow(text.length * 3);
    this.out.write(bytes.subarray(0, bytes.write(text, 0, 'utf8')));
  }
}

/** `v` as a JSON string: most values the engine logs need no escaping, and a scan is cheaper than a serializer. */
export function jsonString(v: string): string {
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    // Control characters, the quote and the backslash need escapes; beyond ASCII is left to JSON.stringify's care.
    if (c < 0x20 || c === 0x22 || c === 0x5c || c >= 0x7f) return JSON.stringify(v);
  }
  return `"${v}"`;
}

/** A detail that JSON.stringify refuses (a BigInt, a cycle) still gives a line: what can be said of it. */
function detailJson(detail: object): string {
  try {
    return JSON.stringify(detail);
  } catch (e) {
    try {
      return JSON.stringify(detail, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    } catch {
      return JSON.stringify({ unserializable: e instanceof Error ? e.message : String(e) });
    }
  }
}

export class StructuredLog {
  private readonly types: ReadonlySet<LogType>;
  private readonly out: Destination | undefined;

  constructor(private readonly opts: StructuredLogOptions) {
    // In text format the lines are debug messages: when those are dropped, none is built (a request's http-log line
    // parsed its GraphQL body for nothing).
    this.types = new Set(opts.format === 'text' && opts.logger?.debugEnabled === false ? [] : (opts.types ?? DEFAULT_LOG_TYPES));
    // Written a chunk at a time, at least every 100 ms (LineChunks); flush() at the stop writes what is pending.
    if (opts.format === 'json') this.out = opts.stream ?? jsonDestination(1);
  }

  /** Whether `type` is enabled: callers test it before building a detail that costs something. */
  has(type: LogType): boolean {
    return this.types.has(type);
  }

  /** Writes the lines still buffered (before the process ends). */
  flush(): Promise<void> {
    const out = this.out;
    if (!out?.flush) return Promise.resolve();
    return new Promise((resolve) => out.flush?.(() => resolve()));
  }

  emit(level: LogLevel, type: LogType, detail: object): void {
    if (!this.types.has(type)) return;
    if (!this.out) {
      this.opts.logger?.debug(`${type} ${detailJson(detail)}`);
      return;
    }
    this.emitJson(level, type, detailJson(detail));
  }

  /**
   * A line whose detail is JSON already: the http-log line of every request is built as text by its caller (one
   * object and a serializer walk less per request; issue 31's ≤ 3 %).
   */
  emitJson(level: LogLevel, type: LogType, detail: string): void {
    if (!this.types.has(type)) return;
    if (!this.out) {
      this.opts.logger?.debug(`${type} ${detail}`);
      return;
    }
    // Pino's line format, its constant parts made once. The destination gathers lines into chunks.
    this.out.write(`${HEADS[level]}${timestamp()}${TYPES[type]}${detail}}\n`);
    // The chunk serves the lines of every request; start-up and errors are written at once.
    if ((type === 'startup' || level === 'error') && this.out.flush) this.out.flush(() => {});
  }
}

/**
 * Outbound calls (actions, triggers, the auth hook, JWKS) as `webhook-log` lines, and trigger deliveries as
 * `event-trigger` lines, until the returned function is called. Failed calls and 5xx answers are errors.
 */
export function logWebhooks(log: StructuredLog): () => void {
  if (!log.has('webhook-log') && !log.has('event-trigger')) return () => {};
  return observeCalls((r) => {
    const failed = r.error !== undefined || (r.status ?? 0) >= 500;
    log.emit(failed ? 'error' : 'info', 'webhook-log', r);
    if (r.purpose !== 'trigger') return;
    // Event and scheduled triggers' deliveries: whether this attempt delivered (2xx) or will be retried.
    const delivered = r.status !== undefined && r.status >= 200 && r.status < 300;
    const { name, status, error, duration_ms } = r;
    log.emit(delivered ? 'info' : 'warn', 'event-trigger', { trigger: name, delivered, ...(status !== undefined ? { status } : {}), ...(error !== undefined ? { error } : {}), duration_ms });
  });
}

/** Nothing is logged: tests and library callers that do not ask for logs. */
export const noStructuredLog = new StructuredLog({ format: 'text', types: [] });
