import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GraphqlService } from '../../src/server/graphql/service.js';
import { asyncTargets } from '../../src/server/graphql/actions/index.js';
import { ActionWorker, type ActionWorkerOptions } from '../../src/server/workers/action-worker.js';
import { holdInstanceLock, releaseInstanceLock } from '../../src/server/workers/instance.js';
import { eventually, startWebhook, type Webhook } from '../helpers/webhook.js';
import { ADMIN, ANON, gql, gqlErr, q, USER1, USER2, useExampleEngine } from './graphql-fixture.js';

// Asynchronous actions (graphql-api.md §5.3, engine-api.md §5.2.4): the mutation writes action_log in its
// transaction and answers the id; the worker calls the handler and records completed/error; the query field shows
// the row to admin and to the same role and session variables only. Handlers are real HTTP servers on 127.0.0.1.

const env: Record<string, string | undefined> = {};
const e = useExampleEngine({ env });
let hook: Webhook;
let answer: (body: any) => { status: number; body: unknown }; // eslint-disable-line @typescript-eslint/no-explicit-any
const workers: ActionWorker[] = [];

beforeAll(async () => {
  hook = await startWebhook((req, res) => {
    const a = answer(req.body);
    res.writeHead(a.status, { 'content-type': 'application/json' });
    res.end(typeof a.body === 'string' ? a.body : JSON.stringify(a.body));
  });
});
afterAll(async () => hook.close());
beforeEach(async () => {
  hook.received.length = 0;
  answer = () => ({ status: 200, body: { url: 'https://x/y.csv', extra: 1 } });
  await setHandler();
});
afterEach(async () => {
  for (const w of workers.splice(0)) await w.stop();
});

async function setHandler(extra: Record<string, unknown> = {}): Promise<void> {
  await e.ok({ type: 'update_action', args: { name: 'export_articles', definition: {
    kind: 'asynchronous', handler: `${hook.url}/export`, output_type: 'ExportResult', arguments: [{ name: 'format', type: 'String!' }], ...extra,
  } } });
}

async function startWorker(opts: Partial<ActionWorkerOptions> = {}): Promise<ActionWorker> {
  const service = new GraphqlService(e.engine, env);
  const w = await ActionWorker.start(e.db, { targets: async () => asyncTargets(await service.schemaFor('admin')), env, ...opts });
  workers.push(w);
  return w;
}

interface LogRow { id: string; status: string; input_payload: unknown; request_headers: { name: string; value: string }[]; session_variables: unknown;
  response_payload: unknown; errors: unknown; locked_by: number | null }
const rows = (): Promise<LogRow[]> => e.db.query<LogRow & Record<string, unknown>>(
  'SELECT id::text AS id, status, input_payload, request_headers, session_variables, response_payload, errors, locked_by FROM engine_catalog.action_log ORDER BY created_at, id');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const RESULT = (id: string) => `{ export_articles(id: "${id}") { id output { url __typename } errors } }`;

async function call(query = 'mutation { export_articles(format: "csv") }', headers = USER2, variables?: unknown): Promise<string> {
  const r = await gql(e, variables === undefined ? { query } : { query, variables }, { ...headers, 'X-Custom': 'v', 'x-engine-admin-secret': 'never-stored' });
  const id = (r.body as { data?: { export_articles?: string } }).data?.export_articles;
  if (typeof id !== 'string') throw new Error(`no id: ${r.text}`);
  return id;
}

const finished = async (id: string): Promise<LogRow> => eventually(async () => (await rows()).find((x) => x.id === id && (x.status === 'completed' || x.status === 'error')), 10_000, `call ${id} finished`);

