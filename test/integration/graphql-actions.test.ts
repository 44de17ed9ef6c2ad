import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';
import { startWebhook, type Webhook } from '../helpers/webhook.js';
import { ADMIN, as, gql, gqlErr, USER2, useExampleEngine } from './graphql-fixture.js';

// Synchronous actions (graphql-api.md §4.1, §5.1; engine-api.md §5.1, §5.2.1, §5.2.3): the request the handler
// receives, the output shaped by the selection, the combination rule, permissions at call time, query actions.
// Handlers are real HTTP servers on 127.0.0.1.

const env: Record<string, string | undefined> = {};
const e = useExampleEngine({ env });
let hook: Webhook;
let answer: (body: unknown) => { status: number; body: unknown; headers?: Record<string, string | string[]> };

beforeAll(async () => {
  hook = await startWebhook((req, res) => {
    const a = answer(req.body);
    res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
    res.end(JSON.stringify(a.body));
  });
});
afterAll(async () => hook.close());
beforeEach(async () => {
  hook.received.length = 0;
  answer = () => ({ status: 200, body: { id: 2, extra: true } });
  for (const k of Object.keys(env)) delete env[k];
  await setHandler();
});

/** Points create_user at the test's handler, with extra definition keys. */
async function setHandler(extra: Record<string, unknown> = {}, name = 'create_user'): Promise<void> {
  await e.ok({ type: 'update_action', args: { name, definition: {
    handler: `${hook.url}/create_user`, output_type: 'UserId', arguments: [{ name: 'email', type: 'String!' }, { name: 'name', type: 'String' }], ...extra,
  } } });
}

const post = (query: string, headers = USER2, variables?: unknown) => gql(e, variables === undefined ? { query } : { query, variables }, headers);

