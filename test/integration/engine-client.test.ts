import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EngineClient, EngineRequestError, type EngineClientOptions } from '../../src/client/engine-client.js';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';

// cli.md §1.5, §3.2, §3.6, §3.7 and §6: the CLI's HTTP client against servers we control, then against the real engine.

const SECRET = 'sup3r-s3cret-value';
const NETWORK_HINT = "start a local engine with 'engine serve', or set --endpoint / ENGINE_GRAPHQL_ENDPOINT";
const UNAUTHORIZED_HINT =
  'pass --admin-secret or set ENGINE_GRAPHQL_ADMIN_SECRET (environment, .env, or admin_secret: ${VAR} in config.yaml)';
const FAST_RETRIES = [5, 10, 20];

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}
type Handler = (req: IncomingMessage, res: ServerResponse, n: number, body: string) => void;

interface FakeServer {
  url: string;
  requests: Seen[];
  close(): Promise<void>;
}

const servers: FakeServer[] = [];

/** A node:http server on 127.0.0.1 port 0 answering with `handler` (n = 0-based request number). */
async function fake(handler: Handler): Promise<FakeServer> {
  const requests: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, requests.length - 1, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const s: FakeServer = {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
  servers.push(s);
  return s;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

const clients: EngineClient[] = [];
function client(endpoint: string, extra: Partial<EngineClientOptions> = {}): { c: EngineClient; logs: string[] } {
  const logs: string[] = [];
  const logger = { debug: (m: string) => logs.push(`debug: ${m}`), info: (m: string) => logs.push(m),
    warn: (m: string) => logs.push(`warning: ${m}`), error: (m: string) => logs.push(`error: ${m}`) };
  const c = new EngineClient({ endpoint, timeoutSeconds: 5, logger, version: '1.2.3', retryDelaysMs: FAST_RETRIES, ...extra });
  clients.push(c);
  return { c, logs };
}

async function failure(p: Promise<unknown>): Promise<EngineRequestError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(EngineRequestError);
    return e as EngineRequestError;
  }
  throw new Error('expected the request to fail');
}

/** The parts of a failure the spec fixes. */
const summary = (e: EngineRequestError) => ({ code: e.code, message: e.message, exitCode: e.exitCode, location: e.location });

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

