import { describe, expect, it } from 'vitest';
import { client, closeAfterEach, fake, failure, freePort, json, NETWORK_HINT, SECRET, summary, UNAUTHORIZED_HINT } from './engine-client-fixtures.js';

// cli.md §6, §3.2 and §3.7: how the CLI's HTTP client classifies failures, and its debug logs that never show the secret.

closeAfterEach();

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

  it('an engine without GraphQL: its own 404 on /v1/graphql says so instead of blaming the URL', async () => {
    const s = await fake((_q, res) => json(res, 404, { path: '$', error: 'resource does not exist', code: 'not-found' }));
    const e = await failure(client(s.url).c.introspect('{ __typename }'));
    expect(e.location.hint).toBe('the engine at this endpoint does not serve GraphQL (POST /v1/graphql): upgrade it, or pass the definition with --sdl');
    const other = await fake((_q, res) => {
      res.writeHead(404, { 'Content-Type': 'text/html' });
      res.end('<h1>Not Found</h1>');
    });
    expect((await failure(client(other.url).c.introspect('{ __typename }'))).location.hint).toBe("check that the endpoint is the engine's base URL");
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
    // Issue 19: a retry is said at the default level too.
    expect(logs[3]).toBe('retrying in 0.005 s (attempt 2 of 4)');
    expect(logs[5]).toMatch(/^debug: http response: .* \(run_sql, attempt 2\/4\): HTTP 400 Bad Request in \d+ ms/);
    expect(logs).toHaveLength(6);
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
