import { pino, type DestinationStream, type Logger as Pino } from 'pino';
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

export class StructuredLog {
  private readonly types: ReadonlySet<LogType>;
  private readonly json: Pino | undefined;

  constructor(private readonly opts: StructuredLogOptions) {
    this.types = new Set(opts.types ?? DEFAULT_LOG_TYPES);
    if (opts.format === 'json') {
      this.json = pino(
        {
          base: null,
          timestamp: () => `,"timestamp":"${new Date().toISOString()}"`,
          formatters: { level: (label) => ({ level: label }) },
        },
        opts.stream ?? pino.destination({ dest: 1, sync: true }),
      );
    }
  }

  /** Whether `type` is enabled: callers test it before building a detail that costs something. */
  has(type: LogType): boolean {
    return this.types.has(type);
  }

  emit(level: LogLevel, type: LogType, detail: object): void {
    if (!this.types.has(type)) return;
    if (this.json) this.json[level]({ type, detail });
    else this.opts.logger?.debug(`${type} ${JSON.stringify(detail)}`);
  }
}

/**
 * Outbound calls (actions, triggers, the auth hook, JWKS) as `webhook-log` lines, until the returned function is
 * called. Failed calls and 5xx answers are errors.
 */
export function logWebhooks(log: StructuredLog): () => void {
  if (!log.has('webhook-log')) return () => {};
  return observeCalls((r) => log.emit(r.error !== undefined || (r.status ?? 0) >= 500 ? 'error' : 'info', 'webhook-log', r));
}

/** Nothing is logged: tests and library callers that do not ask for logs. */
export const noStructuredLog = new StructuredLog({ format: 'text', types: [] });