describe('requests (cli.md §1.5)', () => {
  it('sends the headers, the body without "version", and reads the resource version header', async () => {
    const s = await fake((_q, res) => json(res, 200, { version: 2, tables: [] }, { 'X-Engine-Resource-Version': '7' }));
    const { c } = client(s.url, { adminSecret: SECRET });
    expect(await c.exportMetadata()).toEqual({ metadata: { version: 2, tables: [] }, resourceVersion: 7 });
    expect(s.requests).toHaveLength(1);
    const r = s.requests[0]!;
    expect(r.method).toBe('POST');
    expect(r.url).toBe('/v1/query');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['x-engine-role']).toBe('admin');
    expect(r.headers['user-agent']).toBe('engine-cli/1.2.3');
    expect(r.headers['x-engine-admin-secret']).toBe(SECRET);
    expect(r.body).toBe('{"type":"export_metadata","args":{}}');
  });

  it('sends no secret header without a secret; a missing resource version header is null; a trailing / is ignored', async () => {
    const s = await fake((_q, res) => json(res, 200, { version: 2 }));
    const { c } = client(`${s.url}/`);
    expect(await c.exportMetadata()).toEqual({ metadata: { version: 2 }, resourceVersion: null });
    expect(s.requests[0]!.url).toBe('/v1/query');
    expect(s.requests[0]!.headers['x-engine-admin-secret']).toBeUndefined();
    expect(c.endpoint).toBe(s.url);
  });

  it('replace_metadata sends resource_version only when known and answers the new version', async () => {
    const s = await fake((_q, res, n) => json(res, 200,
      n === 0 ? { message: 'success' } : { is_consistent: false, inconsistent_objects: [] },
      { 'X-Engine-Resource-Version': String(8 + n) }));
    const { c } = client(s.url);
    const doc = { version: 2, tables: [] };
    expect(await c.replaceMetadata(doc, 7, false)).toEqual({ body: { message: 'success' }, resourceVersion: 8 });
    expect(await c.replaceMetadata(doc, null, true))
      .toEqual({ body: { is_consistent: false, inconsistent_objects: [] }, resourceVersion: 9 });
    expect(s.requests.map((r) => r.body)).toEqual([
      '{"type":"replace_metadata","args":{"metadata":{"version":2,"tables":[]},"resource_version":7,"allow_inconsistent_metadata":false}}',
      '{"type":"replace_metadata","args":{"metadata":{"version":2,"tables":[]},"allow_inconsistent_metadata":true}}',
    ]);
  });

  it('sends each operation as specified and returns its typed result', async () => {
    const answers: Record<string, unknown> = {
      clear_metadata: { message: 'success' },
      reload_metadata: { message: 'success', is_consistent: true },
      get_inconsistent_metadata: { is_consistent: true, inconsistent_objects: [] },
      drop_inconsistent_metadata: { message: 'success' },
      bulk: [{ message: 'success' }, { message: 'success' }],
      run_sql: { result_type: 'TuplesOk', result: [['one'], ['1']] },
      track_table: { message: 'success' },
    };
    const s = await fake((req, res, _n, body) => {
      if (req.method === 'GET') return json(res, 200, { version: '0.9.0' });
      json(res, 200, answers[(JSON.parse(body) as { type: string }).type]);
    });
    const { c } = client(s.url, { adminSecret: SECRET });
    expect(await c.clearMetadata()).toEqual({ message: 'success' });
    expect(await c.reloadMetadata()).toEqual({ message: 'success', is_consistent: true });
    expect(await c.getInconsistentMetadata()).toEqual({ is_consistent: true, inconsistent_objects: [] });
    expect(await c.dropInconsistentMetadata()).toEqual({ message: 'success' });
    const ops = [{ type: 'set_custom_types', args: {} }, { type: 'create_action', args: { name: 'a' } }];
    expect(await c.bulk(ops)).toEqual([{ message: 'success' }, { message: 'success' }]);
    expect(await c.runSql('select 1 as one', { readOnly: true })).toEqual({ result_type: 'TuplesOk', result: [['one'], ['1']] });
    expect(await c.runSql('select 1 as one')).toEqual({ result_type: 'TuplesOk', result: [['one'], ['1']] });
    expect(await c.query('track_table', { table: 'a' }, { read: false }))
      .toEqual({ status: 200, body: { message: 'success' }, resourceVersion: null });
    expect(await c.version()).toBe('0.9.0');
    expect(s.requests.map((r) => `${r.method} ${r.url} ${r.body}`)).toEqual([
      'POST /v1/query {"type":"clear_metadata","args":{}}',
      'POST /v1/query {"type":"reload_metadata","args":{}}',
      'POST /v1/query {"type":"get_inconsistent_metadata","args":{}}',
      'POST /v1/query {"type":"drop_inconsistent_metadata","args":{}}',
      'POST /v1/query {"type":"bulk","args":[{"type":"set_custom_types","args":{}},{"type":"create_action","args":{"name":"a"}}]}',
      'POST /v1/query {"type":"run_sql","args":{"sql":"select 1 as one","read_only":true}}',
      'POST /v1/query {"type":"run_sql","args":{"sql":"select 1 as one"}}',
      'POST /v1/query {"type":"track_table","args":{"table":"a"}}',
      'GET /v1/version ',
    ]);
    for (const r of s.requests) {
      expect(r.headers['x-engine-role']).toBe('admin');
      expect(r.headers['user-agent']).toBe('engine-cli/1.2.3');
      expect(r.headers['x-engine-admin-secret']).toBe(SECRET);
    }
  });

  it('posts the introspection query to /v1/graphql', async () => {
    const s = await fake((_q, res) => json(res, 200, { data: { __schema: {} } }));
    const { c } = client(s.url);
    expect(await c.introspect('{ __schema { types { name } } }')).toEqual({ data: { __schema: {} } });
    expect(s.requests.map((r) => `${r.method} ${r.url} ${r.body}`))
      .toEqual(['POST /v1/graphql {"query":"{ __schema { types { name } } }"}']);
  });
});

