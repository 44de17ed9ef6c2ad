import { describe, expect, it } from 'vitest';
import { client, closeAfterEach, fake, failure, freePort, json, NETWORK_HINT, SECRET, summary } from './engine-client-fixtures.js';

// cli.md §1.5 and §3.6: what the CLI's HTTP client sends, when it retries and when it times out, against servers we control.

closeAfterEach();

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
    }, { version: true });
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
    const { c, logs } = client(s.url, { retryDelaysMs: undefined });
    await c.exportMetadata();
    expect(logs.filter((l) => l.startsWith('debug: retrying'))).toEqual(['debug: retrying export_metadata in 500 ms after HTTP 502 Bad Gateway (attempt 2/4)']);
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

    const engine = await fake((_q, res) => json(res, 503, { path: '$', error: 'database unavailable', code: 'unexpected' }), { version: true });
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

  it('retries a read when the connection is reset; a refused one fails at once (issue 19)', async () => {
    const s = await fake((req, res, n) => (n < 3 ? req.socket.destroy() : json(res, 200, { version: '1.0.0' })), { version: true });
    const { c, logs } = client(s.url);
    expect(await c.version()).toBe('1.0.0');
    expect(s.requests).toHaveLength(4);
    expect(logs.filter((l) => l.includes('retrying version'))).toHaveLength(3);

    const port = await freePort();
    const refused = client(`http://127.0.0.1:${port}`);
    const e = await failure(refused.c.exportMetadata());
    expect(summary(e)).toEqual({ code: 'network-error', exitCode: 1, location: { hint: NETWORK_HINT },
      message: `cannot connect to the engine at http://127.0.0.1:${port} (connection refused)` });
    expect(refused.logs.filter((l) => l.startsWith('debug: http request:'))).toHaveLength(1);
    expect(refused.logs.filter((l) => l.includes('retrying'))).toEqual([]);
  });
});

describe('timeouts (cli.md §3.6)', () => {
  it('times out a server that never answers, without retrying', async () => {
    const s = await fake(() => {});
    const { c } = client(s.url, { timeoutSeconds: 1 });
    const e = await failure(c.exportMetadata());
    expect(s.requests).toHaveLength(1);
    expect(summary(e)).toEqual({ code: 'timeout', exitCode: 1, location: { hint: 'increase --timeout or ENGINE_GRAPHQL_TIMEOUT' },
      message: `the engine at ${s.url} did not respond within 1s` });
  });

  it('covers the whole response body', async () => {
    const s = await fake((_q, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"version":');
    }, { version: true });
    const e = await failure(client(s.url, { timeoutSeconds: 1 }).c.version());
    expect(e.code).toBe('timeout');
    expect(s.requests).toHaveLength(1);
  });
});
