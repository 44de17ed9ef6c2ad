import type { ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ACTION_MAX_RESPONSE_BYTES } from '../../src/server/graphql/actions/index.js';
import { startWebhook, type Webhook } from '../helpers/webhook.js';
import { gql, gqlErr, USER2, useExampleEngine } from './graphql-fixture.js';

// Every row of engine-api.md §5.2.2 and graphql-api.md §5.2 with a real handler on 127.0.0.1 answering that way:
// the exact message, code and path for a non-admin role, `internal` only for admin, and neither the handler's
// secrets (from the environment) nor the admin secret in anything a non-admin role is shown.

const ADMIN_SECRET = 'adm1n-secret-value';
const TOKEN = 's3cr3t-token-value';
const KEY = 'k3y-in-the-url';
const env: Record<string, string | undefined> = {};
const e = useExampleEngine({ adminSecret: ADMIN_SECRET, env });
const ADMIN = { 'x-engine-admin-secret': ADMIN_SECRET };
const USER = { ...USER2, ...ADMIN };

let hook: Webhook;
let reply: (res: ServerResponse) => void;

beforeAll(async () => {
  hook = await startWebhook((_, res) => reply(res));
});
afterAll(async () => hook.close());

const json = (status: number, body: unknown) => (res: ServerResponse) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

async function setHandler(extra: Record<string, unknown> = {}): Promise<void> {
  const r = await e.query({ type: 'update_action', args: { name: 'create_user', definition: {
    handler: '{{ACTION_BASE_URL}}/create_user?key={{ACTION_KEY}}', output_type: 'UserId', timeout: 1,
    arguments: [{ name: 'email', type: 'String!' }], headers: [{ name: 'X-Token', value_from_env: 'ACTION_TOKEN' }], ...extra,
  } } });
  expect(r.status).toBe(200);
}

beforeEach(async () => {
  hook.received.length = 0;
  reply = json(200, { id: 1 });
  Object.assign(env, { ACTION_BASE_URL: hook.url, ACTION_KEY: KEY, ACTION_TOKEN: TOKEN });
  await setHandler();
});

const QUERY = 'mutation { create_user(email: "a@b.c") { id } }';

/** Calls as user 2 and as admin; checks the user's exact body (no secret in it) and returns the admin's error. */
async function fails(message: string, code = 'unexpected'): Promise<{ message: string; extensions: { path: string; code: string; internal?: any } }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const before = await e.state();
  const user = await gql(e, { query: QUERY }, USER);
  expect(user.status).toBe(200);
  expect(user.text).toBe(JSON.stringify(gqlErr(message, '$', code)));
  for (const secret of [TOKEN, KEY, ADMIN_SECRET]) expect(user.text).not.toContain(secret);
  const admin = await gql(e, { query: QUERY }, ADMIN);
  expect(admin.status).toBe(200);
  expect(admin.body.errors).toHaveLength(1);
  expect(admin.body.data).toBeUndefined();
  const err = admin.body.errors[0];
  expect([err.message, err.extensions.path, err.extensions.code]).toEqual([message, '$', code]);
  expect(await e.state()).toEqual(before);
  return err;
}