describe('retries (cli.md §3.6)', () => {
  it('retries a read after 503 and succeeds', async () => {
    const s = await fake((_q, res, n) => (n < 2 ? json(res, 503, 'busy') : json(res, 200, { version: 2 })));
    const { c, logs } = client(s.url);
    expect((await c.exportMetadata()).metadata).toEqual({ version: 2 });
    expect(s.requests).toHaveLength(3);
    expect(logs.filter((l) => l.startsWith('debug: retrying export_metadata'))).toEqual([
      'debug: retrying export_metadata in 5 ms after HTTP 503 Service Unavailable (attempt 2/4)',
      'debug: retrying export_metadata in 10 ms after HTTP 503 Service Unavailable (attempt 3/4)',
    ]);
  });

  it('waits 0.5 s before the first retry by default', async () => {
    const s = await fake((_q, res, n) => (n === 0 ? json(res, 502, '') : json(res, 200, { version: 2 })));
    const { c } = client(s.url, { retryDelaysMs: undefined });
    const t0 = Date.now();
    await c.exportMetadata();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(480);
    expect(s.requests).toHaveLength(2);
  });

  it('gives up after 3 retries and classifies the last answer', async () => {
    const html = await fake((_q, res) => {
      res.writeHead(504, { 'Content-Type': 'text/html' });
      res.end('<html>gateway timeout</html>');
    });
    const e = await failure(client(html.url).c.getInconsistentMetadata());
    expect(html.requests).toHaveLength(4);
    expect(summary(e)).toEqual({ code: 'invalid-response', exitCode: 1, location: {},
      message: `unexpected response from ${html.url}/v1/query: HTTP 504 Gateway Timeout: "<html>gateway timeout</html>"` });

    const engine = await fake((_q, res) => json(res, 503, { path: '$', error: 'database unavailable', code: 'unexpected' }));
    const e2 = await failure(client(engine.url).c.version());
    expect(engine.requests).toHaveLength(4);
    expect(summary(e2)).toEqual({ code: 'server-error', exitCode: 1, location: { path: '$' },
      message: 'the engine rejected version: database unavailable [unexpected]' });
  });

  it('retries a read_only run_sql, but not a writing one', async () => {
    const s = await fake((_q, res) => json(res, 503, { path: '$', error: 'busy', code: 'busy' }));
    const { c } = client(s.url);
    await failure(c.runSql('select 1', { readOnly: true }));
    expect(s.requests).toHaveLength(4);
    await failure(c.runSql('create table t ()'));
    expect(s.requests).toHaveLength(5);
  });

  it('never retries writes, whatever the failure', async () => {
    const s = await fake((_q, res) => json(res, 502, { path: '$', error: 'bad gateway', code: 'unexpected' }));
    const { c, logs } = client(s.url);
    await failure(c.replaceMetadata({ version: 2 }, 1, false));
    await failure(c.clearMetadata());
    await failure(c.reloadMetadata());
    await failure(c.dropInconsistentMetadata());
    await failure(c.bulk([{ type: 'run_sql', args: { sql: 'select 1' } }]));
    await failure(c.query('track_table', {}, { read: false }));
    expect(s.requests).toHaveLength(6);
    expect(logs.some((l) => l.includes('retrying'))).toBe(false);

    const reset = await fake((req) => req.socket.destroy());
    const e = await failure(client(reset.url).c.clearMetadata());
    expect(reset.requests).toHaveLength(1);
    expect(summary(e)).toEqual({ code: 'network-error', exitCode: 1, location: { hint: NETWORK_HINT },
      message: `cannot connect to the engine at ${reset.url} (connection reset)` });
  });

  it('retries a read when the connection is reset or refused', async () => {
    const s = await fake((req, res, n) => (n < 3 ? req.socket.destroy() : json(res, 200, { version: '1.0.0' })));
    const { c, logs } = client(s.url);
    expect(await c.version()).toBe('1.0.0');
    expect(s.requests).toHaveLength(4);
    expect(logs.filter((l) => l.includes('retrying version'))).toHaveLength(3);

    const port = await freePort();
    const refused = client(`http://127.0.0.1:${port}`);
    const e = await failure(refused.c.exportMetadata());
    expect(summary(e)).toEqual({ code: 'network-error', exitCode: 1, location: { hint: NETWORK_HINT },
      message: `cannot connect to the engine at http://127.0.0.1:${port} (connection refused)` });
    expect(refused.logs.filter((l) => l.startsWith('debug: http request:'))).toHaveLength(4);
    expect(refused.logs.filter((l) => l.startsWith('debug: retrying export_metadata in'))).toEqual([
      'debug: retrying export_metadata in 5 ms after connection refused (attempt 2/4)',
      'debug: retrying export_metadata in 10 ms after connection refused (attempt 3/4)',
      'debug: retrying export_metadata in 20 ms after connection refused (attempt 4/4)',
    ]);
  });
});

