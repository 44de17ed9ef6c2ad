import type { IncomingMessage, RequestListener } from 'node:http';

/**
 * Where the engine reports what metrics count (issue 31.3), what the query log shows (31.2) and what traces record
 * (31.4): statements sent, schema caches adopted, deliveries, GraphQL statements, spans. Every probe is absent unless
 * its feature is on, so a call site costs one property read and no import: `probes.statements?.(n)`. Set by
 * server/http/metrics-engine.ts, server/running.ts and server/tracing/; one engine per process serves, so one set.
 */
export interface Probes {
  /** `n` statements were sent to the database (a pipelined batch counts each; BEGIN and COMMIT are not counted). */
  statements?: (n: number) => void;
  /** The engine took a new schema cache: after a metadata change here (`change`) or a reload from the database (`reload`). */
  schemaCache?: (reason: 'change' | 'reload') => void;
  /**
   * An event trigger's or a scheduled event's delivery attempt ended (`seconds`: the attempt, webhook call included;
   * `sinceDue`: from the event's creation, or a scheduled event's time when later, to now).
   */
  delivery?: (queue: DeliveryKind, outcome: 'delivered' | 'retry' | 'error' | 'dead', seconds: number, sinceDue: number) => void;
  /** A GraphQL operation's statements, about to be sent: the `query-log` lines (no parameter values, which may be secret). */
  queryLog?: (detail: QueryLogDetail) => void;
  /** Traces (issue 31.4): spans exported over OTLP/HTTP; absent unless an endpoint is configured. */
  tracer?: TraceProbe;
}

export type DeliveryKind = 'event_trigger' | 'cron' | 'one_off';

export interface QueryLogDetail {
  operation_name: string | null;
  operation_type: string;
  statements: { root_field: string; sql: string; parameters: number }[];
}

export type SpanKind = 'internal' | 'server' | 'client' | 'consumer';
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

export interface SpanHandle {
  set(attributes: SpanAttributes): void;
  /** Marks the span failed (OTLP status ERROR) with a message that holds no secret. */
  fail(message: string): void;
}

/**
 * `parent` of a span: `child` only under an open span (a database statement outside a request makes none), `any`
 * under the current span or as a new trace, `root` always a new trace (a delivery attempt).
 */
export type SpanParent = 'child' | 'any' | 'root';

export interface TraceProbe {
  /** Runs `fn` in a new span, current for everything `fn` awaits; the span ends when `fn` settles (failed if it throws). */
  span<T>(name: string, kind: SpanKind, attributes: SpanAttributes, fn: (span: SpanHandle) => Promise<T>, parent?: SpanParent): Promise<T>;
  /** Synchronous work as a child of the current span (parse, validate, plan); none outside a span. */
  sync<T>(name: string, attributes: SpanAttributes, fn: (span: SpanHandle) => T): T;
  /** Adds attributes to the current span. */
  annotate(attributes: SpanAttributes): void;
  /** The W3C trace-context headers of the current span, for an outbound call; undefined outside a span. */
  outbound(): { traceparent: string; tracestate?: string } | undefined;
  /** Wraps the HTTP server's handler: each request is a server span, the child of its `traceparent` when it sends one. */
  serve(handler: RequestListener): RequestListener;
  /** Names a request's span once its route is known, and adds attributes to it. */
  request(req: IncomingMessage, name: string, attributes: SpanAttributes): void;
  /** The trace id of a request's span when it is recorded (its `http-log` line names it). */
  traceOf(req: IncomingMessage): string | undefined;
}

// Every probe present from the start (undefined when off): the object keeps one shape, so that the request path's
// loads of it stay monomorphic whatever is switched on or off.
export const probes: Probes = { statements: undefined, schemaCache: undefined, delivery: undefined, queryLog: undefined, tracer: undefined };

/**
 * Figures the metrics read when scraped (issue 32.7), the other way round from probes: set by the part that keeps
 * them (server/graphql/subscriptions while a server serves WebSockets), absent otherwise.
 */
export interface Figures {
  subscriptions?: () => SubscriptionFigures;
}

export interface SubscriptionFigures {
  connections: number;
  subscribers: number;
  /** Live query and stream cohorts (streams included). */
  cohorts: number;
  streams: number;
  watchedTables: number;
  /** Statements run for live queries and streams, refetch rounds, stream batches sent (since start). */
  statements: number;
  rounds: number;
  streamBatches: number;
  /** What the limits refused, by reason (since start). */
  refused: Record<'connections' | 'subscriptions_per_connection' | 'subscriptions_per_server' | 'slow_consumer', number>;
}

export const figures: Figures = {};