describe('§5.3 the mutation writes action_log and answers the id', () => {
  it('stores a created row with the input, the client headers (lower-cased, no admin secret) and the session variables', async () => {
    const id = await call();
    expect(id).toMatch(UUID);
    const [row] = await rows();
    expect(row).toMatchObject({ id, status: 'created', input_payload: { format: 'csv' }, session_variables: { 'x-engine-role': 'user', 'x-engine-user-id': '2' }, locked_by: null });
    const names = row!.request_headers.map((h) => h.name);
    expect(names).toContain('x-custom');
    expect(names).not.toContain('x-engine-admin-secret');
    expect(names.every((n) => n === n.toLowerCase())).toBe(true);
    expect(hook.received).toHaveLength(0);
  });

  it('binds variables: one compiled plan stores each request\'s own value', async () => {
    const query = 'mutation M($f: String!) { export_articles(format: $f) }';
    await call(query, USER2, { f: 'csv' });
    await call(query, USER2, { f: 'pdf' });
    expect((await rows()).map((r) => r.input_payload)).toEqual([{ format: 'csv' }, { format: 'pdf' }]);
  });

  it('runs several asynchronous action fields in one mutation, each a row', async () => {
    const r = await gql(e, { query: 'mutation { a: export_articles(format: "1") b: export_articles(format: "2") __typename }' }, USER2);
    expect(Object.keys(r.body.data)).toEqual(['a', 'b', '__typename']);
    expect(r.body.data.a).toMatch(UUID);
    const stored = (await rows()).map((x) => x.id === r.body.data.a ? `a:${JSON.stringify(x.input_payload)}` : `b:${JSON.stringify(x.input_payload)}`);
    expect(stored.sort()).toEqual(['a:{"format":"1"}', 'b:{"format":"2"}']);
  });

  it('shares a mutation with table mutations, in one transaction: rolled back with them (graphql-api.md §4.1, §5.3)', async () => {
    const before = await e.state();
    const failed = await gql(e, { query: 'mutation { export_articles(format: "csv") insert_article(objects: [{title: "Intro", author_id: 1}]) { affected_rows } }' }, ADMIN);
    expect(failed.body.errors[0].extensions).toMatchObject({ path: '$.selectionSet.insert_article', code: 'constraint-violation' });
    expect(await e.state()).toEqual(before);
    expect(await rows()).toEqual([]);
    const r = await gql(e, { query: 'mutation { insert_article(objects: [{title: "New", author_id: 1}]) { affected_rows } export_articles(format: "csv") }' }, ADMIN);
    expect(r.body.data.insert_article).toEqual({ affected_rows: 1 });
    expect((await rows()).map((x) => x.id)).toEqual([r.body.data.export_articles]);
  });

  it('is not in the schema of a role without the action permission', async () => {
    const r = await gql(e, { query: 'mutation { export_articles(format: "csv") }' }, ANON);
    expect(r.body.errors[0].extensions.code).toBe('validation-failed');
    expect(await rows()).toEqual([]);
  });
});

