import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../src/logger.js';
import { probes } from '../../src/probes.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import type { TraceSettings } from '../../src/server/tracing/settings.js';
import { createTestDatabase, EXTERNAL_URL } from '../helpers/engine.js';
import { eventually, startWebhook, type Webhook } from '../helpers/webhook.js';

/**
 * Issue 31.4: traces of the real engine (startServer, as `engine serve`), exported over OTLP/HTTP JSON to a receiver of
 * the test's own: a request's server span under the client's traceparent, its GraphQL steps and statements, action and
 * event webhooks called with the trace context of their client span.
 */

const ADMIN = 'adm-s3cret-71c2';
const OTLP_KEY = 'otlp-key-9d04e1';

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  start: bigint;
  end: bigint;
  attributes: Record<string, string | number | boolean>;
  status: { code: number; message?: string };
}

interface OtlpValue { stringValue?: string; intValue?: string; boolValue?: boolean; doubleValue?: number }
interface OtlpSpan {
  traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; startTimeUnixNano: string; endTimeUnixNano: string;
  attributes: { key: string; value: OtlpValue }[]; status: { code: number; message?: string };
}
interface OtlpBody { resourceSpans: { resource: { attributes: { key: string; value: OtlpValue }[] }; scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[] }[] }

const plain = (v: OtlpValue): string | number | boolean => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.boolValue ?? v.doubleValue ?? NaN);

/** The receiver: every POST is kept with its headers. */
const exports: { path: string; headers: Record<string, string | string[] | undefined>; body: OtlpBody }[] = [];
let receiver: Server;
let receiverUrl = '';
let hook: Webhook;
let server: RunningServer;
let dir = '';
let drop = async (): Promise<void> => {};
const logged: string[] = [];
const logger: Logger = { debug: (m) => logged.push(m), info: (m) => logged.push(m), warn: (m) => logged.push(m), error: (m) => logged.push(m) };

function spans(): ExportedSpan[] {
  return exports.flatMap((e) => e.body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans.map((x) => ({
    traceId: x.traceId, spanId: x.spanId, ...(x.parentSpanId ? { parentSpanId: x.parentSpanId } : {}), name: x.name, kind: x.kind,
    start: BigInt(x.startTimeUnixNano), end: BigInt(x.endTimeUnixNano),
    attributes: Object.fromEntries(x.attributes.map((a) => [a.key, plain(a.value)])), status: x.status,
  })))));
}

const trace = (traceId: string) => spans().filter((s) => s.traceId === traceId);
const one = (list: ExportedSpan[], name: string): ExportedSpan => {
  const found = list.filter((s) => s.name === name);
  if (found.length !== 1) throw new Error(`expected one span "${name}", found ${found.length} among ${list.map((s) => s.name).join(', ')}`);
  return found[0] as ExportedSpan;
};

/** Waits until the trace's server span (the last to end) was exported. */
const serverSpanOf = (traceId: string) => eventually(() => trace(traceId).find((s) => s.kind === 2), 10_000, `the server span of trace ${traceId}`);

const hex = (n: number, len: number) => n.toString(16).padStart(len, '0');
const ids = (n: number) => ({ traceId: `${hex(0xabc0 + n, 8)}${'1'.repeat(24)}`, spanId: `${hex(0xdef0 + n, 8)}${'2'.repeat(8)}` });

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: Headers }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-engine-admin-secret': ADMIN, ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

