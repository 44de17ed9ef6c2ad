import { describe, expect, it } from 'vitest';
import { startTestEngine, useTestEngine } from '../helpers/engine.js';
import { err, expectError } from '../helpers/assertions.js';
import { eventRows, startProcessor, useProcessors } from '../helpers/events.js';
import { eventually, startWebhook } from '../helpers/webhook.js';

// get_event_logs and get_event_invocation_logs (issue 15, beyond engine-api.md; docs/decisions.md): events with
// their state, newest first; an event's attempts, oldest first; admin only; the usual error shapes.

const e = useTestEngine({ setup: async () => {
  await e.sql('create table article (id int primary key, title text)');
  await e.ok({ type: 'track_table', args: 'article' });
} });
useProcessors();

const create = (name: string, webhook: string, extra: Record<string, unknown> = {}) =>
  e.ok({ type: 'create_event_trigger', args: { name, table: 'article', webhook, insert: { columns: '*' }, ...extra } });
const logs = (args: Record<string, unknown>) => e.ok({ type: 'get_event_logs', args });
const UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

describe('get_event_logs', () => {
  it('lists events newest first with state, tries and next retry; filters by trigger and status; pages', async () => {
    await create('a', 'http://127.0.0.1:1/a');
    await create('b', 'http://127.0.0.1:1/b');
    await e.sql("insert into article values (1, 'x')");
    await e.sql("insert into article values (2, 'y')");
    // Both triggers' events of one statement share created_at: spread them out for a definite order.
    await e.db.query(`UPDATE engine_catalog.event_log SET created_at = created_at + make_interval(secs => (payload #>> '{data,new,id}')::int * 10
      + CASE trigger_name WHEN 'b' THEN 1 ELSE 0 END)`);
    const rows = await eventRows(e);
    const [a1, b1, a2, b2] = rows.map((r) => r.id) as [string, string, string, string];
    await e.db.query("UPDATE engine_catalog.event_log SET delivered = true, tries = 1 WHERE id = $1", [a1]);
    await e.db.query("UPDATE engine_catalog.event_log SET error = true, tries = 3 WHERE id = $1", [b1]);
    await e.db.query("UPDATE engine_catalog.event_log SET tries = 1, next_retry_at = now() + interval '1 hour' WHERE id = $1", [a2]);
    const all = await logs({});
    expect(all.map((x: { id: string }) => x.id)).toEqual([b2, a2, b1, a1]);
    expect(Object.keys(all[0])).toEqual(['id', 'trigger_name', 'table', 'op', 'state', 'tries', 'created_at', 'next_retry_at', 'payload']);
    expect(all[1]).toEqual({ id: a2, trigger_name: 'a', table: { schema: 'public', name: 'article' }, op: 'INSERT', state: 'waiting', tries: 1,
      created_at: expect.stringMatching(UTC), next_retry_at: expect.stringMatching(UTC),
      payload: { op: 'INSERT', data: { old: null, new: { id: 2, title: 'y' } }, session_variables: { 'x-engine-role': 'admin' } } });
    expect(Object.keys(all[1].table)).toEqual(['schema', 'name']);
    expect(all.map((x: { state: string }) => x.state)).toEqual(['pending', 'waiting', 'error', 'delivered']);
    expect((await logs({ name: 'a' })).map((x: { id: string }) => x.id)).toEqual([a2, a1]);
    expect((await logs({ status: 'pending' })).map((x: { id: string }) => x.id)).toEqual([b2, a2]);
    expect((await logs({ status: 'delivered' })).map((x: { id: string }) => x.id)).toEqual([a1]);
    expect((await logs({ status: 'error', name: 'b' })).map((x: { id: string }) => x.id)).toEqual([b1]);
    expect((await logs({ limit: 2, offset: 1 })).map((x: { id: string }) => x.id)).toEqual([a2, b1]);
    expect((await logs({ event_id: a1.toUpperCase() })).map((x: { id: string }) => x.id)).toEqual([a1]);
    await e.ok({ type: 'delete_event_trigger', args: { name: 'b' } });
    expect((await logs({ status: 'archived' })).map((x: { id: string; state: string }) => [x.id, x.state])).toEqual([[b2, 'archived'], [b1, 'archived']]);
    // A deleted trigger's archived events stay reachable by its name.
    expect(await logs({ name: 'b', status: 'pending' })).toEqual([]);
    expect(await logs({ name: 'b', status: 'archived', limit: 1 })).toHaveLength(1);
  });

  it('an event being processed is in state processing', async () => {
    await create('a', 'http://127.0.0.1:1/a');
    const { event_id } = await e.ok({ type: 'invoke_event_trigger', args: { name: 'a', payload: {} } });
    await e.db.query('UPDATE engine_catalog.event_log SET locked = now() WHERE id = $1', [event_id]);
    expect((await logs({}))[0]).toMatchObject({ id: event_id, op: 'MANUAL', state: 'processing', tries: 0, next_retry_at: null });
  });

  it.each([
    [{ name: 'nope' }, err('$.args.name', 'event trigger "nope" does not exist', 'not-exists')],
    [{ status: 'done' }, err('$.args.status', 'expected one of "pending", "delivered", "error", "archived", "all", encountered "done"', 'parse-failed')],
    [{ limit: 0 }, err('$.args.limit', 'expected an integer >= 1, encountered 0', 'parse-failed')],
    [{ limit: 1001 }, err('$.args.limit', 'expected an integer <= 1000, encountered 1001', 'parse-failed')],
    [{ limit: 1.5 }, err('$.args.limit', 'expected an integer >= 1, encountered 1.5', 'parse-failed')],
    [{ offset: -1 }, err('$.args.offset', 'expected an integer >= 0, encountered -1', 'parse-failed')],
    [{ name: 3 }, err('$.args.name', 'expected String, encountered Number', 'parse-failed')],
    [{ event_id: 'x' }, err('$.args.event_id', 'expected a UUID, encountered "x"', 'parse-failed')],
    [{ event_id: '00000000-0000-0000-0000-000000000000' }, err('$.args.event_id', 'event "00000000-0000-0000-0000-000000000000" does not exist', 'not-exists')],
  ])('%j → 400', async (args, expected) => {
    await expectError(e, { type: 'get_event_logs', args }, 400, expected);
  });
});