describe('timeouts (cli.md §3.6)', () => {
  it('times out a server that never answers, without retrying', async () => {
    const s = await fake(() => {});
    const { c } = client(s.url, { timeoutSeconds: 1 });
    const t0 = Date.now();
    const e = await failure(c.exportMetadata());
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(s.requests).toHaveLength(1);
    expect(summary(e)).toEqual({ code: 'timeout', exitCode: 1, location: { hint: 'increase --timeout or ENGINE_GRAPHQL_TIMEOUT' },
      message: `the engine at ${s.url} did not respond within 1s` });
  });

  it('covers the whole response body', async () => {
    const s = await fake((_q, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"version":');
    });
    const e = await failure(client(s.url, { timeoutSeconds: 1 }).c.version());
    expect(e.code).toBe('timeout');
    expect(s.requests).toHaveLength(1);
  });
});

describe('failure classification (cli.md §6)', () => {
  it('unauthorized: with and without a secret', async () => {
    const s = await fake((req, res) => json(res, 401, req.headers['x-engine-admin-secret']
      ? { path: '$', error: 'invalid x-engine-admin-secret', code: 'access-denied' }
      : { path: '$', error: 'x-engine-admin-secret required, but not found', code: 'access-denied' }));
    const wrong = await failure(client(s.url, { adminSecret: 'wrong' }).c.exportMetadata());
    expect(summary(wrong)).toEqual({ code: 'unauthorized', exitCode: 1, location: { hint: UNAUTHORIZED_HINT },
      message: `the engine at ${s.url} rejected the admin secret (HTTP 401)` });
    expect(wrong.engineError).toEqual({ path: '$', error: 'invalid x-engine-admin-secret', code: 'access-denied' });
    expect(wrong.status).toBe(401);
    const none = await failure(client(s.url).c.clearMetadata());
    expect(summary(none)).toEqual({ code: 'unauthorized', exitCode: 1, location: { hint: UNAUTHORIZED_HINT },
      message: `the engine at ${s.url} requires an admin secret (HTTP 401)` });
    expect(s.requests).toHaveLength(2);
  });

  it('404 is an invalid response with a hint', async () => {
    const s = await fake((_q, res) => json(res, 404, { path: '$', error: 'resource does not exist', code: 'not-found' }));
    const e = await failure(client(`${s.url}/v1/graphql`).c.exportMetadata());
    expect(summary(e)).toEqual({ code: 'invalid-response', exitCode: 1,
      location: { hint: "check that the endpoint is the engine's base URL" },
      message: `unexpected response from ${s.url}/v1/graphql/v1/query: HTTP 404 Not Found: ` +
        '"{\\"path\\":\\"$\\",\\"error\\":\\"resource does not exist\\",\\"code\\":\\"not-found\\"}"' });
    expect(s.requests).toHaveLength(1);
  });

  it('a body that is not JSON, cut after 200 characters, or empty', async () => {
    const long = `<html>${'x'.repeat(300)}</html>`;
    const s = await fake((req, res) => {
      if (req.url === '/short/v1/query') {
        res.writeHead(500, { 'Content-Type': 'text/html' });
        res.end('<h1>Internal Server Error</h1>');
      } else if (req.url === '/long/v1/query') {
        res.writeHead(200, { 'Content-Type': 'text/html' });
        res.end(long);
      } else {
        res.writeHead(500);
        res.end();
      }
    });
    const short = await failure(client(`${s.url}/short`).c.clearMetadata());
    expect(summary(short)).toEqual({ code: 'invalid-response', exitCode: 1, location: {},
      message: `unexpected response from ${s.url}/short/v1/query: HTTP 500 Internal Server Error: "<h1>Internal Server Error</h1>"` });
    const cut = await failure(client(`${s.url}/long`).c.clearMetadata());
    expect(cut.message).toBe(`unexpected response from ${s.url}/long/v1/query: HTTP 200 OK: ${JSON.stringify(long.slice(0, 200))}…`);
    const empty = await failure(client(`${s.url}/empty`).c.clearMetadata());
    expect(empty.message).toBe(`unexpected response from ${s.url}/empty/v1/query: HTTP 500 Internal Server Error: (empty body)`);
  });

  it('a 2xx body of the wrong shape, and a JSON error that is not the envelope', async () => {
    const s = await fake((_q, res, n) => (n === 0 ? json(res, 200, { message: 'success' })
      : n === 1 ? json(res, 200, [{ message: 'success' }]) : json(res, 400, { errors: ['x'] })));
    const { c } = client(s.url);
    const e = await failure(c.getInconsistentMetadata());
    expect(e.message).toBe(`unexpected response from ${s.url}/v1/query: HTTP 200 OK: "{\\"message\\":\\"success\\"}"`);
    expect(e.code).toBe('invalid-response');
    expect((await failure(c.bulk([{ type: 'a', args: {} }, { type: 'b', args: {} }]))).code).toBe('invalid-response');
    const notEnvelope = await failure(c.clearMetadata());
    expect(summary(notEnvelope)).toEqual({ code: 'invalid-response', exitCode: 1, location: {},
      message: `unexpected response from ${s.url}/v1/query: HTTP 400 Bad Request: "{\\"errors\\":[\\"x\\"]}"` });
  });

  it('an engine error is a server-error with its path and body', async () => {
    const body = { path: '$.args.table', error: 'table "author" does not exist', code: 'not-exists' };
    const s = await fake((_q, res) => json(res, 400, body));
    const e = await failure(client(s.url).c.query('track_table', { table: 'author' }, { read: false }));
    expect(summary(e)).toEqual({ code: 'server-error', exitCode: 1, location: { path: '$.args.table' },
      message: 'the engine rejected track_table: table "author" does not exist [not-exists]' });
    expect(e.engineError).toEqual(body);
    expect(e.operation).toBe('track_table');
    expect(e.status).toBe(400);
  });

  it('in a bulk, the operation is the failing sub-operation (nested bulks too)', async () => {
    const internal = { statement: 'x', error: { message: 'boom' } };
    const s = await fake((_q, res, n) => json(res, 400, n === 0
      ? { path: '$.args[1].args.name', error: 'action "a" already exists', code: 'already-exists' }
      : n === 1 ? { path: '$.args[0].args[1].args', error: 'query execution failed', code: 'postgres-error', internal }
        : { path: '$.args', error: 'expected an array', code: 'parse-failed' }));
    const { c } = client(s.url);
    const e = await failure(c.bulk([{ type: 'set_custom_types', args: {} }, { type: 'create_action', args: { name: 'a' } }]));
    expect(summary(e)).toEqual({ code: 'server-error', exitCode: 1, location: { path: '$.args[1].args.name' },
      message: 'the engine rejected create_action: action "a" already exists [already-exists]' });
    const nested = await failure(c.bulk([{ type: 'bulk', args: [{ type: 'track_table', args: {} }, { type: 'run_sql', args: {} }] }]));
    expect(nested.message).toBe('the engine rejected run_sql: query execution failed [postgres-error]');
    expect(nested.engineError).toEqual({ path: '$.args[0].args[1].args', error: 'query execution failed', code: 'postgres-error', internal });
    expect(nested.operation).toBe('bulk');
    const whole = await failure(c.bulk([]));
    expect(whole.message).toBe('the engine rejected bulk: expected an array [parse-failed]');
  });

  it('409 conflict on replace_metadata is a metadata-conflict naming the version sent', async () => {
    const body = { path: '$.args.resource_version', error: 'resource version mismatch', code: 'conflict',
      internal: { requested: 4, current: 5 } };
    const s = await fake((_q, res) => json(res, 409, body));
    const { c } = client(s.url);
    const e = await failure(c.replaceMetadata({ version: 2 }, 4, false));
    expect(summary(e)).toEqual({ code: 'metadata-conflict', exitCode: 1,
      location: { path: '$.args.resource_version', hint: "run 'engine metadata diff' to review, then apply again" },
      message: "the engine's metadata changed after it was read (resource version 4); nothing was applied" });
    expect(e.engineError).toEqual(body);
    expect(s.requests).toHaveLength(1);
    // Elsewhere a 409 is an ordinary server-error.
    const other = await failure(c.query('track_table', {}, { read: false }));
    expect(other.code).toBe('server-error');
  });

  it('a TLS failure is a network error', async () => {
    const s = await fake((_q, res) => json(res, 200, {}));
    const https = s.url.replace('http:', 'https:');
    const { c } = client(https);
    const e = await failure(c.exportMetadata());
    expect(e.code).toBe('network-error');
    expect(e.message).toMatch(new RegExp(`^cannot connect to the engine at ${https.replace(/\./g, '\\.')} \\(TLS error: .+\\)$`));
    expect(e.location).toEqual({ hint: NETWORK_HINT });
  });

  it('an unknown host is a network error', async () => {
    const e = await failure(client('http://engine.invalid:8080').c.clearMetadata());
    expect(summary(e)).toEqual({ code: 'network-error', exitCode: 1, location: { hint: NETWORK_HINT },
      message: 'cannot connect to the engine at http://engine.invalid:8080 (host not found)' });
  });
});