describe('§5.2.4 the worker calls the handler and records the outcome', () => {
  it('calls the handler with the §5.2.1 body and stores the answer; the query field shows it by the selection', async () => {
    await startWorker();
    const query = 'mutation { export_articles(format: "csv") }';
    const id = await call(query);
    const row = await finished(id);
    expect(row).toMatchObject({ status: 'completed', response_payload: { url: 'https://x/y.csv', extra: 1 }, errors: null, locked_by: null });
    expect(JSON.stringify(hook.received[0]!.body)).toBe(JSON.stringify({
      action: { name: 'export_articles' }, input: { format: 'csv' },
      session_variables: { 'x-engine-role': 'user', 'x-engine-user-id': '2' }, request_query: query,
    }));
    expect(await q(e, RESULT(id), USER2)).toEqual({ data: { export_articles: { id, output: { url: 'https://x/y.csv', __typename: 'ExportResult' }, errors: null } } });
  });

  it('shows the row only to admin and the same role and session variables (§5.3)', async () => {
    await startWorker();
    const id = await call();
    await finished(id);
    expect(await q(e, RESULT(id), USER1)).toEqual({ data: { export_articles: null } });
    expect(await q(e, RESULT(id), { 'x-engine-role': 'user', 'x-engine-user-id': '2', 'x-engine-extra': '1' })).toEqual({ data: { export_articles: null } });
    expect(await q(e, RESULT(id), ADMIN)).toMatchObject({ data: { export_articles: { id, errors: null } } });
    expect(await q(e, RESULT('00000000-0000-0000-0000-000000000000'), ADMIN)).toEqual({ data: { export_articles: null } });
  });

  it('answers null output before the call completed; created_at is a timestamptz', async () => {
    const id = await call();
    const r = await q(e, `{ export_articles(id: "${id}") { created_at output { url } errors } }`, USER2) as { data: { export_articles: { created_at: string; output: unknown } } };
    expect(r.data.export_articles.output).toBeNull();
    expect(r.data.export_articles.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00$/);
  });

  it('fails an id that is not a UUID as data-exception', async () => {
    const r = await gql(e, { query: '{ export_articles(id: "nope") { id } }' }, USER2);
    expect(r.body).toEqual(gqlErr('invalid input syntax for type uuid: "nope"', '$.selectionSet.export_articles', 'data-exception'));
  });

  it('records a 4xx with message and code as the errors object (graphql-api.md §5.3 example)', async () => {
    answer = () => ({ status: 400, body: { message: 'bad format', code: 'invalid-format' } });
    await startWorker();
    const id = await call();
    expect((await finished(id)).status).toBe('error');
    expect(await q(e, RESULT(id), USER2)).toEqual({ data: { export_articles: { id, output: null, errors: { path: '$', error: 'bad format', code: 'invalid-format' } } } });
  });

  it('records every other failure with its §5.2.2 message and code unexpected', async () => {
    await startWorker();
    const cases: [() => { status: number; body: unknown }, string][] = [
      [() => ({ status: 500, body: { message: 'boom' } }), 'internal error'],
      [() => ({ status: 400, body: { message: 'x', extensions: { code: 'mine', field: 'f' } } }), 'x'],
      [() => ({ status: 200, body: 'not json{' }), 'not a valid json response from webhook'],
      [() => ({ status: 200, body: [{ url: 'u' }] }), 'expecting object for action webhook response but got array'],
      [() => ({ status: 200, body: {} }), 'field "url" expected in webhook response, but not found'],
    ];
    for (const [a, message] of cases) {
      answer = a;
      const id = await call();
      const row = await finished(id);
      expect(row.errors).toEqual({ path: '$', error: message, code: message === 'x' ? 'mine' : 'unexpected' });
      expect(row.response_payload).toBeNull();
    }
  });

  it('records a handler that cannot be reached, and an unset environment variable, without calling anything', async () => {
    await startWorker();
    await setHandler({ handler: 'http://127.0.0.1:9/export' });
    expect((await finished(await call())).errors).toEqual({ path: '$', error: 'http exception when calling webhook', code: 'unexpected' });
    await setHandler({ handler: '{{ASYNC_BASE_URL}}/export' });
    expect((await finished(await call())).errors).toEqual({ path: '$', error: 'environment variable "ASYNC_BASE_URL" is not set', code: 'unexpected' });
    env['ASYNC_BASE_URL'] = hook.url;
    expect((await finished(await call())).status).toBe('completed');
    delete env['ASYNC_BASE_URL'];
  });

  it('sends arguments in declaration order, input objects in field order, numbers with their digits', async () => {
    await e.ok({ type: 'set_custom_types', args: {
      input_objects: [{ name: 'Opts', fields: [{ name: 'z', type: 'Int' }, { name: 'a', type: 'String' }] }],
      objects: [{ name: 'UserId', fields: [{ name: 'id', type: 'Int!' }] }, { name: 'ExportResult', fields: [{ name: 'url', type: 'String!' }] }],
    } });
    await setHandler({ arguments: [{ name: 'format', type: 'String!' }, { name: 'opts', type: 'Opts' }, { name: 'big', type: 'numeric' }] });
    await startWorker();
    await finished(await call('mutation { export_articles(big: 9007199254740993.50, opts: {a: "x", z: 1}, format: "csv") }'));
    const text = JSON.stringify(hook.received[0]!.body.input);
    expect(text.startsWith('{"format":"csv","opts":{"z":1,"a":"x"},"big":')).toBe(true);
    const raw = await e.db.query<{ t: string }>("SELECT input_payload->>'big' AS t FROM engine_catalog.action_log");
    expect(raw[0]!.t).toBe('9007199254740993.50');
  });

  it('forwards the stored client headers when forward_client_headers is set', async () => {
    await setHandler({ forward_client_headers: true });
    await startWorker();
    await finished(await call());
    expect(hook.received[0]!.headers['x-custom']).toBe('v');
    expect(hook.received[0]!.headers['x-engine-admin-secret']).toBeUndefined();
  });

  it('resolves relationships of the output type to tables under the caller\'s select permission', async () => {
    await setHandler({ output_type: 'UserId' });
    answer = () => ({ status: 200, body: { id: 2 } });
    await startWorker();
    const id = await call();
    await finished(id);
    expect(await q(e, `{ export_articles(id: "${id}") { output { id author { name articles { title } } } } }`, USER2)).toEqual({
      data: { export_articles: { output: { id: 2, author: { name: 'Bob', articles: [{ title: 'News' }] } } } },
    });
  });

  it('is woken at commit by the notification, not by the poll', async () => {
    await startWorker({ pollMs: 600_000 });
    const id = await call();
    expect((await finished(id)).status).toBe('completed');
  });

  it('claimOnStart false (engine serve, issue 18): a call waiting at start waits for the first poll or notification', async () => {
    const waiting = await call();
    const quiet = await startWorker({ pollMs: 600_000, claimOnStart: false });
    await quiet.stop();
    expect((await rows()).find((x) => x.id === waiting)).toMatchObject({ status: 'created', locked_by: null });
    expect(hook.received).toHaveLength(0);
    // The next commit's notification wakes it: its first claim takes the waiting call too.
    await startWorker({ pollMs: 600_000, claimOnStart: false });
    const next = await call();
    expect([(await finished(waiting)).status, (await finished(next)).status]).toEqual(['completed', 'completed']);
  });

  it('claims a call waiting at start at once by default', async () => {
    const waiting = await call();
    await startWorker({ pollMs: 600_000 });
    expect((await finished(waiting)).status).toBe('completed');
  });
});

