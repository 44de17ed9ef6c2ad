import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { post, useTestEngine } from '../helpers/engine.js';
import { eventRows, invocations, startProcessor, useProcessors } from '../helpers/events.js';
import { eventually, startWebhook, type Webhook } from '../helpers/webhook.js';
import { VERSION } from '../../src/version.js';

// Delivery of events to webhooks (engine-api.md §5.3): the payload, headers, env references read at delivery,
// invocation logs, retries, Retry-After and the error state (§5.3.2), with real webhook servers on 127.0.0.1.

const e = useTestEngine({ setup: async () => {
  await e.sql('create table article (id int primary key, title text)');
  await e.ok({ type: 'track_table', args: 'article' });
} });
useProcessors();

let hook: Webhook;
beforeEach(async () => {
  hook = await startWebhook();
});
afterEach(async () => hook.close());

const create = (args: Record<string, unknown>) =>
  e.ok({ type: 'create_event_trigger', args: { name: 'article_events', table: 'article', webhook: hook.url, insert: { columns: '*' }, update: { columns: '*' }, ...args } });
const delivered = (n = 1) => eventually(async () => {
  const rows = await eventRows(e);
  return rows.length >= n && rows.every((r) => r.delivered || r.error) ? rows : undefined;
}, 10_000, 'events delivered');