describe('debug logs and secrets (cli.md §3.2, §3.7)', () => {
  it('logs requests, responses and retries, never the secret', async () => {
    const s = await fake((_q, res, n) => (n === 0 ? json(res, 503, {}) : json(res, 400,
      { path: '$.args', error: `bad secret ${SECRET} in sql`, code: 'postgres-error', internal: { statement: `select '${SECRET}'` } })));
    const { c, logs } = client(s.url, { adminSecret: SECRET });
    const e = await failure(c.runSql(`select '${SECRET}'`, { readOnly: true }));
    expect(e.message).toBe('the engine rejected run_sql: bad secret *** in sql [postgres-error]');
    expect(e.engineError).toEqual({ path: '$.args', error: 'bad secret *** in sql', code: 'postgres-error',
      internal: { statement: "select '***'" } });
    expect(JSON.stringify(logs)).not.toContain(SECRET);
    const url = `${s.url}/v1/query`;
    expect(logs[0]).toBe(`debug: http request: POST ${url} (run_sql, attempt 1/4); headers: Content-Type: application/json, ` +
      'X-Engine-Role: admin, User-Agent: engine-cli/1.2.3, X-Engine-Admin-Secret: ***; body ' +
      `${Buffer.byteLength(JSON.stringify({ type: 'run_sql', args: { sql: `select '${SECRET}'`, read_only: true } }))} bytes`);
    expect(logs[1]).toMatch(new RegExp(`^debug: http response: POST ${url.replace(/\./g, '\\.')} \\(run_sql, attempt 1/4\\): ` +
      'HTTP 503 Service Unavailable in \\d+ ms, 2 bytes$'));
    expect(logs[2]).toBe('debug: retrying run_sql in 5 ms after HTTP 503 Service Unavailable (attempt 2/4)');
    expect(logs[4]).toMatch(/^debug: http response: .* \(run_sql, attempt 2\/4\): HTTP 400 Bad Request in \d+ ms/);
    expect(logs).toHaveLength(5);
  });

  it('masks the secret in an invalid response and in connection failures', async () => {
    const s = await fake((_q, res) => {
      res.writeHead(502, { 'Content-Type': 'text/plain' });
      res.end(`proxy saw header ${SECRET}`);
    });
    const { c, logs } = client(s.url, { adminSecret: SECRET });
    const e = await failure(c.clearMetadata());
    expect(e.message).toBe(`unexpected response from ${s.url}/v1/query: HTTP 502 Bad Gateway: "proxy saw header ***"`);
    const port = await freePort();
    const refused = client(`http://127.0.0.1:${port}`, { adminSecret: SECRET });
    await failure(refused.c.version());
    expect(JSON.stringify([logs, refused.logs])).not.toContain(SECRET);
    expect(refused.logs.some((l) => l.includes('X-Engine-Admin-Secret: ***'))).toBe(true);
  });
});

