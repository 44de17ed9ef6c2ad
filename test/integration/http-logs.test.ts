import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { logWebhooks, StructuredLog, LOG_TYPES } from '../../src/server/http/logs.js';
import { createTestDatabase, post, startOn } from '../helpers/engine.js';
import { HS_SECRET, NS, claims, sign, HS_KEY } from '../helpers/jwt.js';

// Issue 31.2 and 31.5: JSON log lines, request ids, /healthz, and no secret in any log line. A real engine on the
// file's database with every log type enabled; the lines are collected from pino's stream.

const ADMIN = 'admin-secret-8c1f0e';
const JWT_KEY = HS_SECRET;
const HEADER_SECRET = 'webhook-header-secret-5be9';

const lines: string[] = [];
const messages: string[] = [];
const stream = { write: (s: string) => void lines.push(s) };
let url = '';
let close: () => Promise<void> = async () => {};
let handler: Server;
let handlerUrl = '';

beforeAll(async () => {
  handler = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  });
  await new Promise<void>((r) => handler.listen(0, '127.0.0.1', r));
  handlerUrl = `http://127.0.0.1:${(handler.address() as AddressInfo).port}`;
  const t = await createTestDatabase();
  const logger = { debug: (m: string) => messages.push(m), info: (m: string) => messages.push(m), warn: (m: string) => messages.push(m), error: (m: string) => messages.push(m) };
  const log = new StructuredLog({ format: 'json', types: LOG_TYPES, stream });
  const s = await startOn(t.db, ADMIN, {
    logger,
    auth: { jwtSecret: JSON.stringify({ type: 'HS256', key: JWT_KEY }) },
    env: { HANDLER: handlerUrl, HEADER_SECRET },
    http: { log },
  });
  url = s.url;
  const stopLogging = logWebhooks(log);
  close = async () => {
    stopLogging();
    await new Promise<void>((r) => s.server.close(() => r()));
    await t.db.close();
    await t.drop();
  };
});

afterAll(async () => {
  await close();
  await new Promise<void>((r) => handler.close(() => r()));
});

const admin = { 'x-engine-admin-secret': ADMIN };
const parsed = () => lines.map((l) => JSON.parse(l) as { level: string; timestamp: string; type: string; detail: Record<string, unknown> });

