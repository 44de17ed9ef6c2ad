import type { Registry } from 'prom-client';
import type { Database } from '../../db/database.js';
import { probes } from '../../probes.js';
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
  const statements = new prom.Counter({ name: 'engine_db_statements_total', help: 'Statements sent to the database (a pipelined batch counts each).', registers: [registry] });
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
  probes.statements = (n) => statements.inc(n);
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
    delete probes.statements;
    delete probes.schemaCache;
    delete probes.delivery;
    stopCalls();
  };
}