const requestOf = (internal: any) => internal.request; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('§5.2.2 2xx answers of the wrong shape', () => {
  it('a body that is not JSON', async () => {
    reply = (res) => res.end('<html>oops</html>');
    const err = await fails('not a valid json response from webhook');
    expect(err.extensions.internal).toEqual({ webhook_response: '<html>oops</html>' });
  });

  it('an answer nested 10,000 levels deep (issue 28): the action error, not a 500; 512 levels are answered', async () => {
    const deep = `{"msg":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    reply = (res) => res.end(deep);
    const err = await fails('not a valid json response from webhook');
    expect(err.extensions.internal).toEqual({ error: 'the response is nested more than 512 levels deep', webhook_response: deep });
    reply = (res) => res.end(`{"id":1,"msg":${'['.repeat(511)}${']'.repeat(511)}}`);
    expect((await gql(e, { query: QUERY }, USER)).body).toEqual({ data: { create_user: { id: 1 } } });
  });

  it('an array for an object output, an object for a list output', async () => {
    reply = json(200, [{ id: 1 }]);
    expect((await fails('expecting object for action webhook response but got array')).extensions.internal).toEqual({ webhook_response: [{ id: 1 }] });
    await setHandler({ output_type: '[UserId]' });
    reply = json(200, { id: 1 });
    expect((await fails('expecting array for action webhook response but got object')).extensions.internal).toEqual({ webhook_response: { id: 1 } });
  });

  it('any other JSON: string, number, boolean, null for a non-null output, an array with a non-object element', async () => {
    for (const body of ['str', 5, true]) {
      reply = json(200, body);
      await fails('expecting object or array of objects for action webhook response');
    }
    await setHandler({ output_type: 'UserId!' });
    reply = json(200, null);
    await fails('expecting object or array of objects for action webhook response');
    await setHandler({ output_type: '[UserId!]' });
    for (const body of [[{ id: 1 }, 2], [null]]) {
      reply = json(200, body);
      await fails('expecting object or array of objects for action webhook response');
    }
  });

  it('a non-null field missing or null, also inside a nested object type', async () => {
    reply = json(200, {});
    expect((await fails('field "id" expected in webhook response, but not found')).extensions.internal).toEqual({ webhook_response: {} });
    reply = json(200, { id: null });
    await fails('expecting not null value for field "id"');
    await e.ok({ type: 'set_custom_types', args: { objects: [
      { name: 'Address', fields: [{ name: 'city', type: 'String!' }] },
      { name: 'UserId', fields: [{ name: 'id', type: 'Int!' }, { name: 'home', type: 'Address' }] },
      { name: 'ExportResult', fields: [{ name: 'url', type: 'String!' }] },
    ] } });
    reply = json(200, { id: 1, home: {} });
    await fails('field "city" expected in webhook response, but not found');
    reply = json(200, { id: 1, home: [] });
    await fails('expecting object for action webhook response but got array');
  });
});

describe('scalar values coerced to the output type as GraphQL result coercion does (issue 28)', () => {
  beforeEach(async () => {
    await e.ok({ type: 'set_custom_types', args: {
      enums: [{ name: 'Tag', values: [{ value: 'A' }, { value: 'B' }] }],
      objects: [
        { name: 'UserId', fields: [
          { name: 'id', type: 'Int!' }, { name: 'ok', type: 'Boolean' }, { name: 'n', type: 'Int' }, { name: 'f', type: 'Float' },
          { name: 's', type: 'String' }, { name: 'ids', type: '[Int!]' }, { name: 'tag', type: 'Tag' }, { name: 'when', type: 'timestamptz' },
        ] },
        { name: 'ExportResult', fields: [{ name: 'url', type: 'String!' }] },
      ],
    } });
  });

  it('a value that does not fit is an action error naming the field; admin sees the answer as received', async () => {
    reply = json(200, { ok: 'yes', n: '12abc', id: 1 });
    const err = await fails('got scalar String for field "ok" of the action webhook response, expecting Boolean');
    expect(err.extensions.internal).toEqual({ webhook_response: { ok: 'yes', n: '12abc', id: 1 } });
    const cases: [unknown, string][] = [
      [{ id: 1, n: '12abc' }, 'got scalar String for field "n" of the action webhook response, expecting Int'],
      [{ id: 1, n: 2.5 }, 'got scalar Number for field "n" of the action webhook response, expecting Int'],
      [{ id: 1, n: 2 ** 31 }, 'got scalar Number for field "n" of the action webhook response, expecting Int'],
      [{ id: 'x' }, 'got scalar String for field "id" of the action webhook response, expecting Int'],
      [{ id: 1, s: { a: 1 } }, 'got object for field "s" of the action webhook response, expecting String'],
      [{ id: 1, f: [1] }, 'got array for field "f" of the action webhook response, expecting Float'],
      [{ id: 1, ids: 3 }, 'got scalar Number for field "ids" of the action webhook response, expecting [Int!]'],
      [{ id: 1, ids: [1, null] }, 'expecting not null value for field "ids"'],
      [{ id: 1, tag: 'C' }, 'got scalar String for field "tag" of the action webhook response, expecting Tag'],
    ];
    for (const [body, message] of cases) {
      reply = json(200, body);
      await fails(message);
    }
  });

  it('values that coerce are answered coerced; PostgreSQL-named scalars pass as received', async () => {
    reply = json(200, { id: '7', ok: 1, n: '12', f: '1.5', s: 5, ids: ['1', 2, true], tag: 'A', when: 'not checked' });
    const r = await gql(e, { query: 'mutation { create_user(email: "a@b.c") { id ok n f s ids tag when } }' }, USER);
    expect(r.body).toEqual({ data: { create_user: { id: 7, ok: true, n: 12, f: 1.5, s: '5', ids: [1, 2, 1], tag: 'A', when: 'not checked' } } });
  });
});

describe('§5.2.2 4xx and other statuses', () => {
  it('4xx with a message and a code, with a message only, with extensions (verbatim)', async () => {
    reply = json(400, { message: 'bad email', code: 'invalid-email' });
    expect((await fails('bad email', 'invalid-email')).extensions.internal).toBeUndefined();
    reply = json(422, { message: 'bad email', code: 7 });
    await fails('bad email');
    reply = json(400, { message: 'bad email', extensions: { field: 'email' } });
    for (const h of [USER, ADMIN]) {
      const r = await gql(e, { query: QUERY }, h);
      expect(r.text).toBe(JSON.stringify({ errors: [{ message: 'bad email', extensions: { field: 'email' } }] }));
    }
  });

  it('4xx without a string message, or not JSON: internal error', async () => {
    for (const body of [{ error: 'x' }, { message: 5 }, 'text']) {
      reply = json(404, body);
      const err = await fails('internal error');
      expect(err.extensions.internal.response.status).toBe(404);
    }
  });

  it('5xx: internal error; admin sees the request (URL, body, headers) and the response', async () => {
    reply = json(500, { message: 'boom' });
    const err = await fails('internal error');
    const i = err.extensions.internal;
    expect(Object.keys(i)).toEqual(['error', 'request', 'response']);
    expect(i.error).toBe('expecting 2xx or 4xx status code, but found 500');
    expect(i.request.url).toBe(`${hook.url}/create_user?key=${KEY}`);
    expect(i.request.body).toEqual({ action: { name: 'create_user' }, input: { email: 'a@b.c' }, session_variables: { 'x-engine-role': 'admin' }, request_query: QUERY });
    // Issue 28: a header read from the environment is shown as its configuration, never as the secret.
    expect(i.request.headers).toContainEqual({ name: 'X-Token', value_from_env: 'ACTION_TOKEN' });
    expect(JSON.stringify(err)).not.toContain(TOKEN);
    expect([i.response.status, i.response.body]).toEqual([500, { message: 'boom' }]);
    expect(i.response.headers).toContainEqual({ name: 'content-type', value: 'application/json' });
  });

  it('a redirect is not followed: internal error', async () => {
    reply = (res) => {
      res.writeHead(307, { location: `${hook.url}/elsewhere` });
      res.end();
    };
    expect((await fails('internal error')).extensions.internal.error).toBe('expecting 2xx or 4xx status code, but found 307');
    expect(hook.received).toHaveLength(2);
  });
});

describe('§5.2.2 network failures and the timeout', () => {
  it('no answer within the action\'s timeout, or a body never finished: http exception, the request ends at the timeout', async () => {
    reply = () => {};
    let err = await fails('http exception when calling webhook');
    expect(err.extensions.internal.error).toBe('request timed out after 1 seconds');
    expect(requestOf(err.extensions.internal).url).toBe(`${hook.url}/create_user?key=${KEY}`);
    reply = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":');
    };
    err = await fails('http exception when calling webhook');
    expect(err.extensions.internal.error).toBe('request timed out after 1 seconds');
  });

  it('connection refused', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
    env['ACTION_BASE_URL'] = `http://127.0.0.1:${port}`;
    const err = await fails('http exception when calling webhook');
    expect(err.extensions.internal.error).toBe('connection refused');
  });

  it(`an answer over the ${ACTION_MAX_RESPONSE_BYTES}-byte limit (a 50 MB body) fails without reading it all`, async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    reply = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":1,"pad":"');
      let n = 0;
      const more = (): void => {
        while (n < 50) {
          n++;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end('"}');
      };
      res.on('error', () => {});
      more();
    };
    const err = await fails('http exception when calling webhook');
    expect(err.extensions.internal.error).toBe(`the response body exceeds ${ACTION_MAX_RESPONSE_BYTES} bytes`);
  });
});

describe('§5.1 environment references resolved at call time', () => {
  it('an unset variable in the URL or a header stops the call before any network activity', async () => {
    delete env['ACTION_BASE_URL'];
    await fails('environment variable "ACTION_BASE_URL" is not set');
    env['ACTION_BASE_URL'] = hook.url;
    delete env['ACTION_TOKEN'];
    await fails('environment variable "ACTION_TOKEN" is not set');
    expect(hook.received).toHaveLength(0);
  });

  it('a resolved URL that is not http(s)', async () => {
    env['ACTION_BASE_URL'] = 'ftp://127.0.0.1';
    await fails('the resolved URL is not an http or https URL');
    expect(hook.received).toHaveLength(0);
  });

  it('the engine keeps answering after every failure', async () => {
    reply = json(200, { id: 3 });
    expect((await gql(e, { query: QUERY }, USER)).body).toEqual({ data: { create_user: { id: 3 } } });
  });
});
