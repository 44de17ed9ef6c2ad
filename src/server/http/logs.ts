import { pino, type DestinationStream } from 'pino';
import type { Logger } from '../../logger.js';
import { observeCalls } from '../outbound/index.js';

/**
 * Structured logs (issue 31.2): one JSON object per line, `{"level","timestamp","type","detail"}`, of the types
 * enabled. Pino writes them (it is loaded only by `serve`, with the HTTP layer); in text format the same events go to
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

// Lines come by thousands a second: the time's text is made once per millisecond.
let stampedAt = -1;
let stamp = '';
function timestamp(): string {
  const now = Date.now();
  if (now !== stampedAt) {
    stampedAt = now;
    stamp = `,"timestamp":"${new Date(now).toISOString()}"`;
  }
  return stamp;
}

/** Where JSON lines are written by default (stdout's file descriptor 1; benchmarks give another). */
export function jsonDestination(fd: number): DestinationStream {
  return pino.destination({ dest: fd, sync: false, minLength: 4096, periodicFlush: 100 });
}

/** A stream that may buffer: pino's destination (sonic-boom) has flush; a test's plain stream may not. */
type Destination = DestinationStream & { flush?: (cb: (err?: Error) => void) => void };

export class StructuredLog {
  private readonly types: ReadonlySet<LogType>;
  private readonly out: Destination | undefined;

  constructor(private readonly opts: StructuredLogOptions) {
    // In text format the lines are debug messages: when those are dropped, none is built (a request's http-log line
    // parsed its GraphQL body for nothing).
    this.types = new Set(opts.format === 'text' && opts.logger?.debugEnabled === false ? [] : (opts.types ?? DEFAULT_LOG_TYPES));
    // Written asynchronously (a request does not wait for stdout), a few KB at a time and at least every 100 ms: a
    // write per line cost a request more than building the line (issue 31's ≤ 3 %). flush() at the stop writes what
    // is pending.
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
      this.opts.logger?.debug(`${type} ${JSON.stringify(detail)}`);
      return;
    }
    // Pino's line format, made by one JSON.stringify of the detail (details are plain data): a pino logger's walk of
    // the object cost each request's http-log line 2 µs more (issue 31's ≤ 3 %). Pino's destination buffers it.
    this.out.write(`{"level":"${level}"${timestamp()},"type":"${type}","detail":${JSON.stringify(detail)}}\n`);
    // The buffer serves the lines of every request; start-up and errors are written at once.
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
