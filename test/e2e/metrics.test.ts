import { afterEach, describe, expect, it } from 'vitest';
import { EXTERNAL_URL, post } from '../helpers/engine.js';
import { eventually, startWebhook } from '../helpers/webhook.js';
import { tempDir } from './cli-helpers.js';
import { externalDatabase, ok, serve, stopAll } from './process-helpers.js';

// Issue 31.3: GET /v1/metrics of the real `engine serve`, behind ENGINE_GRAPHQL_METRICS_SECRET as a bearer token.

afterEach(stopAll);

const SECRET = 'metrics-secret-3f9a1c7e';

async function database(cwd: string): Promise<string[]> {
  return EXTERNAL_URL ? ['--database-url', await externalDatabase('engine_metrics')] : ['--data-dir', `${cwd}/data`];
}

/** The samples of a Prometheus text answer, keyed `name{k="v",…}` with the labels sorted. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels = (m[2] ?? '').match(/[a-zA-Z_]+="(?:[^"\\]|\\.)*"/g) ?? [];
    out.set(`${m[1]}{${[...labels].sort().join(',')}}`, Number(m[3]));
  }
  return out;
}

async function scrape(url: string): Promise<Map<string, number>> {
  const r = await fetch(`${url}/v1/metrics`, { headers: { authorization: `Bearer ${SECRET}` } });
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return samples(await r.text());
}

const REQUESTS = 'engine_http_requests_total{endpoint="/v1/graphql",operation_type="query",status="200"}';
const LATENCY_COUNT = 'engine_http_request_duration_seconds_count{endpoint="/v1/graphql"}';
const HITS = 'engine_graphql_plan_cache_hits_total{}';
const MISSES = 'engine_graphql_plan_cache_misses_total{}';
const at = (m: Map<string, number>, key: string): number => m.get(key) ?? 0;

describe('GET /v1/metrics', () => {
  it('is an unknown path (404) when no metrics secret is set', async () => {
    const cwd = await tempDir();
    const { url } = await serve(cwd, await database(cwd));
    const r = await post(`${url}/v1/metrics`, '');
    expect(r.status).toBe(404);
    const g = await fetch(`${url}/v1/metrics`, { headers: { authorization: `Bearer ${SECRET}` } });
    expect(g.status).toBe(404);
    expect(await g.json()).toEqual({ path: '$', error: 'resource does not exist', code: 'not-found' });
  });

  it('answers 401 without the bearer token, counts requests, latency and the plan cache, never logs the secret', async () => {
    const cwd = await tempDir();
    const { p, url } = await serve(cwd, await database(cwd), {
      ENGINE_GRAPHQL_METRICS_SECRET: SECRET,
      ENGINE_GRAPHQL_ENABLED_LOG_TYPES: 'startup,http-log,query-log,webhook-log,websocket-log,event-trigger,health-check',
    });
    const denied = { path: '$', error: 'invalid or missing metrics bearer token', code: 'access-denied' };
    for (const headers of [{} as Record<string, string>, { authorization: 'Bearer wrong-secret' }, { authorization: SECRET }, { authorization: `Bearer ${SECRET}x` }]) {
      const r = await fetch(`${url}/v1/metrics`, { headers });
      expect(r.status).toBe(401);
      expect(await r.json()).toEqual(denied);
    }

    await ok(url, { type: 'run_sql', args: { sql: 'CREATE TABLE item (id int PRIMARY KEY); INSERT INTO item VALUES (1), (2);' } });
    await ok(url, { type: 'pg_track_table', args: { table: 'item' } });
    const before = await scrape(url);
    const query = { query: 'query Items { item(order_by: {id: asc}) { id } }' };
    for (let i = 0; i < 3; i++) {
      const r = await post(`${url}/v1/graphql`, query);
      expect(r.body).toEqual({ data: { item: [{ id: 1 }, { id: 2 }] } });
    }
    const after = await scrape(url);
    expect(at(after, REQUESTS) - at(before, REQUESTS)).toBe(3);
    expect(at(after, LATENCY_COUNT) - at(before, LATENCY_COUNT)).toBe(3);
    expect(at(after, MISSES) - at(before, MISSES)).toBe(1);
    expect(at(after, HITS) - at(before, HITS)).toBe(2);
    // The operation type as the service prepared it (the second operation of a document, when chosen), and as read
    // from the body when it could not be prepared.
    await post(`${url}/v1/graphql`, { query: 'query Q { __typename } mutation M { delete_item(where: {id: {_eq: 9}}) { affected_rows } }', operationName: 'M' });
    await post(`${url}/v1/graphql`, { query: 'mutation { nope }' });
    const typed = await scrape(url);
    const mutations = 'engine_http_requests_total{endpoint="/v1/graphql",operation_type="mutation",status="200"}';
    expect(at(typed, mutations) - at(after, mutations)).toBe(2);
    expect(at(typed, REQUESTS) - at(after, REQUESTS)).toBe(0);
    // The refused scrapes were counted as well.
    expect(at(after, 'engine_http_requests_total{endpoint="/v1/metrics",operation_type="",status="401"}')).toBe(4);
    if (EXTERNAL_URL) {
      expect(after.has('engine_db_pool_connections{state="in_use"}')).toBe(true);
      expect(at(after, 'engine_db_pool_waiting{}')).toBe(0);
    } else {
      expect([...after.keys()].some((k) => k.startsWith('engine_db_pool'))).toBe(false);
    }
    expect(p.out() + p.err()).not.toContain(SECRET);
  });
});

describe('the engine\'s own metrics (issue 31.3)', () => {
  it('counts statements, schema cache rebuilds, event and one-off deliveries with their latency, action calls and pending events', async () => {
    const hook = await startWebhook((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(req.body?.action ? '{"id": 7}' : 'ok');
    });
    try {
      const cwd = await tempDir();
      const { url } = await serve(cwd, await database(cwd), { ENGINE_GRAPHQL_METRICS_SECRET: SECRET });
      const start = await scrape(url);
      await ok(url, { type: 'run_sql', args: { sql: 'CREATE TABLE item (id int PRIMARY KEY);' } });
      await ok(url, { type: 'pg_track_table', args: { table: 'item' } });
      await ok(url, { type: 'create_event_trigger', args: { name: 'items', table: 'item', webhook: hook.url, insert: { columns: '*' }, retry_conf: { num_retries: 0 } } });
      await ok(url, { type: 'set_custom_types', args: { objects: [{ name: 'Out', fields: [{ name: 'id', type: 'Int!' }] }] } });
      await ok(url, { type: 'create_action', args: { name: 'ping', definition: { handler: hook.url, output_type: 'Out', arguments: [], kind: 'synchronous', type: 'mutation' } } });
      const afterMetadata = await scrape(url);
      expect(at(afterMetadata, 'engine_schema_cache_rebuilds_total{reason="change"}') - at(start, 'engine_schema_cache_rebuilds_total{reason="change"}')).toBe(5);
      expect(at(afterMetadata, 'engine_db_statements_total{}')).toBeGreaterThan(at(start, 'engine_db_statements_total{}'));
      expect(afterMetadata.has('engine_events_pending{queue="event_trigger"}')).toBe(true);

      expect((await post(`${url}/v1/graphql`, { query: 'mutation { insert_item_one(object: {id: 1}) { id } }' })).body).toEqual({ data: { insert_item_one: { id: 1 } } });
      expect((await post(`${url}/v1/graphql`, { query: 'mutation { ping { id } }' })).body).toEqual({ data: { ping: { id: 7 } } });
      await ok(url, { type: 'create_scheduled_event', args: { webhook: hook.url, schedule_at: new Date(Date.now() + 2000).toISOString(), payload: { k: 1 } } });
      const done = await eventually(async () => {
        const m = await scrape(url);
        const events = at(m, 'engine_event_deliveries_total{outcome="delivered",queue="event_trigger"}');
        const scheduled = at(m, 'engine_event_deliveries_total{outcome="delivered",queue="one_off"}');
        return events === 1 && scheduled === 1 ? m : undefined;
      }, 30_000, 'both deliveries counted');
      expect(at(done, 'engine_event_delivery_duration_seconds_count{queue="event_trigger"}')).toBe(1);
      // The latency from the event's creation (the one-off event's time): once per event delivered.
      expect(at(done, 'engine_event_delivery_latency_seconds_count{queue="event_trigger"}')).toBe(1);
      expect(at(done, 'engine_event_delivery_latency_seconds_count{queue="one_off"}')).toBe(1);
      expect(at(done, 'engine_event_delivery_latency_seconds_sum{queue="one_off"}')).toBeLessThan(30);
      expect(done.has('engine_events_pending{queue="cron"}')).toBe(true);
      // Counted pending until its delivery is recorded, a moment after the webhook answered.
      await eventually(async () => at(await scrape(url), 'engine_events_pending{queue="one_off"}') === 0, 10_000, 'the one-off event recorded');
      expect(at(done, 'engine_webhook_calls_total{outcome="2xx",purpose="action"}')).toBe(1);
      expect(at(done, 'engine_webhook_calls_total{outcome="2xx",purpose="trigger"}')).toBe(2);
      expect(at(done, 'engine_events_pending{queue="event_trigger"}')).toBe(0);
    } finally {
      await hook.close();
    }
  }, 90_000);
});