async function ok(body: unknown): Promise<void> {
  const r = await post('/v1/metadata', body);
  if (r.status !== 200) throw new Error(`${JSON.stringify(body)}: ${r.status} ${JSON.stringify(r.body)}`);
}

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      exports.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpBody });
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
  hook = await startWebhook((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(req.body?.action ? '{"id": 7}' : 'ok');
  });
  const traces: TraceSettings = {
    endpoint: `${receiverUrl}/v1/traces`, headers: { 'x-otlp-key': OTLP_KEY }, resource: { 'service.name': 'engine-test' },
    ratio: 1, parentBased: true, delayMs: 20, batch: 512, queue: 10_000, timeoutMs: 5000,
  };
  const where: { databaseUrl: string } | { dataDir: string } = EXTERNAL_URL
    ? await (async () => {
      const t = await createTestDatabase();
      await t.db.close();
      drop = t.drop;
      return { databaseUrl: t.url as string };
    })()
    : { dataDir: (dir = mkdtempSync(join(tmpdir(), 'engine-traces-'))) };
  server = await startServer({ ...where, port: 0, host: '127.0.0.1', adminSecret: ADMIN, logger, traces });
  await ok({ type: 'run_sql', args: { sql: 'CREATE TABLE item (id int PRIMARY KEY, name text)' } });
  await ok({ type: 'pg_track_table', args: { table: 'item' } });
  await ok({ type: 'create_event_trigger', args: { name: 'items', table: 'item', webhook: `${hook.url}/event`, insert: { columns: '*' }, retry_conf: { num_retries: 0 } } });
  await ok({ type: 'set_custom_types', args: { objects: [{ name: 'Out', fields: [{ name: 'id', type: 'Int!' }] }] } });
  await ok({ type: 'create_action', args: { name: 'ping', definition: { handler: `${hook.url}/action`, output_type: 'Out', arguments: [], kind: 'synchronous', type: 'mutation', forward_client_headers: true } } });
  await ok({ type: 'create_select_permission', args: { table: 'item', role: 'user', permission: { columns: ['id'], filter: {} } } });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await hook?.close();
  await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
  await drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('traces over OTLP/HTTP', () => {
  it('a GraphQL request: a server span under the client\'s traceparent, its parse, validate, plan, execute and statement', async () => {
    const parent = ids(1);
    const r = await post('/v1/graphql', { query: 'query Items { item { id } }', operationName: 'Items' }, { traceparent: `00-${parent.traceId}-${parent.spanId}-01`, 'x-engine-role': 'user' });
    expect(r.body).toEqual({ data: { item: [] } });
    const root = await serverSpanOf(parent.traceId);
    expect(root).toMatchObject({
      name: 'POST /v1/graphql', parentSpanId: parent.spanId, status: { code: 0 },
      attributes: {
        'http.request.method': 'POST', 'http.route': '/v1/graphql', 'url.path': '/v1/graphql', 'http.response.status_code': 200,
        'graphql.operation.type': 'query', 'graphql.operation.name': 'Items', 'engine.role': 'user', 'engine.request_id': r.headers.get('x-request-id') as string,
      },
    });
    const all = trace(parent.traceId);
    const [parse, validate, plan, execute] = ['graphql.parse', 'graphql.validate', 'graphql.plan', 'graphql.execute'].map((n) => one(all, n)) as ExportedSpan[];
    for (const s of [parse, validate, plan, execute] as ExportedSpan[]) {
      expect(s.parentSpanId).toBe(root.spanId);
      expect(s.kind).toBe(1);
      expect(s.start >= root.start && s.end <= root.end).toBe(true);
    }
    expect(parse?.end).toBeLessThanOrEqual(validate?.start as bigint);
    expect(plan?.attributes['engine.plan_cache.hit']).toBe(false);
    const statement = all.find((s) => s.parentSpanId === execute?.spanId && s.kind === 3);
    expect(statement?.attributes).toMatchObject({ 'db.system.name': 'postgresql', 'engine.database': EXTERNAL_URL ? 'external' : 'embedded' });
    expect(String(statement?.attributes['db.query.text'])).toContain('"item"');

    // The same document again: the plan cache has it, no parse or validate.
    const again = ids(2);
    await post('/v1/graphql', { query: 'query Items { item { id } }', operationName: 'Items' }, { traceparent: `00-${again.traceId}-${again.spanId}-01`, 'x-engine-role': 'user' });
    await serverSpanOf(again.traceId);
    const second = trace(again.traceId);
    expect(second.map((s) => s.name)).not.toContain('graphql.parse');
    expect(one(second, 'graphql.plan').attributes['engine.plan_cache.hit']).toBe(true);

    // Exported with the configured headers, as JSON, with the resource; no secret in any span.
    expect(exports[0]?.path).toBe('/v1/traces');
    expect(exports[0]?.headers['x-otlp-key']).toBe(OTLP_KEY);
    expect(exports[0]?.headers['content-type']).toBe('application/json');
    expect(exports[0]?.body.resourceSpans[0]?.resource.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'engine-test' } });
    const text = JSON.stringify(exports.map((e) => e.body));
    expect(text).not.toContain(ADMIN);
    expect(text).not.toContain(OTLP_KEY);
  });

  it('an action handler gets the traceparent of its client span (replacing the client\'s), an event webhook that of its delivery', async () => {
    const parent = ids(3);
    const sent = `00-${parent.traceId}-${parent.spanId}-01`;
    const before = hook.received.length;
    const r = await post('/v1/graphql', { query: 'mutation { ping { id } }' }, { traceparent: sent });
    expect(r.body).toEqual({ data: { ping: { id: 7 } } });
    await serverSpanOf(parent.traceId);
    const call = hook.received.slice(before).find((x) => x.body?.action);
    // One traceparent, the engine's: the forwarded client header was replaced.
    expect(call?.rawHeaders.filter((h) => h.toLowerCase() === 'traceparent')).toHaveLength(1);
    const [, traceId, spanId, flags] = String(call?.headers.traceparent).split('-');
    expect([traceId, flags]).toEqual([parent.traceId, '01']);
    const client = trace(parent.traceId).find((s) => s.spanId === spanId);
    expect(client).toMatchObject({
      name: 'action ping', kind: 3, parentSpanId: one(trace(parent.traceId), 'graphql.execute').spanId,
      attributes: { 'engine.call.purpose': 'action', 'http.response.status_code': 200, 'url.full': `${hook.url}/action`, 'http.request.method': 'POST' },
    });

    await post('/v1/graphql', { query: 'mutation { insert_item_one(object: {id: 1, name: "a"}) { id } }' });
    const delivery = await eventually(() => hook.received.find((x) => x.body?.trigger?.name === 'items'), 20_000, 'the event delivery');
    const [, eventTrace, eventParent] = String(delivery.headers.traceparent).split('-');
    const webhookSpan = await eventually(() => trace(eventTrace as string).find((s) => s.spanId === eventParent), 10_000, 'the webhook call span');
    expect(webhookSpan).toMatchObject({ name: 'trigger items', kind: 3, attributes: { 'engine.call.purpose': 'trigger', 'http.response.status_code': 200 } });
    const attempt = await eventually(() => trace(eventTrace as string).find((s) => s.spanId === webhookSpan.parentSpanId), 10_000, 'the delivery span');
    expect(attempt).toMatchObject({ name: 'event_trigger items', kind: 5, attributes: { 'engine.event.queue': 'event_trigger', 'engine.event.trigger': 'items', 'engine.event.outcome': 'delivered' } });
    expect(attempt.parentSpanId).toBeUndefined();
  });

  it('a request not sampled by its client records nothing, and still passes its trace on', async () => {
    const parent = ids(4);
    const before = hook.received.length;
    await post('/v1/graphql', { query: 'mutation { ping { id } }' }, { traceparent: `00-${parent.traceId}-${parent.spanId}-00` });
    const call = await eventually(() => hook.received.slice(before).find((x) => x.body?.action), 10_000, 'the action call');
    const [, traceId, spanId, flags] = String(call.headers.traceparent).split('-');
    expect([traceId, flags]).toEqual([parent.traceId, '00']);
    expect(spanId).not.toBe(parent.spanId);
    // A sampled request after it: once its spans are exported, the unsampled ones would have been too.
    const later = ids(5);
    await post('/v1/graphql', { query: '{ item { id } }' }, { traceparent: `00-${later.traceId}-${later.spanId}-01` });
    await serverSpanOf(later.traceId);
    expect(trace(parent.traceId)).toEqual([]);
  });

  it('a failed request is a failed span; statements outside requests (the workers\' polling) make no spans', async () => {
    const parent = ids(6);
    const r = await post('/v1/metadata', { type: 'run_sql', args: { sql: 'SELECT * FROM no_such_table' } }, { traceparent: `00-${parent.traceId}-${parent.spanId}-01` });
    expect(r.status).toBe(400);
    const root = await serverSpanOf(parent.traceId);
    expect(root).toMatchObject({ name: 'POST /v1/metadata', attributes: { 'http.response.status_code': 400, 'engine.error_code': expect.any(String) } });
    const script = trace(parent.traceId).find((s) => s.name === 'SCRIPT');
    expect(script?.status.code).toBe(2);
    // The script's text is never recorded (it may hold literals).
    expect(script?.attributes['db.query.text']).toBeUndefined();
    // Every database span belongs to a trace that has a server or delivery span.
    const roots = new Set(spans().filter((s) => s.kind === 2 || s.kind === 5).map((s) => s.traceId));
    const orphans = spans().filter((s) => s.attributes['db.system.name'] !== undefined && !roots.has(s.traceId));
    expect(orphans).toEqual([]);
    // The tracer is this process's, while the server runs.
    expect(probes.tracer).toBeDefined();
    expect(logged.join('\n')).not.toContain(OTLP_KEY);
  });
});
