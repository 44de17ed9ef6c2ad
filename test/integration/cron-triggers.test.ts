import { afterEach, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { PostgresDatabase } from '../../src/db/postgres.js';
import { Engine } from '../../src/server/engine.js';
import { EventProcessor } from '../../src/server/workers/event-processor.js';
import { ScheduledQueue } from '../../src/server/workers/scheduled-queue.js';
import { silentLogger } from '../../src/logger.js';
import { createTestDatabase, EXTERNAL_URL, useTestEngine } from '../helpers/engine.js';
import { eventually, startWebhook, type Webhook } from '../helpers/webhook.js';

/** Cron triggers and one-off scheduled events delivered by the processor, on a clock the test moves (issue 20). */

const e = useTestEngine();

/** A clock the test moves; it starts at a whole minute + 30 s, a little after the real time. */
class TestClock {
  t: number;
  constructor() {
    this.t = Math.floor(Date.now() / 60_000) * 60_000 + 90_000;
  }
  now = (): Date => new Date(this.t);
  set(iso: number): void {
    this.t = iso;
  }
}

const stops: (() => Promise<void>)[] = [];
const hooks: Webhook[] = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
  for (const h of hooks.splice(0)) await h.close();
});

async function scheduler(db: Database, engine: Engine, clock: TestClock): Promise<EventProcessor<unknown, { id: string; trigger_name: string }>> {
  const p = await EventProcessor.startQueue(db, new ScheduledQueue(() => engine.cronTriggers(), clock), { pollMs: 30, logger: silentLogger, env: { CRON_SECRET: 'cron-s3cret' } });
  stops.push(() => p.stop());
  return p as unknown as EventProcessor<unknown, { id: string; trigger_name: string }>;
}

async function hook(handler?: Parameters<typeof startWebhook>[0]): Promise<Webhook> {
  const h = await startWebhook(handler);
  hooks.push(h);
  return h;
}

const cron = (name: string, url: string, extra: Record<string, unknown> = {}) =>
  ({ type: 'create_cron_trigger', args: { name, webhook: url, schedule: '* * * * *', include_in_metadata: true, payload: { k: name }, ...extra } });

const rows = (db: Database) => db.query<{ trigger_name: string | null; scheduled_time: string; status: string; tries: number }>(
  `SELECT trigger_name, to_char(scheduled_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS scheduled_time, status, tries
     FROM engine_catalog.scheduled_events ORDER BY scheduled_time, trigger_name`);

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