describe('payload and headers', () => {
  it('POSTs the §5.3.1 body with keys in order, the configured headers, and records one invocation log', async () => {
    const env: Record<string, string | undefined> = { SECRET_TOKEN: 'tok-1' };
    await create({ headers: [{ name: 'X-Static', value: 'v' }, { name: 'Authorization', value_from_env: 'SECRET_TOKEN' }], retry_conf: { num_retries: 3 } });
    await startProcessor(e, { env });
    await e.sql("insert into article values (1, 'a')");
    await e.sql("update article set title = 'b' where id = 1");
    const rows = await delivered(2);
    expect(hook.received).toHaveLength(2);
    const [ins, upd] = hook.received.map((r) => r.body);
    expect(Object.keys(ins)).toEqual(['id', 'created_at', 'trigger', 'table', 'event', 'delivery_info']);
    expect(Object.keys(ins.event)).toEqual(['op', 'data', 'session_variables']);
    expect(ins).toEqual({
      id: rows[0]?.id, created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
      trigger: { name: 'article_events' }, table: { schema: 'public', name: 'article' },
      event: { op: 'INSERT', data: { old: null, new: { id: 1, title: 'a' } }, session_variables: { 'x-engine-role': 'admin' } },
      delivery_info: { max_retries: 3, current_retry: 0 },
    });
    expect(upd.event).toEqual({ op: 'UPDATE', data: { old: { id: 1, title: 'a' }, new: { id: 1, title: 'b' } }, session_variables: { 'x-engine-role': 'admin' } });
    const h = hook.received[0]?.headers ?? {};
    expect([h['x-static'], h['authorization'], h['content-type'], h['user-agent']]).toEqual(['v', 'tok-1', 'application/json', `engine/${VERSION}`]);
    expect(rows.map((r) => [r.delivered, r.error, r.tries, r.locked, r.locked_by, r.next_retry_at])).toEqual([
      [true, false, 1, null, null, null], [true, false, 1, null, null, null]]);
    const logs = await invocations(e, rows[0]?.id);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ trigger_name: 'article_events', status: 200,
      // Issue 28: a value read from the environment is logged as its configuration, never as the secret.
      request: { payload: ins, headers: [{ name: 'X-Static', value: 'v' }, { name: 'Authorization', value_from_env: 'SECRET_TOKEN' },
        { name: 'Content-Type', value: 'application/json' }, { name: 'User-Agent', value: `engine/${VERSION}` }] },
      response: { type: 'webhook_response', data: { status: 200, body: 'ok' } } });
    expect(logs[0]?.response.data.headers).toContainEqual({ name: 'content-length', value: '2' });
    expect(JSON.stringify(await e.db.query('SELECT request FROM engine_catalog.event_invocation_logs'))).not.toContain('tok-1');
  });

  it('numbers in the row reach the webhook and the invocation log with the digits stored, beyond a double\'s precision', async () => {
    await e.sql('create table ledger (id bigint primary key, amount numeric)');
    await e.ok({ type: 'track_table', args: 'ledger' });
    await e.ok({ type: 'create_event_trigger', args: { name: 'ledger_events', table: 'ledger', webhook: hook.url, insert: { columns: '*' } } });
    await startProcessor(e);
    await e.sql('insert into ledger values (9007199254740993, 0.10000000000000000001)');
    await delivered();
    expect(hook.received[0]?.text).toContain('"new": {"id": 9007199254740993, "amount": 0.10000000000000000001}');
    const [row] = await e.db.query<{ t: string }>(`SELECT request::text AS t FROM engine_catalog.event_invocation_logs`);
    expect(row?.t).toContain('"new": {"id": 9007199254740993, "amount": 0.10000000000000000001}');
  });

  it('a configured User-Agent replaces the engine\'s; a configured Content-Type does not stay', async () => {
    await create({ headers: [{ name: 'user-agent', value: 'mine' }, { name: 'content-type', value: 'text/plain' }] });
    await startProcessor(e);
    await e.sql("insert into article values (1, 'a')");
    await delivered();
    expect([hook.received[0]?.headers['user-agent'], hook.received[0]?.headers['content-type']]).toEqual(['mine', 'application/json']);
  });

  it('the session variables of the writer (run_sql) reach the payload', async () => {
    await create({});
    await startProcessor(e);
    const r = await e.query({ type: 'run_sql', args: { sql: "insert into article values (7, 'v')" } }, { 'x-engine-user-id': '42', 'X-Engine-Org': 'acme' });
    expect(r.status).toBe(200);
    await delivered();
    expect(hook.received[0]?.body.event.session_variables).toEqual({ 'x-engine-org': 'acme', 'x-engine-role': 'admin', 'x-engine-user-id': '42' });
  });

  it('the session variables of the writer (a GraphQL mutation) reach the payload', async () => {
    await create({});
    await startProcessor(e);
    const r = await post(`${e.url}/v1/graphql`, { query: 'mutation { insert_article_one(object: {id: 8, title: "g"}) { id } }' }, { 'X-Engine-User-Id': '7' });
    expect(r.body).toEqual({ data: { insert_article_one: { id: 8 } } });
    await delivered();
    expect(hook.received[0]?.body.event).toEqual({ op: 'INSERT', data: { old: null, new: { id: 8, title: 'g' } }, session_variables: { 'x-engine-role': 'admin', 'x-engine-user-id': '7' } });
  });

  it('invoke_event_trigger events are delivered with op MANUAL and the caller\'s session variables', async () => {
    await create({});
    await startProcessor(e);
    const { event_id } = await e.ok({ type: 'invoke_event_trigger', args: { name: 'article_events', payload: { any: ['json'] } } });
    await delivered();
    expect(hook.received[0]?.body).toMatchObject({ id: event_id,
      event: { op: 'MANUAL', data: { old: null, new: { any: ['json'] } }, session_variables: { 'x-engine-role': 'admin' } } });
  });

  it('webhook_from_env, {{ENV}} templates and value_from_env are read at delivery, not at creation', async () => {
    const env: Record<string, string | undefined> = {};
    await e.ok({ type: 'create_event_trigger', args: { name: 'from_env', table: 'article', webhook_from_env: 'HOOK_URL', insert: { columns: '*' } } });
    await e.ok({ type: 'create_event_trigger', args: { name: 'templated', table: 'article', webhook: '{{HOOK_BASE}}/path', delete: { columns: '*' },
      headers: [{ name: 'x-key', value_from_env: 'HOOK_KEY' }] } });
    env['HOOK_URL'] = `${hook.url}/first`;
    env['HOOK_BASE'] = hook.url;
    env['HOOK_KEY'] = 'k1';
    await startProcessor(e, { env });
    await e.sql("insert into article values (1, 'a')");
    await e.sql('delete from article');
    await delivered(2);
    env['HOOK_KEY'] = 'k2';
    await e.sql("insert into article values (2, 'b')");
    await e.sql('delete from article');
    await delivered(4);
    expect(hook.received.map((r) => [r.body.trigger.name, r.headers['x-key'] ?? null])).toEqual([
      ['from_env', null], ['templated', 'k1'], ['from_env', null], ['templated', 'k2']]);
  });
});