describe('§5.2.4 several instances, crashed instances', () => {
  it('two workers call each handler exactly once (FOR UPDATE SKIP LOCKED)', async () => {
    await startWorker();
    await startWorker();
    const ids = [];
    for (let i = 0; i < 20; i++) ids.push(await call(`mutation { export_articles(format: "${i}") }`));
    for (const id of ids) await finished(id);
    expect(hook.received).toHaveLength(20);
    expect(new Set(hook.received.map((r) => r.body.input.format)).size).toBe(20);
  });

  it('takes again a row left processing by an instance that holds no lock; leaves alone one of a live instance', async () => {
    const session = await e.db.openSession();
    const live = await holdInstanceLock(session);
    try {
      const dead = await call('mutation { export_articles(format: "dead") }');
      const held = await call('mutation { export_articles(format: "held") }');
      await e.db.query("UPDATE engine_catalog.action_log SET status = 'processing', locked_by = $2 WHERE id = $1", [dead, 123456789]);
      await e.db.query("UPDATE engine_catalog.action_log SET status = 'processing', locked_by = $2 WHERE id = $1", [held, live]);
      const fresh = await call('mutation { export_articles(format: "fresh") }');
      await startWorker();
      await finished(dead);
      await finished(fresh);
      expect((await rows()).find((r) => r.id === held)).toMatchObject({ status: 'processing', locked_by: live });
      expect(hook.received.map((r) => r.body.input.format).sort()).toEqual(['dead', 'fresh']);
    } finally {
      await releaseInstanceLock(session, live);
      await session.close();
    }
  });

  it('a stopping worker gives back what it could not finish: created again', async () => {
    const original = hook.handler;
    hook.handler = () => {}; // never answers
    try {
      const w = await startWorker({ graceMs: 50 });
      const id = await call();
      await eventually(() => hook.received.length === 1);
      await w.stop();
      expect((await rows()).find((r) => r.id === id)).toMatchObject({ status: 'created', locked_by: null });
    } finally {
      hook.handler = original;
    }
  });
});