describe('cron triggers', () => {
  it('a * * * * * trigger fires at each minute of the clock, once, with its payload, and stops when deleted', async () => {
    const clock = new TestClock();
    const start = clock.t;
    const h = await hook();
    await e.ok(cron('every_minute', `${h.url}/cron`, { headers: [{ name: 'x-k', value: 'v' }, { name: 'x-secret', value_from_env: 'CRON_SECRET' }], comment: 'c' }));
    await scheduler(e.db, e.engine, clock);
    // The trigger is first seen at `start`: nothing before it is a missed time.
    await eventually(async () => (await e.db.query('SELECT 1 FROM engine_catalog.cron_trigger_state')).length === 1, 10_000, 'state row');
    expect(h.received).toHaveLength(0);
    clock.set(start + 30_500);
    const r = await eventually(() => h.received[0], 10_000, 'first delivery');
    expect(r.body).toEqual({ id: expect.any(String), name: 'every_minute', scheduled_time: `${iso(start + 30_000).slice(0, -1)}.000000Z`, payload: { k: 'every_minute' }, comment: 'c' });
    expect([r.headers['x-k'], r.headers['x-secret']]).toEqual(['v', 'cron-s3cret']);
    clock.set(start + 90_500);
    await eventually(() => h.received.length === 2, 10_000, 'second delivery');
    await eventually(async () => (await rows(e.db)).every((r) => r.status === 'delivered'), 10_000, 'recorded');
    expect(await rows(e.db)).toEqual([
      { trigger_name: 'every_minute', scheduled_time: iso(start + 30_000), status: 'delivered', tries: 1 },
      { trigger_name: 'every_minute', scheduled_time: iso(start + 90_000), status: 'delivered', tries: 1 },
    ]);
    const logs = await e.db.query<{ status: number }>('SELECT status FROM engine_catalog.scheduled_event_invocation_logs');
    expect(logs).toEqual([{ status: 200 }, { status: 200 }]);
    // Issue 28: the log shows where a header's value comes from, never the value read from the environment.
    const [logged] = await e.db.query<{ h: unknown; t: string }>("SELECT request->'headers' AS h, request::text AS t FROM engine_catalog.scheduled_event_invocation_logs LIMIT 1");
    expect(logged?.h).toEqual(expect.arrayContaining([{ name: 'x-k', value: 'v' }, { name: 'x-secret', value_from_env: 'CRON_SECRET' }]));
    expect(logged?.t).not.toContain('cron-s3cret');
    await e.ok({ type: 'delete_cron_trigger', args: { name: 'every_minute' } });
    expect(await e.db.query('SELECT 1 FROM engine_catalog.cron_trigger_state')).toEqual([]);
    clock.set(start + 300_500);
    // The processor polls every 30 ms: a few rounds pass, and nothing more is written or sent.
    const rounds = Date.now();
    await eventually(() => Date.now() - rounds > 300, 2000);
    expect(h.received).toHaveLength(2);
    expect(await rows(e.db)).toHaveLength(2);
  });

  it('missed times within the tolerance are delivered at start-up, older ones are recorded dead', async () => {
    const clock = new TestClock();
    const start = clock.t;
    const h = await hook();
    await e.ok(cron('missed', h.url, { retry_conf: { tolerance_seconds: 120 } }));
    const first = await scheduler(e.db, e.engine, clock);
    await eventually(async () => (await e.db.query('SELECT 1 FROM engine_catalog.cron_trigger_state')).length === 1, 10_000, 'state row');
    await first.stop();
    // No engine runs for five minutes: then one starts.
    clock.set(start + 300_000);
    await scheduler(e.db, e.engine, clock);
    await eventually(() => h.received.length === 2, 10_000, 'two deliveries');
    await eventually(async () => (await rows(e.db)).every((r) => r.status !== 'scheduled'), 10_000, 'recorded');
    expect(h.received.map((r) => r.body.scheduled_time).sort()).toEqual([iso(start + 210_000), iso(start + 270_000)].map((t) => `${t.slice(0, -1)}.000000Z`));
    expect((await rows(e.db)).map((r) => `${r.scheduled_time} ${r.status}`)).toEqual([
      `${iso(start + 30_000)} dead`, `${iso(start + 90_000)} dead`, `${iso(start + 150_000)} dead`,
      `${iso(start + 210_000)} delivered`, `${iso(start + 270_000)} delivered`,
    ]);
    // Dead events were never attempted: no invocation logs for them.
    expect(await e.db.query('SELECT count(*)::int AS n FROM engine_catalog.scheduled_event_invocation_logs')).toEqual([{ n: 2 }]);
  });

  it('a one-off scheduled event is retried per retry_conf and then recorded as error', async () => {
    const clock = new TestClock();
    const h = await hook((_, res) => {
      res.statusCode = 500;
      res.end('no');
    });
    await scheduler(e.db, e.engine, clock);
    const at = clock.t + 10_000;
    const created = await e.ok({
      type: 'create_scheduled_event',
      args: { webhook: h.url, schedule_at: new Date(at).toISOString(), payload: { one: 1 }, retry_conf: { num_retries: 2, retry_interval_seconds: 5 }, comment: 'once' },
    });
    expect(created).toEqual({ event_id: expect.any(String) });
    clock.set(at - 1);
    const rounds = Date.now();
    await eventually(() => Date.now() - rounds > 200, 2000);
    expect(h.received).toHaveLength(0);
    for (let n = 1; n <= 3; n++) {
      clock.set(at + (n - 1) * 5_000);
      await eventually(() => h.received.length === n, 10_000, `attempt ${n}`);
      // The next retry is due retry_interval_seconds after the clock's time when the attempt is recorded.
      await eventually(async () => (await rows(e.db))[0]?.tries === n, 10_000, `attempt ${n} recorded`);
      expect(h.received[n - 1]?.body).toEqual({ id: created.event_id, name: null, scheduled_time: expect.any(String), payload: { one: 1 }, comment: 'once' });
    }
    expect(await rows(e.db)).toEqual([{ trigger_name: null, scheduled_time: iso(at), status: 'error', tries: 3 }]);
    const listed = await e.ok({ type: 'get_scheduled_events', args: { type: 'one_off' } });
    expect(listed).toEqual([{
      id: created.event_id, type: 'one_off', trigger_name: null, scheduled_time: expect.any(String), state: 'error', tries: 3,
      created_at: expect.any(String), next_retry_at: null, payload: { one: 1 },
    }]);
  });
});