describe('retries (§5.3.2)', () => {
  it('num_retries 2, timeout_sec 1, a webhook answering after 2 s: 3 attempts, then error', async () => {
    hook.handler = (_, res) => void setTimeout(() => res.end('late'), 2000);
    await create({ retry_conf: { num_retries: 2, interval_sec: 1, timeout_sec: 1 } });
    await startProcessor(e);
    await e.sql("insert into article values (1, 'a')");
    const [row] = await eventually(async () => {
      const rows = await eventRows(e);
      return rows[0]?.error ? rows : undefined;
    }, 20_000, 'error state');
    expect(row).toMatchObject({ delivered: false, error: true, tries: 3, locked: null, next_retry_at: null });
    expect(hook.received.map((r) => r.body.delivery_info)).toEqual([0, 1, 2].map((c) => ({ max_retries: 2, current_retry: c })));
    const logs = await invocations(e);
    expect(logs.map((l) => [l.status, l.response])).toEqual([0, 1, 2].map(() =>
      [null, { type: 'client_error', data: { message: 'request timed out after 1 seconds' } }]));
  });

  it('a non-2xx answer is retried after interval_sec, with current_retry counting up, until a 2xx', async () => {
    hook.handler = (_, res, n) => {
      res.statusCode = n === 1 ? 500 : 200;
      res.end(n === 1 ? 'boom' : 'fine');
    };
    await create({ retry_conf: { num_retries: 1, interval_sec: 1 } });
    await startProcessor(e);
    await e.sql("insert into article values (1, 'a')");
    const first = await eventually(async () => (await eventRows(e))[0]?.tries === 1 ? (await eventRows(e))[0] : undefined);
    expect(first).toMatchObject({ delivered: false, error: false, tries: 1, locked: null });
    expect(first?.next_retry_at).not.toBeNull();
    const [row] = await delivered();
    expect(row).toMatchObject({ delivered: true, error: false, tries: 2, next_retry_at: null });
    expect((await invocations(e)).map((l) => [l.status, l.response.data.body, l.request.payload.delivery_info.current_retry])).toEqual([
      [500, 'boom', 0], [200, 'fine', 1]]);
  });

  it('Retry-After of a positive integer schedules the next attempt even when the retries are used up', async () => {
    hook.handler = (_, res, n) => {
      if (n === 1) res.writeHead(503, { 'Retry-After': '1' });
      res.end();
    };
    await create({ retry_conf: { num_retries: 0 } });
    await startProcessor(e);
    await e.sql("insert into article values (1, 'a')");
    const [row] = await delivered();
    expect(row).toMatchObject({ delivered: true, error: false, tries: 2 });
    expect(hook.received.map((r) => r.body.delivery_info.current_retry)).toEqual([0, 1]);
  });

  it.each(['soon', '0', '-5', '1.5', 'Wed, 21 Oct 2099 07:28:00 GMT'])('Retry-After %j is ignored: no retries left means error', async (value) => {
    hook.handler = (_, res) => {
      res.writeHead(429, { 'Retry-After': value });
      res.end();
    };
    await create({ retry_conf: { num_retries: 0 } });
    await startProcessor(e);
    await e.sql("insert into article values (1, 'a')");
    const [row] = await delivered();
    expect(row).toMatchObject({ delivered: false, error: true, tries: 1, next_retry_at: null });
    expect((await invocations(e)).map((l) => l.status)).toEqual([429]);
  });

  it('an unset variable is a client_error attempt, retried; once set, the event is delivered', async () => {
    const env: Record<string, string | undefined> = {};
    await create({ webhook: undefined, webhook_from_env: 'LATE_URL', retry_conf: { num_retries: 1, interval_sec: 1 } });
    await startProcessor(e, { env });
    await e.sql("insert into article values (1, 'a')");
    await eventually(async () => (await eventRows(e))[0]?.tries === 1);
    expect(hook.received).toHaveLength(0);
    env['LATE_URL'] = hook.url;
    const [row] = await delivered();
    expect(row).toMatchObject({ delivered: true, tries: 2 });
    expect((await invocations(e)).map((l) => [l.status, l.response.type, l.response.data.message ?? null, l.request.headers])).toEqual([
      [null, 'client_error', 'environment variable "LATE_URL" is not set', []], [200, 'webhook_response', null, expect.any(Array)]]);
  });
});
