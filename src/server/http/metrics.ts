import { timingSafeEqual } from 'node:crypto';
import type { HttpApp } from './router.js';
import type { Registry } from 'prom-client';
import { ApiError } from '../../errors.js';
import type { Database } from '../../db/database.js';
import type { GraphqlService } from '../graphql/service.js';
import { observeCalls } from '../outbound/index.js';
import { installEngineMetrics } from './metrics-engine.js';
import { sendError } from './envelope.js';
import { requestMetrics, type RequestCounts } from './request-metrics.js';

/**
 * `GET /v1/metrics` in Prometheus text format (issue 31.3), served only to `Authorization: Bearer <secret>`.
 * prom-client is imported by loadMetrics, only when a secret is set: start-up and `engine --version` never load it.
 */

export interface Metrics {
  secret: string;
  registry: Registry;
  /** Counts one answer; `op` is the GraphQL operation type or ''. */
  observe: RequestCounts['observe'];
  /** Stops counting the engine's events (statements, deliveries, calls): the probes go back to absent. */
  detach(): void;
}

/** Endpoints by their route, so that paths with ids or typos do not each make a series. */
const ENDPOINTS = new Set(['/v1/graphql', '/v1/query', '/v2/query', '/v1/metadata', '/v1beta1/relay', '/v1/version', '/healthz', '/v1/metrics']);

function endpointOf(path: string): string {
  if (ENDPOINTS.has(path)) return path;
  return path.startsWith('/api/rest/') ? '/api/rest' : 'other';
}

const OPERATION = /^\s*(query|mutation|subscription)\b/;

/**
 * The operation type of a GraphQL body the service could not prepare: its first keyword; a document of several
 * operations counts as its first.
 */
function operationType(text: string): string {
  try {
    const body = JSON.parse(text) as { query?: unknown };
    if (typeof body.query !== 'string') return '';
    const q = body.query.replace(/^(\s|#[^\n]*\n)*/, '');
    return q.startsWith('{') ? 'query' : (OPERATION.exec(q)?.[1] ?? '');
  } catch {
    return '';
  }
}

export async function loadMetrics(secret: string, graphql: GraphqlService, db: Database): Promise<Metrics> {
  const prom = await import('prom-client');
  const registry = new prom.Registry();
  const requests = requestMetrics(prom, registry);
  // Read when scraped: the service's own counters stay the one source.
  new prom.Counter({
    name: 'engine_graphql_plan_cache_hits_total', help: 'GraphQL operations run with a plan from the plan cache.', registers: [registry],
    collect() { this.reset(); this.inc(graphql.planHits); },
  });
  new prom.Counter({
    name: 'engine_graphql_plan_cache_misses_total', help: 'GraphQL operations compiled because no cached plan fitted.', registers: [registry],
    collect() { this.reset(); this.inc(graphql.stats.compiled); },
  });
  new prom.Counter({
    name: 'engine_graphql_documents_prepared_total', help: 'GraphQL documents parsed and validated (not found in the plan cache).', registers: [registry],
    collect() { this.reset(); this.inc(graphql.stats.prepared); },
  });
  const pool = db.poolStats?.bind(db);
  if (pool) {
    new prom.Gauge({
      name: 'engine_db_pool_connections', help: 'Connections of the database pool, by state.', labelNames: ['state'] as const, registers: [registry],
      collect() {
        const s = pool();
        this.set({ state: 'in_use' }, s.total - s.idle);
        this.set({ state: 'idle' }, s.idle);
      },
    });
    new prom.Gauge({
      name: 'engine_db_pool_waiting', help: 'Requests waiting for a connection of the database pool.', registers: [registry],
      collect() { this.set(pool().waiting); },
    });
  }
  const detach = installEngineMetrics(prom, registry, db, observeCalls);
  return { secret, registry, detach, observe: requests.observe };
}

function allowed(header: string | undefined, secret: string): boolean {
  if (header === undefined || !header.startsWith('Bearer ')) return false;
  const given = Buffer.from(header.slice('Bearer '.length).trim());
  const want = Buffer.from(secret);
  return given.length === want.length && timingSafeEqual(given, want);
}

export function registerMetrics(app: HttpApp, metrics: Metrics): void {
  app.onResponse((request, reply) => {
    const endpoint = endpointOf(request.path);
    const op = request.graphqlOperation?.type ?? (request.graphqlText ? operationType(request.graphqlText) : '');
    metrics.observe(endpoint, reply.statusCode, op, reply.elapsedTime / 1000);
  });
  app.get('/v1/metrics', async (request, reply) => {
    if (!allowed(request.headers.authorization, metrics.secret)) {
      reply.header('www-authenticate', 'Bearer');
      sendError(request.raw, reply, new ApiError(401, 'access-denied', '$', 'invalid or missing metrics bearer token'), false);
      return reply;
    }
    const text = await metrics.registry.metrics();
    return reply.code(200).header('content-type', metrics.registry.contentType).send(text);
  });
}