describe('crash safety', () => {
  it('an event locked by an instance that died (no advisory lock) is delivered at once by another', async () => {
    const clock = new TestClock();
    const h = await hook();
    const [row] = await e.db.query<{ id: string }>(`INSERT INTO engine_catalog.scheduled_events (scheduled_time, definition, locked, locked_by)
      VALUES ($1::timestamptz, $2::jsonb, now(), 12345) RETURNING id::text AS id`, [new Date(clock.t - 5_000).toISOString(), JSON.stringify({ webhook: h.url, payload: { p: 1 } })]);
    await scheduler(e.db, e.engine, clock);
    const r = await eventually(() => h.received[0], 10_000, 'delivery');
    expect(r.body).toMatchObject({ id: row?.id, name: null, payload: { p: 1 } });
    await eventually(async () => (await rows(e.db))[0]?.status === 'delivered', 10_000, 'recorded');
    expect(h.received).toHaveLength(1);
  });
});

describe('cron trigger operations', () => {
  it('create, replace, get and delete; export carries the trigger; errors change nothing', async () => {
    await e.ok(cron('a', 'http://127.0.0.1:1/x'));
    const before = await e.state();
    const bad = async (body: unknown, code: string, path: string, error: string) => {
      const r = await e.query(body);
      expect([r.status, r.body]).toEqual([400, { code, path, error }]);
      expect(await e.state()).toEqual(before);
    };
    await bad(cron('a', 'http://x'), 'already-exists', '$.args.name', 'cron trigger with name "a" already exists');
    await bad(cron('b', 'http://x', { replace: true }), 'not-exists', '$.args.name', 'cron trigger "b" does not exist');
    await bad(cron('b', 'http://x', { schedule: '61 * * * *' }), 'parse-failed', '$.args.schedule', 'invalid cron schedule "61 * * * *": field "minute" is out of range');
    await bad(cron('b', 'http://x', { schedule: '* * * *' }), 'parse-failed', '$.args.schedule',
      'invalid cron schedule "* * * *": expected 5 fields (minute hour day-of-month month day-of-week)');
    await bad(cron('b', 'http://x', { schedule: '0 0 30 2 *' }), 'parse-failed', '$.args.schedule', 'cron schedule "0 0 30 2 *" never fires');
    await bad(cron('b', 'ftp://x'), 'parse-failed', '$.args.webhook', 'webhook must be an http or https URL');
    await bad(cron('b', 'http://x', { retry_conf: { num_retries: -1 } }), 'parse-failed', '$.args.retry_conf.num_retries', 'expected an integer >= 0, encountered -1');
    await bad(cron('b', 'http://x', { payload: { big: 'x'.repeat(200_000) } }), 'parse-failed', '$.args.payload',
      'payload is 200010 bytes; at most 102400 bytes are allowed');
    await bad({ type: 'delete_cron_trigger', args: { name: 'b' } }, 'not-exists', '$.args.name', 'cron trigger "b" does not exist');
    await bad({ type: 'create_scheduled_event', args: { webhook: 'http://x', schedule_at: '2001-01-01T00:00:00Z' } }, 'parse-failed', '$.args.schedule_at',
      'the time 2001-01-01T00:00:00.000Z is in the past');
    await bad({ type: 'create_scheduled_event', args: { webhook: 'http://x', schedule_at: 'tomorrow' } }, 'parse-failed', '$.args.schedule_at',
      'expected an ISO 8601 timestamp with a time zone, encountered "tomorrow"');
    await e.ok(cron('a', 'http://127.0.0.1:2/y', { replace: true, schedule: '*/5 * * * *', retry_conf: { timeout_seconds: 3, num_retries: 1 } }));
    const expected = {
      name: 'a', webhook: 'http://127.0.0.1:2/y', schedule: '*/5 * * * *', include_in_metadata: true, payload: { k: 'a' },
      retry_conf: { num_retries: 1, timeout_seconds: 3 },
    };
    expect(await e.ok({ type: 'get_cron_triggers', args: {} })).toEqual({ cron_triggers: [expected] });
    expect((await e.ok({ type: 'export_metadata', args: {} })).cron_triggers).toEqual([expected]);
    const exported = await e.ok({ type: 'export_metadata', args: {} });
    await e.ok({ type: 'clear_metadata', args: {} });
    await e.ok({ type: 'replace_metadata', args: exported });
    expect(await e.ok({ type: 'export_metadata', args: {} })).toEqual(exported);
    await e.ok({ type: 'delete_cron_trigger', args: { name: 'a' } });
    expect(await e.ok({ type: 'get_cron_triggers', args: {} })).toEqual({ cron_triggers: [] });
  });
});

