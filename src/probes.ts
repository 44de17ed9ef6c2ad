/**
 * Where the engine reports what metrics count (issue 31.3) and what the query log shows (31.2): statements sent,
 * schema caches adopted, deliveries, GraphQL statements. Every probe is absent unless its feature is on, so a call
 * site costs one property read and no import: `probes.statements?.(n)`. Set by server/http/metrics-engine.ts and
 * server/running.ts; one engine per process serves, so one set.
 */
export interface Probes {
  /** `n` statements were sent to the database (a pipelined batch counts each; BEGIN and COMMIT are not counted). */
  statements?: (n: number) => void;
  /** The engine took a new schema cache: after a metadata change here (`change`) or a reload from the database (`reload`). */
  schemaCache?: (reason: 'change' | 'reload') => void;
  /** An event trigger's or a scheduled event's delivery attempt ended (`seconds`: the attempt, webhook call included). */
  delivery?: (queue: 'event_trigger' | 'scheduled', outcome: 'delivered' | 'retry' | 'error', seconds: number) => void;
  /** A GraphQL operation's statements, about to be sent: the `query-log` lines (no parameter values, which may be secret). */
  queryLog?: (detail: QueryLogDetail) => void;
}

export interface QueryLogDetail {
  operation_name: string | null;
  operation_type: string;
  statements: { root_field: string; sql: string; parameters: number }[];
}

export const probes: Probes = {};

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