describe('get_event_invocation_logs', () => {
  it('lists the attempts of an event, oldest first, archived events included', async () => {
    const hook = await startWebhook((_, res, n) => {
      res.statusCode = n === 1 ? 500 : 200;
      res.end(`answer ${n}`);
    });
    try {
      await create('a', hook.url, { retry_conf: { num_retries: 1, interval_sec: 1 } });
      await startProcessor(e);
      const { event_id } = await e.ok({ type: 'invoke_event_trigger', args: { name: 'a', payload: { k: 1 } } });
      await eventually(async () => (await eventRows(e))[0]?.delivered);
      const attempts = await e.ok({ type: 'get_event_invocation_logs', args: { event_id } });
      expect(attempts.map((x: { status: number; response: { data: { body: string } } }) => [x.status, x.response.data.body])).toEqual([[500, 'answer 1'], [200, 'answer 2']]);
      expect(Object.keys(attempts[0])).toEqual(['id', 'event_id', 'trigger_name', 'status', 'created_at', 'request', 'response']);
      expect(attempts[0]).toMatchObject({ event_id, trigger_name: 'a', created_at: expect.stringMatching(UTC),
        request: { payload: { id: event_id, delivery_info: { max_retries: 1, current_retry: 0 } } } });
      await e.ok({ type: 'delete_event_trigger', args: { name: 'a' } });
      expect(await e.ok({ type: 'get_event_invocation_logs', args: { event_id } })).toHaveLength(2);
    } finally {
      await hook.close();
    }
  });

  it('an event without attempts has an empty list', async () => {
    await create('a', 'http://127.0.0.1:1/a');
    const { event_id } = await e.ok({ type: 'invoke_event_trigger', args: { name: 'a', payload: {} } });
    expect(await e.ok({ type: 'get_event_invocation_logs', args: { event_id } })).toEqual([]);
  });

  it.each([
    [{}, err('$.args', 'the key "event_id" was not present', 'parse-failed')],
    [{ event_id: 12 }, err('$.args.event_id', 'expected a UUID, encountered 12', 'parse-failed')],
    [{ event_id: '11111111-1111-1111-1111-111111111111' }, err('$.args.event_id', 'event "11111111-1111-1111-1111-111111111111" does not exist', 'not-exists')],
  ])('%j → 400', async (args, expected) => {
    await expectError(e, { type: 'get_event_invocation_logs', args }, 400, expected);
  });
});

describe('admin only', () => {
  it('other roles get access-denied', async () => {
    const s = await startTestEngine({ adminSecret: 'sec' });
    try {
      for (const type of ['get_event_logs', 'get_event_invocation_logs']) {
        const r = await s.query({ type, args: {} }, { 'x-engine-admin-secret': 'sec', 'x-engine-role': 'user' });
        expect([r.status, r.body]).toEqual([400, err('$.args', 'restricted access : admin only', 'access-denied')]);
      }
    } finally {
      await s.close();
    }
  });
});