/** Polls until a line of `type` satisfies `match` (the line is written once the answer is flushed). */
async function lineWhere(type: string, match: (d: Record<string, unknown>) => boolean) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = parsed().find((l) => l.type === type && match(l.detail));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no ${type} line matched; lines:\n${lines.join('')}`);
    await new Promise((r) => setImmediate(r));
  }
}

describe('X-Request-Id', () => {
  it('is on every answer: the client\'s echoed, else a new one', async () => {
    const own = await post(`${url}/v1/query`, { type: 'export_metadata', args: {} }, { ...admin, 'x-request-id': 'client-id-1' });
    expect(own.headers.get('x-request-id')).toBe('client-id-1');
    const a = await fetch(`${url}/v1/version`);
    const b = await fetch(`${url}/nope`);
    expect(a.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.status).toBe(404);
    expect(b.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.headers.get('x-request-id')).not.toBe(a.headers.get('x-request-id'));
    const long = await fetch(`${url}/v1/version`, { headers: { 'x-request-id': 'x'.repeat(201) } });
    expect(long.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('the framework keeps the envelope', () => {
  it.each(['/v1/query%', '/api/rest/%zz', '/%E0%A4%A'])('a path that does not decode (%s) is the 404 envelope', async (path) => {
    const { request } = await import('node:http');
    const port = Number(new URL(url).port);
    const answer = await new Promise<{ status: number | undefined; text: string; id: unknown }>((resolve, reject) => {
      const q = request({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode, text, id: res.headers['x-request-id'] }));
      });
      q.on('error', reject);
      q.end('{}');
    });
    expect(answer).toEqual({ status: 404, text: '{"path":"$","error":"resource does not exist","code":"not-found"}', id: expect.any(String) });
  });
});

describe('the Content-Type header stays ignored (engine-api.md §1.2)', () => {
  it.each(['garbage', 'text/plain', 'multipart/form-data; boundary=x'])('%s: the JSON body is read all the same', async (type) => {
    const r = await post(`${url}/v1/query`, { type: 'run_sql', args: { sql: 'select 1 as one' } }, { ...admin, 'content-type': type });
    expect([r.status, r.text]).toEqual([200, '{"result_type":"TuplesOk","result":[["one"],["1"]]}']);
  });
});

describe('http-log', () => {
  it('one JSON line per answer with timestamp, level, type and detail', async () => {
    await post(`${url}/v1/query`, { type: 'export_metadata', args: {} }, { ...admin, 'x-request-id': 'log-1' });
    const line = await lineWhere('http-log', (d) => d['request_id'] === 'log-1');
    expect(line.level).toBe('info');
    expect(Date.parse(line.timestamp)).not.toBeNaN();
    expect(line.detail).toEqual({ request_id: 'log-1', method: 'POST', path: '/v1/query', status: 200, duration_ms: expect.any(Number), role: 'admin' });
  });

  it('values a client chooses are escaped: a request id and a path with quotes and backslashes', async () => {
    const id = 'q"uo\\te-é';
    const r = await fetch(`${url}/v1/"odd\\path`, { headers: { 'x-request-id': id } });
    expect(r.status).toBe(404);
    const line = await lineWhere('http-log', (d) => d['request_id'] === id);
    expect(line.detail).toMatchObject({ request_id: id, method: 'GET', status: 404 });
    expect(String(line.detail['path'])).toContain('odd');
  });

  it('GraphQL: operation name and query hash, never the variables; an error code when refused', async () => {
    const body = { query: 'query Named($v: Int) { __typename }', operationName: 'Named', variables: { v: 424242 } };
    await post(`${url}/v1/graphql?token=abc`, body, { ...admin, 'x-request-id': 'gql-1' });
    const line = await lineWhere('http-log', (d) => d['request_id'] === 'gql-1');
    const hash = (q: string): string => createHash('sha256').update(q).digest('hex');
    expect(line.detail).toMatchObject({ path: '/v1/graphql', status: 200, role: 'admin', operation_name: 'Named', query_hash: hash(body.query) });
    // The second time the plan cache has the operation: the same name and hash, reported by the service.
    await post(`${url}/v1/graphql`, body, { ...admin, 'x-request-id': 'gql-2' });
    expect((await lineWhere('http-log', (d) => d['request_id'] === 'gql-2')).detail).toMatchObject({ operation_name: 'Named', query_hash: hash(body.query) });
    // A document of two operations names the one chosen; a batch is logged by its first element.
    const two = 'query A { __typename } query B { __typename }';
    await post(`${url}/v1/graphql`, { query: two, operationName: 'B' }, { ...admin, 'x-request-id': 'gql-3' });
    expect((await lineWhere('http-log', (d) => d['request_id'] === 'gql-3')).detail).toMatchObject({ operation_name: 'B', query_hash: hash(two) });
    await post(`${url}/v1/graphql`, [{ query: 'query First { __typename }' }, { query: 'query Second { __typename }' }], { ...admin, 'x-request-id': 'gql-4' });
    expect((await lineWhere('http-log', (d) => d['request_id'] === 'gql-4')).detail).toMatchObject({ operation_name: 'First', query_hash: hash('query First { __typename }') });
    expect(JSON.stringify(line)).not.toContain('424242');
    expect(JSON.stringify(line)).not.toContain('token');
    await post(`${url}/v1/graphql`, { query: '{ nope }' }, { ...admin, 'x-request-id': 'gql-bad' });
    // Refused before it was prepared: the hash still names the document (read from the body).
    expect((await lineWhere('http-log', (d) => d['request_id'] === 'gql-bad')).detail).toMatchObject({ status: 200, error_code: 'validation-failed', query_hash: hash('{ nope }') });
    await post(`${url}/v1/query`, { type: 'nope', args: {} }, { ...admin, 'x-request-id': 'bad-1' });
    expect((await lineWhere('http-log', (d) => d['request_id'] === 'bad-1')).detail).toMatchObject({ status: 400, error_code: expect.any(String) });
    await post(`${url}/v1/query`, { type: 'export_metadata', args: {} }, { 'x-engine-admin-secret': 'wrong', 'x-request-id': 'denied-1' });
    expect((await lineWhere('http-log', (d) => d['request_id'] === 'denied-1')).detail).toMatchObject({ status: 401, error_code: 'access-denied' });
  });
});

describe('/healthz (issue 31.5)', () => {
  it('OK with the database reachable and consistent metadata; a health-check line', async () => {
    const r = await fetch(`${url}/healthz?strict=true`);
    expect([r.status, await r.text()]).toEqual([200, 'OK']);
    await lineWhere('health-check', (d) => d['status'] === 'OK' && d['database'] === 'reachable');
  });

  it('inconsistent metadata: WARN with 200, and with strict=true 500 with the inconsistent objects', async () => {
    const metadata = { version: 2, tables: [{ table: { schema: 'public', name: 'missing_table' } }] };
    const applied = await post(`${url}/v1/metadata`, { type: 'replace_metadata', args: { metadata, allow_inconsistent_metadata: true } }, admin);
    expect(applied.status, applied.text).toBe(200);
    try {
      const warn = await fetch(`${url}/healthz`);
      expect([warn.status, await warn.text()]).toEqual([200, 'WARN: inconsistent objects in schema']);
      const strict = await fetch(`${url}/healthz?strict=true`);
      expect(strict.status).toBe(500);
      expect(strict.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await strict.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ path: '$', code: 'metadata-inconsistent', error: 'inconsistent objects in schema' });
      expect(body['inconsistent_objects']).toEqual([{ type: 'table', definition: { schema: 'public', name: 'missing_table' }, reason: 'no such table/view exists in postgres : "missing_table"' }]);
      await lineWhere('health-check', (d) => d['status'] === 'ERROR' && d['inconsistent_objects'] === 1);
    } finally {
      const reset = await post(`${url}/v1/metadata`, { type: 'replace_metadata', args: { metadata: { version: 2, tables: [] } } }, admin);
      expect(reset.status, reset.text).toBe(200);
    }
    expect((await fetch(`${url}/healthz?strict=true`)).status).toBe(200);
  });
});

