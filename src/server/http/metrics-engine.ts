import type { Registry } from 'prom-client';
import type { Database } from '../../db/database.js';
import { figures, probes } from '../../probes.js';
import type { CallRecord } from '../outbound/index.js';

type Prom = typeof import('prom-client');

const PENDING_SQL = `SELECT
  (SELECT count(*) FROM engine_catalog.event_log WHERE NOT delivered AND NOT error AND NOT archived)::int AS events,
  count(*) FILTER (WHERE s.trigger_name IS NOT NULL)::int AS cron, count(*) FILTER (WHERE s.trigger_name IS NULL)::int AS one_off
  FROM engine_catalog.scheduled_events s WHERE s.status = 'scheduled'`;

/**
 * The engine's own metrics beyond HTTP (issue 31.3): statements, schema caches, event and scheduled deliveries,
 * action and other outbound calls, pending events. They are counted through the probes (src/probes.ts), which
 * exist only while metrics are on; pending events are read from the catalog when scraped.
 */
export function installEngineMetrics(prom: Prom, registry: Registry, db: Database, observeCalls: (fn: (r: CallRecord) => void) => () => void): () => void {
  // Counted in a number and handed over when scraped: prom-client's inc costs a request more than the count.
  let sent = 0;
  new prom.Counter({
    name: 'engine_db_statements_total', help: 'Statements sent to the database (a pipelined batch counts each).', registers: [registry],
    collect() { this.reset(); this.inc(sent); },
  });
  const caches = new prom.Counter({
    name: 'engine_schema_cache_rebuilds_total', help: 'Schema caches taken: after a metadata change here, or a reload of another instance\'s change.',
    labelNames: ['reason'] as const, registers: [registry],
  });
  // Queues: event_trigger, cron (cron triggers' events) and one_off (scheduled events).
  const deliveries = new prom.Counter({
    name: 'engine_event_deliveries_total', help: 'Delivery attempts of event triggers, cron triggers and one-off scheduled events, by outcome (dead: past its tolerance, not attempted).',
    labelNames: ['queue', 'outcome'] as const, registers: [registry],
  });
  const duration = new prom.Histogram({
    name: 'engine_event_delivery_duration_seconds', help: 'Time of one delivery attempt, webhook call included.',
    labelNames: ['queue'] as const, buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60], registers: [registry],
  });
  const latency = new prom.Histogram({
    name: 'engine_event_delivery_latency_seconds',
    help: 'Time from an event\'s creation (a scheduled event\'s time, when later) to the end of its delivery: once per event, when delivered or given up (retries included).',
    labelNames: ['queue'] as const, buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600], registers: [registry],
  });
  const calls = new prom.Counter({
    name: 'engine_webhook_calls_total', help: 'Outbound HTTP calls (actions, triggers, auth hook, JWKS), by purpose and outcome (HTTP status class or error).',
    labelNames: ['purpose', 'outcome'] as const, registers: [registry],
  });
  const callLatency = new prom.Histogram({
    name: 'engine_webhook_call_duration_seconds', help: 'Time of one outbound HTTP call, by purpose.',
    labelNames: ['purpose'] as const, buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers: [registry],
  });
  new prom.Gauge({
    name: 'engine_events_pending', help: 'Events waiting for delivery, by queue (read from the catalog when scraped).',
    labelNames: ['queue'] as const, registers: [registry],
    async collect() {
      const [row] = await db.query<{ events: number; cron: number; one_off: number }>(PENDING_SQL);
      this.set({ queue: 'event_trigger' }, Number(row?.events ?? 0));
      this.set({ queue: 'cron' }, Number(row?.cron ?? 0));
      this.set({ queue: 'one_off' }, Number(row?.one_off ?? 0));
    },
  });
  installSubscriptionMetrics(prom, registry);
  probes.statements = (n) => {
    sent += n;
  };
  probes.schemaCache = (reason) => caches.inc({ reason });
  probes.delivery = (queue, outcome, seconds, sinceDue) => {
    deliveries.inc({ queue, outcome });
    if (outcome === 'dead') return;
    duration.observe({ queue }, seconds);
    if (outcome !== 'retry') latency.observe({ queue }, sinceDue);
  };
  const stopCalls = observeCalls((r) => {
    const outcome = r.status === undefined ? 'error' : `${Math.floor(r.status / 100)}xx`;
    calls.inc({ purpose: r.purpose, outcome });
    callLatency.observe({ purpose: r.purpose }, r.duration_ms / 1000);
  });
  return () => {
    probes.statements = undefined;
    probes.schemaCache = undefined;
    probes.delivery = undefined;
    stopCalls();
  };
}

/** The WebSocket side's figures (issue 32.7), read when scraped; zero while no server serves subscriptions. */
function installSubscriptionMetrics(prom: Prom, registry: Registry): void {
  const read = () => figures.subscriptions?.();
  const gauge = (name: string, help: string, pick: (f: NonNullable<ReturnType<typeof read>>) => number): void => {
    new prom.Gauge({ name, help, registers: [registry], collect() { const f = read(); this.set(f ? pick(f) : 0); } });
  };
  const counter = (name: string, help: string, pick: (f: NonNullable<ReturnType<typeof read>>) => number): void => {
    new prom.Counter({ name, help, registers: [registry], collect() { const f = read(); this.reset(); this.inc(f ? pick(f) : 0); } });
  };
  gauge('engine_websocket_connections', 'WebSocket connections of /v1/graphql open now.', (f) => f.connections);
  gauge('engine_subscription_subscribers', 'Live query and streaming subscriptions running now.', (f) => f.subscribers);
  gauge('engine_subscription_cohorts', 'Cohorts (subscriptions sharing one execution) now, streams included.', (f) => f.cohorts);
  gauge('engine_subscription_stream_cohorts', 'Streaming subscription cohorts now.', (f) => f.streams);
  gauge('engine_subscription_watched_tables', 'Tables whose commits wake subscriptions now (a trigger is installed on each).', (f) => f.watchedTables);
  counter('engine_subscription_statements_total', 'Statements run to refetch subscriptions (a multiplexed batch counts one per root field).', (f) => f.statements);
  counter('engine_subscription_refetch_rounds_total', 'Refetch rounds of subscriptions.', (f) => f.rounds);
  counter('engine_subscription_stream_batches_total', 'Batches of rows sent to streaming subscriptions (once per cohort).', (f) => f.streamBatches);
  new prom.Counter({
    name: 'engine_subscription_refusals_total', help: 'Sockets and subscriptions the limits refused, and slow consumers closed, by reason.',
    labelNames: ['reason'] as const, registers: [registry],
    collect() {
      this.reset();
      const f = read();
      for (const reason of ['connections', 'subscriptions_per_connection', 'subscriptions_per_server', 'slow_consumer'] as const) this.inc({ reason }, f?.refused[reason] ?? 0);
    },
  });
}
