import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql, q, useExampleEngine } from './graphql-fixture.js';
import { post } from '../helpers/engine.js';
import { AuthHook } from '../../src/server/auth/hook.js';

// Issue 17, auth hook mode: a real hook server on 127.0.0.1 decides the session from the forwarded headers (GET) or
// the headers and the GraphQL request (POST); its refusals, failures, timeouts and garbage are access-denied; its answers are
// cached per Cache-Control.

interface Seen { method: string; headers: IncomingMessage['headers']; body: string }
const seen: Seen[] = [];
let server: Server;
let hookUrl = '';

/** The hook's behaviour is chosen by the token the test sends. */
function answer(token: string): { status: number; body: string; headers?: Record<string, string> } | 'hang' | 'reset' {
  const m = /^user-(\d+)(-cached)?$/.exec(token);
  if (m) return { status: 200, body: JSON.stringify({ 'X-Engine-Role': 'user', 'X-Engine-User-Id': m[1], 'x-engine-groups': [1, 2], other: 'x' }), headers: m[2] ? { 'cache-control': 'max-age=600' } : {} };
  if (token === 'anonymous') return { status: 200, body: '{"x-engine-role":"anonymous"}' };
  if (token === 'deny') return { status: 401, body: '{"error":"nope"}' };
  if (token === 'boom') return { status: 500, body: 'oops' };
  if (token === 'text') return { status: 200, body: '<html>hello</html>' };
  if (token === 'norole') return { status: 200, body: '{"x-engine-user-id":"1"}' };
  if (token === 'hang') return 'hang';
  return 'reset';
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', headers: req.headers, body });
      const token = (req.headers.authorization ?? 'Bearer anonymous').replace(/^Bearer /, '');
      const a = answer(token);
      if (a === 'reset') req.socket.destroy();
      else if (a !== 'hang') res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers }).end(a.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/auth`;
});
afterAll(() => new Promise<void>((r) => {
  server.close(() => r());
  server.closeAllConnections();
}));

const ARTICLES = '{ article(order_by: {id: asc}) { id } }';
const ids = (body: unknown) => (body as { data: { article: { id: number }[] } }).data.article.map((a) => a.id);
const as = (token: string) => ({ authorization: `Bearer ${token}` });
const SECRET = 'admin-s3cret';

describe('GET mode', () => {
  const e = useExampleEngine({ adminSecret: SECRET, auth: { get authHook() { return hookUrl; }, authHookTimeoutSec: 1 } });

  it("the hook's session drives the permissions; it receives the client's headers minus hop-by-hop ones", async () => {
    seen.length = 0;
    expect(ids(await q(e, ARTICLES, { ...as('user-2'), 'x-custom': 'c', 'x-engine-user-id': '1' }))).toEqual([1, 3]);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.method).toBe('GET');
    expect(seen[0]?.body).toBe('');
    expect(seen[0]?.headers).toMatchObject({ authorization: 'Bearer user-2', 'x-custom': 'c', 'x-engine-user-id': '1' });
    expect(seen[0]?.headers['content-length']).toBeUndefined();
    expect(seen[0]?.headers['content-type']).toBeUndefined();
    // Only x-engine-* keys of the answer are session variables, lists as JSON text: seen through a session argument.
    await e.sql(`CREATE FUNCTION session_of(s json) RETURNS SETOF author STABLE LANGUAGE sql AS
      $$ SELECT id, s::text, null::text, true, null::numeric, now() FROM author WHERE id = 1 $$`);
    await e.ok({ type: 'track_function', args: { function: 'session_of', configuration: { session_argument: 's' } } });
    const who = (await q(e, '{ session_of { name } }', as('user-2'))) as { data: { session_of: { name: string }[] } };
    expect(JSON.parse(who.data.session_of[0]?.name ?? '')).toEqual({ 'x-engine-role': 'user', 'x-engine-user-id': '2', 'x-engine-groups': '[1,2]' });
    expect(ids(await q(e, ARTICLES, as('anonymous')))).toEqual([1, 3]);
    expect(ids(await q(e, ARTICLES, as('user-1')))).toEqual([1, 2, 3]);
  });

  it('answers with max-age are cached per forwarded headers; answers without are not', async () => {
    const hook = e.auth.authHook as AuthHook;
    const before = hook.calls;
    for (let i = 0; i < 3; i++) expect(ids(await q(e, ARTICLES, as('user-2-cached')))).toEqual([1, 3]);
    expect(hook.calls - before).toBe(1);
    expect(ids(await q(e, ARTICLES, as('user-1-cached')))).toEqual([1, 2, 3]);
    expect(hook.calls - before).toBe(2);
    for (let i = 0; i < 2; i++) await q(e, ARTICLES, as('user-2'));
    expect(hook.calls - before).toBe(4);
  });

  it('refusals and failures are access-denied (/v1/query: 401; /v1/graphql: a GraphQL error), naming what the hook did; nothing changes', async () => {
    const cases: [string, string][] = [
      ['deny', 'the authentication hook refused the request (status 401)'],
      ['boom', 'the authentication hook answered with status 500'],
      ['text', 'the authentication hook answered 200 without a JSON object of session variables'],
      ['norole', 'the authentication hook answered 200 without "x-engine-role"'],
      ['hang', 'the authentication hook did not answer: request timed out after 1 seconds'],
      ['reset', 'the authentication hook did not answer: connection reset'],
    ];
    const before = await e.state();
    for (const [token, message] of cases) {
      const g = await gql(e, { query: ARTICLES }, as(token));
      expect([g.status, g.text]).toEqual([200, JSON.stringify({ errors: [{ message, extensions: { path: '$', code: 'access-denied' } }] })]);
      const v = await post(`${e.url}/v1/query`, { type: 'run_sql', args: { sql: 'DROP TABLE article' } }, as(token));
      expect([v.status, v.text]).toEqual([401, JSON.stringify({ path: '$', error: message, code: 'access-denied' })]);
    }
    expect(await e.state()).toEqual(before);
    expect(ids(await q(e, ARTICLES, as('user-2')))).toEqual([1, 3]);
  });

  it('the admin secret bypasses the hook; the metadata API stays admin only', async () => {
    const hook = e.auth.authHook as AuthHook;
    const before = hook.calls;
    expect(ids(await q(e, ARTICLES, { 'x-engine-admin-secret': SECRET }))).toEqual([1, 2, 3]);
    expect(hook.calls).toBe(before);
    const r = await post(`${e.url}/v1/query`, { type: 'export_metadata', args: {} }, as('user-2'));
    expect(r.text).toBe('{"path":"$.args","error":"restricted access : admin only","code":"access-denied"}');
  });
});

describe('POST mode', () => {
  const e = useExampleEngine({ adminSecret: SECRET, auth: { get authHook() { return hookUrl; }, authHookMode: 'POST' } });
  it('the hook receives {headers, request: {query, variables, operationName}}', async () => {
    seen.length = 0;
    const query = 'query Mine($n: Int) { article(order_by: {id: asc}, limit: $n) { id } }';
    const r = await gql(e, { query, variables: { n: 5 }, operationName: 'Mine' }, { ...as('user-2'), 'x-custom': 'c' });
    expect(ids(r.body)).toEqual([1, 3]);
    expect(seen[0]?.method).toBe('POST');
    const body = JSON.parse(seen[0]?.body ?? '') as { headers: Record<string, string>; request: unknown };
    expect(body.request).toEqual({ query, variables: { n: 5 }, operationName: 'Mine' });
    expect(body.headers).toMatchObject({ authorization: 'Bearer user-2', 'x-custom': 'c' });
    expect(body.headers['content-length']).toBeUndefined();
    const v = await post(`${e.url}/v1/query`, { type: 'export_metadata', args: {} }, as('deny'));
    expect(v.status).toBe(401);
    expect(JSON.parse(seen.at(-1)?.body ?? '')).toMatchObject({ request: null });
  });
});

describe('a hook that is down', () => {
  it('is a 401 naming the failure', async () => {
    const hook = new AuthHook({ url: 'http://127.0.0.1:1/auth', mode: 'GET', timeoutSec: 5 });
    await expect(hook.caller({ authorization: 'Bearer x' }, null)).rejects.toMatchObject({ status: 401, code: 'access-denied', message: 'the authentication hook did not answer: connection refused' });
  });
});