async function instance(url: string, clock: TestClock): Promise<{ db: Database; engine: Engine }> {
  const db = await PostgresDatabase.connect(url);
  const engine = await Engine.start(db, silentLogger);
  stops.push(() => db.close());
  await scheduler(db, engine, clock);
  return { db, engine };
}

describe.skipIf(!EXTERNAL_URL)('two engines on one PostgreSQL', () => {
  it('deliver each scheduled time of a cron trigger exactly once', async () => {
    const created = await createTestDatabase();
    stops.push(async () => created.drop());
    const clock = new TestClock();
    const start = clock.t;
    const h = await hook();
    const one = await instance(created.url as string, clock);
    const other = await instance(created.url as string, clock);
    for (const name of ['t1', 't2', 't3']) await one.engine.execute(cron(name, h.url), 'admin', {});
    await eventually(async () => (await one.db.query('SELECT 1 FROM engine_catalog.cron_trigger_state')).length === 3, 10_000, 'state rows');
    // Ten minutes pass in steps; both instances poll the same clock.
    for (let m = 1; m <= 10; m++) {
      clock.set(start + m * 60_000 - 29_000);
      await eventually(() => h.received.length === 3 * m, 10_000, `deliveries of minute ${m}`);
    }
    const seen = h.received.map((r) => `${r.body.name} ${r.body.scheduled_time}`);
    expect(new Set(seen).size).toBe(30);
    // Results are written after the webhook answered, in batches: the last ones a moment later.
    const delivered = async () => (await other.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM engine_catalog.scheduled_events
      WHERE status <> 'scheduled'`))[0]?.n;
    await eventually(async () => (await delivered()) === 30, 10_000, 'every result written');
    const states = await other.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM engine_catalog.scheduled_events WHERE status = 'delivered' AND tries = 1`);
    expect(states).toEqual([{ n: 30 }]);
    expect(await other.db.query('SELECT count(*)::int AS n FROM engine_catalog.scheduled_event_invocation_logs')).toEqual([{ n: 30 }]);
  });
});