describe('against the real engine', () => {
  let te: TestEngine;
  beforeAll(async () => {
    te = await startTestEngine({ adminSecret: SECRET });
  });
  afterAll(async () => {
    await te?.close();
  });

  it('exports, replaces with the version read, and reports a stale version as metadata-conflict', async () => {
    await te.sql('CREATE TABLE public.author (id serial PRIMARY KEY, name text)');
    const { c, logs } = client(te.url, { adminSecret: SECRET });
    expect(await c.version()).toMatch(/^\d+\.\d+\.\d+/);
    const first = await c.exportMetadata();
    expect(first.metadata).toEqual({ version: 2, tables: [] });
    expect(typeof first.resourceVersion).toBe('number');
    const v = first.resourceVersion as number;
    const doc = { version: 2, tables: [{ table: { schema: 'public', name: 'author' } }] };
    const replaced = await c.replaceMetadata(doc, v, false);
    expect(replaced).toEqual({ body: { message: 'success' }, resourceVersion: v + 1 });
    const second = await c.exportMetadata();
    expect(second).toEqual({ metadata: doc, resourceVersion: v + 1 });

    const e = await failure(c.replaceMetadata({ version: 2, tables: [] }, v, false));
    expect(summary(e)).toEqual({ code: 'metadata-conflict', exitCode: 1,
      location: { path: '$.args.resource_version', hint: "run 'engine metadata diff' to review, then apply again" },
      message: `the engine's metadata changed after it was read (resource version ${v}); nothing was applied` });
    expect(e.engineError).toEqual({ path: '$.args.resource_version', error: 'resource version mismatch', code: 'conflict',
      internal: { requested: v, current: v + 1 } });
    expect((await c.exportMetadata()).metadata).toEqual(doc);
    expect(JSON.stringify(logs)).not.toContain(SECRET);
  });

  it('runs SQL, reports a failing bulk sub-operation and a wrong secret', async () => {
    const { c } = client(te.url, { adminSecret: SECRET });
    expect(await c.runSql('select 1 as one', { readOnly: true })).toEqual({ result_type: 'TuplesOk', result: [['one'], ['1']] });
    const e = await failure(c.bulk([
      { type: 'run_sql', args: { sql: 'select 1' } },
      { type: 'track_table', args: { table: { schema: 'public', name: 'nope' } } },
    ]));
    expect(e.code).toBe('server-error');
    expect(e.message).toMatch(/^the engine rejected track_table: .+ \[[a-z-]+\]$/);
    expect(e.location.path).toMatch(/^\$\.args\[1\]/);
    expect(await c.getInconsistentMetadata()).toEqual({ is_consistent: true, inconsistent_objects: expect.any(Array) as unknown });

    const wrong = await failure(client(te.url, { adminSecret: 'wrong' }).c.exportMetadata());
    expect(wrong.message).toBe(`the engine at ${te.url} rejected the admin secret (HTTP 401)`);
    const none = await failure(client(te.url).c.exportMetadata());
    expect(none.message).toBe(`the engine at ${te.url} requires an admin secret (HTTP 401)`);
  });
});