describe('no secret in any log (issue 31.2)', () => {
  it('admin secret, JWT and webhook header values from the environment appear in no line', async () => {
    const action = {
      name: 'ping',
      definition: { kind: 'synchronous', handler: '{{HANDLER}}', type: 'mutation', arguments: [], output_type: 'PingOut', headers: [{ name: 'x-secret', value_from_env: 'HEADER_SECRET' }] },
    };
    const set = await post(`${url}/v1/metadata`, { type: 'replace_metadata', args: { metadata: {
      version: 2, tables: [], actions: [action], custom_types: { objects: [{ name: 'PingOut', fields: [{ name: 'ok', type: 'Boolean' }] }] },
    } } }, admin);
    expect(set.status, set.text).toBe(200);
    const jwt = await sign({ [NS]: claims(1) }, HS_KEY);
    await post(`${url}/v1/graphql`, { query: 'mutation { ping { ok } }' }, { ...admin, 'x-request-id': 'secret-1' });
    await post(`${url}/v1/graphql`, { query: '{ __typename }' }, { authorization: `Bearer ${jwt}`, 'x-request-id': 'secret-2' });
    await post(`${url}/v1/graphql`, { query: '{ __typename }' }, { authorization: `Bearer ${jwt}x`, 'x-request-id': 'secret-3' });
    await post(`${url}/v1/query`, { type: 'export_metadata', args: {} }, { 'x-engine-admin-secret': `${ADMIN}-wrong`, 'x-request-id': 'secret-4' });
    for (const id of ['secret-1', 'secret-2', 'secret-3', 'secret-4']) await lineWhere('http-log', (d) => d['request_id'] === id);
    // The action's call is logged: purpose, name, URL, status; its header value is not.
    const call = await lineWhere('webhook-log', (d) => d['name'] === 'ping');
    expect(call.detail).toEqual({ purpose: 'action', name: 'ping', method: 'POST', url: `${handlerUrl}/`, status: 200, duration_ms: expect.any(Number) });
    const all = lines.join('') + messages.join('\n');
    for (const secret of [ADMIN, JWT_KEY, HEADER_SECRET, jwt, jwt.split('.')[2] as string]) expect(all).not.toContain(secret);
  });
});

describe('webhook-log and event-trigger lines of outbound calls', () => {
  it('a trigger delivery: both lines; a refused connection is an error with its reason', async () => {
    const { callHttp } = await import('../../src/server/outbound/index.js');
    const before = lines.length;
    const base = { headers: [{ name: 'x-secret', value: HEADER_SECRET }], body: '{}', timeoutSec: 5, maxBodyBytes: 1000, overflow: 'fail' as const };
    await callHttp({ ...base, url: `${handlerUrl}/hook?key=${HEADER_SECRET}`, purpose: 'trigger', name: 'orders' });
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    await callHttp({ ...base, url: `http://user:${HEADER_SECRET}@127.0.0.1:${port}/gone`, purpose: 'trigger', name: 'orders' });
    const got = parsed().slice(before).filter((l) => l.type === 'webhook-log' || l.type === 'event-trigger');
    expect(got.map((l) => [l.type, l.level, l.detail])).toEqual([
      ['webhook-log', 'info', { purpose: 'trigger', name: 'orders', method: 'POST', url: `${handlerUrl}/hook`, status: 200, duration_ms: expect.any(Number) }],
      ['event-trigger', 'info', { trigger: 'orders', delivered: true, status: 200, duration_ms: expect.any(Number) }],
      ['webhook-log', 'error', { purpose: 'trigger', name: 'orders', method: 'POST', url: `http://127.0.0.1:${port}/gone`, error: 'connection refused', duration_ms: expect.any(Number) }],
      ['event-trigger', 'warn', { trigger: 'orders', delivered: false, error: 'connection refused', duration_ms: expect.any(Number) }],
    ]);
    expect(lines.join('')).not.toContain(HEADER_SECRET);
  });
});