describe('§5.1 the handler request and the answer', () => {
  it('answers the example of graphql-api.md §5.1 (without the relationship): request body, keys in order', async () => {
    const query = 'mutation { create_user(email: "a@b.c") { id } }';
    const r = await post(query);
    expect(r.body).toEqual({ data: { create_user: { id: 2 } } });
    expect(hook.received).toHaveLength(1);
    const got = hook.received[0]!;
    expect(JSON.stringify(got.body)).toBe(JSON.stringify({
      action: { name: 'create_user' }, input: { email: 'a@b.c' },
      session_variables: { 'x-engine-role': 'user', 'x-engine-user-id': '2' }, request_query: query,
    }));
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toBe(`engine/${VERSION}`);
  });

  it('sends arguments in declaration order after variable substitution; explicit null sent, absent omitted', async () => {
    await post('mutation M($n: String, $e: String!) { create_user(name: $n, email: $e) { id } }', USER2, { n: null, e: 'x@y' });
    await post('mutation M($n: String, $e: String!) { create_user(name: $n, email: $e) { id } }', USER2, { e: 'x@y' });
    expect(hook.received.map((x) => JSON.stringify(x.body.input))).toEqual(['{"email":"x@y","name":null}', '{"email":"x@y"}']);
  });

  it('passes enums by name, input objects in their type\'s field order, a single value to a list argument as a list', async () => {
    await e.ok({ type: 'set_custom_types', args: {
      enums: [{ name: 'Mood', values: [{ value: 'HAPPY' }, { value: 'SAD' }] }],
      input_objects: [{ name: 'Profile', fields: [{ name: 'age', type: 'Int' }, { name: 'mood', type: 'Mood' }, { name: 'tags', type: '[String!]' }] }],
      objects: [{ name: 'UserId', fields: [{ name: 'id', type: 'Int!' }] }, { name: 'ExportResult', fields: [{ name: 'url', type: 'String!' }] }],
    } });
    await setHandler({ arguments: [{ name: 'email', type: 'String!' }, { name: 'profile', type: 'Profile' }, { name: 'n', type: 'numeric' }] });
    const r = await post('mutation { create_user(n: 1.50, profile: {tags: "a", mood: HAPPY, age: 3}, email: "e") { id } }', ADMIN);
    expect(r.body).toEqual({ data: { create_user: { id: 2 } } });
    expect(JSON.stringify(hook.received[0]!.body.input)).toBe('{"email":"e","profile":{"age":3,"mood":"HAPPY","tags":["a"]},"n":1.5}');
  });

  it('shapes the answer by the selection: aliases, __typename, fragments, absent nullable fields null, extra fields dropped', async () => {
    await e.ok({ type: 'set_custom_types', args: { objects: [
      { name: 'Address', fields: [{ name: 'city', type: 'String!' }, { name: 'zip', type: 'String' }] },
      { name: 'UserId', fields: [{ name: 'id', type: 'Int!' }, { name: 'note', type: 'String' }, { name: 'home', type: 'Address' }, { name: 'past', type: '[Address!]' }] },
      { name: 'ExportResult', fields: [{ name: 'url', type: 'String!' }] },
    ] } });
    await setHandler();
    answer = () => ({ status: 200, body: { past: [{ city: 'A', zip: '1', x: 1 }], id: 7, home: { city: 'B' }, junk: [1] } });
    const r = await post('mutation { u: create_user(email: "e") { __typename ...F home { city zip __typename } past { city } note } } fragment F on UserId { i: id }');
    expect(r.text).toBe(JSON.stringify({ data: { u: { __typename: 'UserId', i: 7, home: { city: 'B', zip: null, __typename: 'Address' }, past: [{ city: 'A' }], note: null } } }));
  });

  it('answers null for a nullable output when the handler answers null, and lists for list outputs', async () => {
    answer = () => ({ status: 200, body: null });
    expect((await post('mutation { create_user(email: "e") { id } }')).body).toEqual({ data: { create_user: null } });
    await setHandler({ output_type: '[UserId!]!' });
    answer = () => ({ status: 200, body: [{ id: 1 }, { id: 2 }] });
    expect((await post('mutation { create_user(email: "e") { id } }')).body).toEqual({ data: { create_user: [{ id: 1 }, { id: 2 }] } });
    answer = () => ({ status: 200, body: [] });
    expect((await post('mutation { create_user(email: "e") { id } }')).body).toEqual({ data: { create_user: [] } });
  });

  it('runs several synchronous actions and __typename in document order, outside any transaction', async () => {
    let n = 0;
    answer = () => ({ status: 200, body: { id: ++n } });
    const r = await post('mutation { a: create_user(email: "1") { id } __typename b: create_user(email: "2") { id } }');
    expect(r.text).toBe(JSON.stringify({ data: { a: { id: 1 }, __typename: 'mutation_root', b: { id: 2 } } }));
    expect(hook.received.map((x) => x.body.input.email)).toEqual(['1', '2']);
  });

  it('stops at the first failing action: later handlers are not called', async () => {
    answer = (b) => ((b as { input: { email: string } }).input.email === '1' ? { status: 400, body: { message: 'no' } } : { status: 200, body: { id: 1 } });
    const r = await post('mutation { a: create_user(email: "1") { id } b: create_user(email: "2") { id } }');
    expect(r.body).toEqual(gqlErr('no', '$', 'unexpected'));
    expect(hook.received).toHaveLength(1);
  });

  it('passes the handler\'s Set-Cookie headers on to the client', async () => {
    answer = () => ({ status: 200, body: { id: 1 }, headers: { 'set-cookie': ['a=1; Path=/', 'b=2'] } });
    const r = await post('mutation { create_user(email: "e") { id } }');
    expect(r.body).toEqual({ data: { create_user: { id: 1 } } });
    expect(r.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2']);
  });
});

describe('§5.1 headers: configured, from the environment, forwarded client headers', () => {
  it('sends configured headers in order, value_from_env read at call time, a configured User-Agent replaces the default', async () => {
    await setHandler({ headers: [{ name: 'X-Static', value: 's' }, { name: 'X-Secret', value_from_env: 'ACTION_SECRET' }, { name: 'User-Agent', value: 'mine' }] });
    env['ACTION_SECRET'] = 'first';
    await post('mutation { create_user(email: "e") { id } }');
    env['ACTION_SECRET'] = 'second';
    await post('mutation { create_user(email: "e") { id } }');
    expect(hook.received.map((x) => [x.headers['x-static'], x.headers['x-secret'], x.headers['user-agent']])).toEqual([['s', 'first', 'mine'], ['s', 'second', 'mine']]);
  });

  it('resolves {{ENV}} templates in the handler URL at call time', async () => {
    await setHandler({ handler: '{{ACTION_BASE}}/create_user' });
    env['ACTION_BASE'] = hook.url;
    expect((await post('mutation { create_user(email: "e") { id } }')).body).toEqual({ data: { create_user: { id: 2 } } });
    expect(hook.received).toHaveLength(1);
  });

  it('forwards client headers only with forward_client_headers, never the admin secret or hop-by-hop headers; configured ones win', async () => {
    const client = { ...USER2, authorization: 'Bearer t', cookie: 'c=1', 'x-custom': 'v', 'x-engine-admin-secret': 'nope', referer: 'http://r', 'x-static': 'client' };
    await post('mutation { create_user(email: "e") { id } }', client);
    expect(hook.received[0]!.headers['authorization']).toBeUndefined();
    await setHandler({ forward_client_headers: true, headers: [{ name: 'X-Static', value: 'configured' }] });
    await post('mutation { create_user(email: "e") { id } }', client);
    const h = hook.received[1]!.headers;
    expect([h['authorization'], h['cookie'], h['x-custom'], h['x-engine-role'], h['x-static']]).toEqual(['Bearer t', 'c=1', 'v', 'user', 'configured']);
    expect([h['x-engine-admin-secret'], h['referer'], h['user-agent'], h['content-type']]).toEqual([undefined, undefined, `engine/${VERSION}`, 'application/json']);
  });
});

describe('§4.1 a synchronous action is alone in its mutation', () => {
  const rule = gqlErr('synchronous actions cannot be combined with other root fields in one mutation', '$', 'validation-failed');

  it('refuses table mutations and asynchronous actions beside it, before calling any handler', async () => {
    const before = await e.state();
    for (const q of [
      'mutation { create_user(email: "e") { id } delete_article(where: {}) { affected_rows } }',
      'mutation { export_articles(format: "csv") create_user(email: "e") { id } }',
      'mutation { ... on mutation_root { create_user(email: "e") { id } } ...F } fragment F on mutation_root { delete_article(where: {}) { affected_rows } }',
      'mutation { create_user(email: "e") { id } delete_article(where: {}) @skip(if: true) { affected_rows } }',
    ]) {
      const r = await post(q, ADMIN);
      expect(r.text).toBe(JSON.stringify(rule));
    }
    expect(hook.received).toHaveLength(0);
    expect(await e.state()).toEqual(before);
  });

  it('reports document validation errors first', async () => {
    const r = await post('mutation { create_user { id } delete_article(where: {}) { affected_rows } }', ADMIN);
    expect(r.body).toEqual(gqlErr('missing required field "email"', '$.selectionSet.create_user.args', 'validation-failed'));
  });
});

describe('§5.2.3 permissions at call time', () => {
  it('admin may call every action; a role only with a permission, checked against the current metadata', async () => {
    expect((await post('mutation { create_user(email: "e") { id } }', ADMIN)).body).toEqual({ data: { create_user: { id: 2 } } });
    const notFound = gqlErr('field "create_user" not found in type: \'mutation_root\'', '$.selectionSet.create_user', 'validation-failed');
    expect((await post('mutation { create_user(email: "e") { id } }', as('editor'))).body).toEqual(gqlErr('no mutations exist', '$', 'validation-failed'));
    await e.ok({ type: 'drop_action_permission', args: { action: 'create_user', role: 'user' } });
    expect((await post('mutation { create_user(email: "e") { id } export_articles(format: "x") }')).body).toEqual(notFound);
    expect(hook.received).toHaveLength(1);
    await e.ok({ type: 'create_action_permission', args: { action: 'create_user', role: 'user' } });
    expect((await post('mutation { create_user(email: "e") { id } }')).body).toEqual({ data: { create_user: { id: 2 } } });
  });
});

describe('query actions', () => {
  it('are fields of the query root, called like mutation actions, and combine with other query fields', async () => {
    await e.ok({ type: 'create_action', args: { name: 'whoami', definition: { handler: `${hook.url}/whoami`, output_type: 'UserId', type: 'query' } } });
    await e.ok({ type: 'create_action_permission', args: { action: 'whoami', role: 'user' } });
    answer = () => ({ status: 200, body: { id: 5 } });
    const r = await post('{ author_by_pk(id: 1) { name } whoami { id } }');
    expect(r.body).toEqual({ data: { author_by_pk: { name: 'Ann' }, whoami: { id: 5 } } });
    expect(hook.received[0]!.body).toEqual({ action: { name: 'whoami' }, input: {}, session_variables: { 'x-engine-role': 'user', 'x-engine-user-id': '2' }, request_query: '{ author_by_pk(id: 1) { name } whoami { id } }' });
    expect((await post('mutation { whoami { id } }', ADMIN)).body).toEqual(gqlErr('field "whoami" not found in type: \'mutation_root\'', '$.selectionSet.whoami', 'validation-failed'));
  });
});

describe('§5.1 step 4 relationships of the output type to tables', () => {
  it('answers the example of graphql-api.md §5.1: the handler\'s object joined to the remote table', async () => {
    const query = 'mutation { create_user(email: "a@b.c") { id author { name } } }';
    const r = await post(query);
    expect(r.text).toBe(JSON.stringify({ data: { create_user: { id: 2, author: { name: 'Bob' } } } }));
    expect(hook.received[0]!.body.request_query).toBe(query);
  });

  it('object and array relationships, list outputs, a null or absent field value, the remote select permission', async () => {
    await e.ok({ type: 'set_custom_types', args: { objects: [
      { name: 'UserId', fields: [{ name: 'id', type: 'Int' }], relationships: [
        { name: 'author', type: 'object', remote_table: 'author', field_mapping: { id: 'id' } },
        { name: 'articles', type: 'array', remote_table: 'article', field_mapping: { id: 'author_id' } },
      ] },
      { name: 'ExportResult', fields: [{ name: 'url', type: 'String!' }] },
    ] } });
    await setHandler({ output_type: '[UserId]' });
    answer = () => ({ status: 200, body: [{ id: 1 }, null, { id: null }, {}, { id: 2 }] });
    const query = 'mutation { create_user(email: "e") { articles(order_by: {id: asc}) { title } id a: author { name __typename } } }';
    // User 2 sees published articles and their own: Intro (author 1) and News (author 2), not Draft.
    const user = await post(query);
    expect(user.text).toBe(JSON.stringify({ data: { create_user: [
      { articles: [{ title: 'Intro' }], id: 1, a: { name: 'Ann', __typename: 'author' } }, null,
      { articles: [], id: null, a: null }, { articles: [], id: null, a: null }, { articles: [{ title: 'News' }], id: 2, a: { name: 'Bob', __typename: 'author' } },
    ] } }));
    const admin = await post(query, ADMIN);
    expect((admin.body as any).data.create_user[0].articles).toEqual([{ title: 'Intro' }, { title: 'Draft' }]); // eslint-disable-line @typescript-eslint/no-explicit-any
  });

  it('a session variable the remote permission needs is checked before the handler is called', async () => {
    const r = await post('mutation { create_user(email: "e") { id author { articles { title } } } }', as('user'));
    expect(r.body).toEqual(gqlErr('missing session variable: "x-engine-user-id"', '$', 'not-found'));
    expect(hook.received).toHaveLength(0);
  });

  it('a value that does not cast to the column type fails as a data exception', async () => {
    // An Int field never reaches the cast with "abc": the answer is coerced to the output type first (issue 28).
    answer = () => ({ status: 200, body: { id: 'abc' } });
    const coerced = await post('mutation { create_user(email: "e") { id author { name } } }');
    expect(coerced.body).toEqual(gqlErr('got scalar String for field "id" of the action webhook response, expecting Int', '$', 'unexpected'));
    await e.ok({ type: 'set_custom_types', args: { objects: [
      { name: 'UserId', fields: [{ name: 'id', type: 'String!' }], relationships: [{ name: 'author', type: 'object', remote_table: 'author', field_mapping: { id: 'id' } }] },
      { name: 'ExportResult', fields: [{ name: 'url', type: 'String!' }] },
    ] } });
    const r = await post('mutation { create_user(email: "e") { id author { name } } }');
    expect(r.body).toEqual(gqlErr('invalid input syntax for type integer: "abc"', '$.selectionSet.create_user', 'data-exception'));
  });

  it('relationships inside nested object types are resolved in one statement, under the remote select permission', async () => {
    await e.ok({ type: 'set_custom_types', args: { objects: [
      { name: 'Inner', fields: [{ name: 'id', type: 'Int!' }], relationships: [{ name: 'author', type: 'object', remote_table: 'author', field_mapping: { id: 'id' } }] },
      { name: 'UserId', fields: [{ name: 'id', type: 'Int!' }, { name: 'inner', type: 'Inner' }, { name: 'list', type: '[Inner!]' }] },
      { name: 'ExportResult', fields: [{ name: 'url', type: 'String!' }] },
    ] } });
    await setHandler();
    answer = () => ({ status: 200, body: { id: 1, inner: { id: 2 }, list: [{ id: 3 }, { id: 1 }] } });
    const r = await post('mutation { create_user(email: "a@b.c") { id inner { id author { name } } list { author { name articles { title } } } } }', USER2);
    expect(r.body).toEqual({ data: { create_user: { id: 1, inner: { id: 2, author: { name: 'Bob' } }, list: [{ author: { name: 'Cid', articles: [] } }, { author: { name: 'Ann', articles: [{ title: 'Intro' }] } }] } } });
    const missing = await post('mutation { create_user(email: "a@b.c") { inner { author { articles { id } } } } }', as('user'));
    expect(missing.body).toEqual(gqlErr('missing session variable: "x-engine-user-id"', '$', 'not-found'));
    expect(hook.received).toHaveLength(1);
  });
});
