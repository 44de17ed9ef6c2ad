import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/server/engine.js';
import { EventProcessor } from '../../src/server/workers/event-processor.js';
import { ScheduledQueue } from '../../src/server/workers/scheduled-queue.js';
import { silentLogger } from '../../src/logger.js';
import { useTestEngine } from '../helpers/engine.js';
import { fails } from '../helpers/assertions.js';
import { eventually, startWebhook, type Webhook } from '../helpers/webhook.js';

/**
 * Single scheduled events for the console (issue 34): get_scheduled_event_invocations and delete_scheduled_event as the
 * incumbent has them, and redeliver_scheduled_event; every refusal changes nothing.
 */

const e = useTestEngine();

const ONE_OFF = '11111111-1111-4111-8111-111111111111';
const CRON = '22222222-2222-4222-8222-222222222222';
const inv = (n: number) => `0000000${n}-0000-4000-8000-000000000000`;

/** A one-off event that failed twice and a delivered event of cron trigger `nightly`, with their invocation logs. */
async function seed(): Promise<void> {
  await e.ok({ type: 'create_cron_trigger', args: { name: 'nightly', webhook: 'http://127.0.0.1:9/', schedule: '0 3 * * *', include_in_metadata: true } });
  await e.db.query(`INSERT INTO engine_catalog.scheduled_events (id, trigger_name, scheduled_time, definition, status, tries) VALUES
    ($1, NULL, '2026-01-01T00:00:00Z', '{"webhook":"http://127.0.0.1:9/","payload":{"k":1}}', 'error', 2),
    ($2, 'nightly', '2026-01-01T03:00:00Z', NULL, 'delivered', 1)`, [ONE_OFF, CRON]);
  await e.db.query(`INSERT INTO engine_catalog.scheduled_event_invocation_logs (id, event_id, trigger_name, status, request, response, created_at) VALUES
    ($1, $4, NULL, 500, '{"n":1}', '{"body":"down"}', '2026-01-01T00:00:01Z'),
    ($2, $4, NULL, 500, '{"n":2}', '{"body":"down"}', '2026-01-01T00:00:02Z'),
    ($3, $5, 'nightly', 200, '{"n":3}', '{"body":"ok"}', '2026-01-01T03:00:01Z')`, [inv(1), inv(2), inv(3), ONE_OFF, CRON]);
}

const log = (n: number, event: string, status: number, body: string, at: string) =>
  ({ id: inv(n), event_id: event, status, request: { n }, response: { body }, created_at: at });
const L1 = log(1, ONE_OFF, 500, 'down', '2026-01-01T00:00:01.000000Z');
const L2 = log(2, ONE_OFF, 500, 'down', '2026-01-01T00:00:02.000000Z');
const L3 = log(3, CRON, 200, 'ok', '2026-01-01T03:00:01.000000Z');

const invocations = (args: Record<string, unknown>) => e.ok({ type: 'get_scheduled_event_invocations', args });
/** Everything of scheduled events, for "nothing changed". */
const scheduledRows = async () => (await e.db.query<{ s: string }>(`SELECT coalesce((SELECT json_agg(x ORDER BY x.id)::text FROM engine_catalog.scheduled_events x), '') ||
  coalesce((SELECT json_agg(l ORDER BY l.id)::text FROM engine_catalog.scheduled_event_invocation_logs l), '') AS s`))[0]?.s;
const bad = (path: string, error: string, code = 'parse-failed') => ({ path, error, code });

async function refused(body: unknown, expected: Record<string, unknown>): Promise<void> {
  const before = await scheduledRows();
  await fails(e, body, 400, expected);
  expect(await scheduledRows()).toBe(before);
}

describe('get_scheduled_event_invocations', () => {
  it('by type, cron trigger or event, the latest first, paged, with the count when asked', async () => {
    await seed();
    expect(await invocations({ type: 'one_off' })).toEqual({ invocations: [L2, L1] });
    expect(await invocations({ type: 'one_off', limit: 1, get_rows_count: true })).toEqual({ invocations: [L2], count: 2 });
    expect(await invocations({ type: 'one_off', limit: 1, offset: 1 })).toEqual({ invocations: [L1] });
    expect(await invocations({ type: 'one_off', event_id: ONE_OFF })).toEqual({ invocations: [L2, L1] });
    expect(await invocations({ type: 'cron', trigger_name: 'nightly', get_rows_count: true })).toEqual({ invocations: [L3], count: 1 });
    expect(await invocations({ type: 'cron', event_id: CRON.toUpperCase() })).toEqual({ invocations: [L3] });
    // Keys in the incumbent's order.
    expect(Object.keys((await invocations({ type: 'cron', event_id: CRON })).invocations[0])).toEqual(['id', 'event_id', 'status', 'request', 'response', 'created_at']);
  });

  it('refuses what it cannot answer, changing nothing', async () => {
    await seed();
    const q = (args: unknown) => ({ type: 'get_scheduled_event_invocations', args });
    await refused(q({}), bad('$.args', 'the key "type" was not present'));
    await refused(q({ type: 'weekly' }), bad('$.args.type', 'expected one of "cron", "one_off", encountered "weekly"'));
    await refused(q({ type: 'cron' }), bad('$.args', 'the key "trigger_name" (or "event_id") was not present'));
    await refused(q({ type: 'one_off', trigger_name: 'nightly' }), bad('$.args.trigger_name', 'trigger_name is only for type "cron"'));
    await refused(q({ type: 'one_off', event_id: 'x' }), bad('$.args.event_id', 'expected a UUID, encountered "x"'));
    await refused(q({ type: 'one_off', limit: 1001 }), bad('$.args.limit', 'expected an integer <= 1000, encountered 1001'));
    // An event of the other type is not one of this type's.
    await refused(q({ type: 'cron', event_id: ONE_OFF }), bad('$.args.event_id', `scheduled event "${ONE_OFF}" does not exist`, 'not-exists'));
    await refused(q({ type: 'cron', trigger_name: 'weekly' }), bad('$.args.trigger_name', 'cron trigger "weekly" does not exist', 'not-exists'));
  });
});

describe('delete_scheduled_event', () => {
  it('removes the event and its logs, nothing else; refuses another type, an unknown event and one in flight', async () => {
    await seed();
    const del = (type: string, id: string) => ({ type: 'delete_scheduled_event', args: { type, event_id: id } });
    await refused(del('cron', ONE_OFF), bad('$.args.event_id', `scheduled event "${ONE_OFF}" does not exist`, 'not-exists'));
    await refused({ type: 'delete_scheduled_event', args: { event_id: ONE_OFF } }, bad('$.args', 'the key "type" was not present'));
    await e.db.query("UPDATE engine_catalog.scheduled_events SET locked = now() WHERE id = $1", [ONE_OFF]);
    await refused(del('one_off', ONE_OFF), bad('$.args.event_id', `scheduled event "${ONE_OFF}" is already being processed`, 'busy'));
    await e.db.query('UPDATE engine_catalog.scheduled_events SET locked = NULL WHERE id = $1', [ONE_OFF]);
    expect(await e.ok(del('one_off', ONE_OFF))).toEqual({ message: 'success' });
    expect(await invocations({ type: 'one_off' })).toEqual({ invocations: [] });
    expect(await e.ok({ type: 'get_scheduled_events', args: {} })).toEqual([expect.objectContaining({ id: CRON })]);
    expect(await invocations({ type: 'cron', trigger_name: 'nightly' })).toEqual({ invocations: [L3] });
    await refused(del('one_off', ONE_OFF), bad('$.args.event_id', `scheduled event "${ONE_OFF}" does not exist`, 'not-exists'));
  });

  it('get_scheduled_events takes the incumbent\'s list of states', async () => {
    await seed();
    const ids = async (status: unknown) => ((await e.ok({ type: 'get_scheduled_events', args: { status } })) as { id: string }[]).map((r) => r.id);
    expect(await ids(['error', 'delivered'])).toEqual([CRON, ONE_OFF]);
    expect(await ids(['error'])).toEqual([ONE_OFF]);
    expect(await ids('delivered')).toEqual([CRON]);
    await refused({ type: 'get_scheduled_events', args: { status: ['error', 'late'] } },
      bad('$.args.status[1]', 'expected one of "scheduled", "delivered", "error", "dead", "archived", "all", encountered "late"'));
  });
});

/** A clock the test moves, shared by the engine that takes the requests and the processor. */
class TestClock {
  t = Math.floor(Date.now() / 60_000) * 60_000 + 90_000;
  now = (): Date => new Date(this.t);
}

const stops: (() => Promise<void>)[] = [];
const hooks: Webhook[] = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
  for (const h of hooks.splice(0)) await h.close();
});

const stateOf = async (id: string) => (await e.db.query<{ status: string; tries: number }>(
  'SELECT status, tries FROM engine_catalog.scheduled_events WHERE id = $1', [id]))[0];

describe('redeliver_scheduled_event', () => {
  it('attempts a failed event again, and a dead one (past its tolerance) too; refusals change nothing', async () => {
    const clock = new TestClock();
    const start = clock.t;
    const engine = await Engine.start(e.db, silentLogger, clock);
    const run = async (body: unknown) => JSON.parse((await engine.execute(body, 'admin', {})).body) as Record<string, unknown>;
    // The first call fails, every later one succeeds.
    const h = await startWebhook((_, res, n) => {
      res.statusCode = n === 1 ? 500 : 200;
      res.end(n === 1 ? 'down' : 'ok');
    });
    hooks.push(h);
    const p = await EventProcessor.startQueue(e.db, new ScheduledQueue(() => engine.cronTriggers(), clock), { pollMs: 30, logger: silentLogger });
    stops.push(() => p.stop());
    const create = async (offset: number) => (await run({ type: 'create_scheduled_event', args: {
      webhook: h.url, schedule_at: new Date(start + offset).toISOString(), payload: { at: offset }, retry_conf: { num_retries: 0, tolerance_seconds: 60 },
    } }))['event_id'] as string;
    const failed = await create(10_000);
    const late = await create(20_000);

    clock.t = start + 10_000;
    await eventually(async () => (await stateOf(failed))?.status === 'error', 10_000, 'the first attempt recorded');
    // Far past the second event's time: it is found late and recorded dead, never called.
    clock.t = start + 600_000;
    await eventually(async () => (await stateOf(late))?.status === 'dead', 10_000, 'the late event recorded dead');
    expect(h.received).toHaveLength(1);

    expect(await run({ type: 'redeliver_scheduled_event', args: { type: 'one_off', event_id: failed } })).toEqual({ message: 'success' });
    await eventually(async () => (await stateOf(failed))?.status === 'delivered', 10_000, 'the failed event delivered');
    expect(await stateOf(failed)).toEqual({ status: 'delivered', tries: 1 });
    const logs = (await run({ type: 'get_scheduled_event_invocations', args: { type: 'one_off', event_id: failed } }))['invocations'] as { status: number }[];
    expect(logs.map((l) => l.status)).toEqual([200, 500]);

    // Its tolerance counts from the redelivery: called now, not found late again.
    await run({ type: 'redeliver_scheduled_event', args: { type: 'one_off', event_id: late } });
    await eventually(async () => (await stateOf(late))?.status === 'delivered', 10_000, 'the dead event delivered');
    // The failed event's two calls, then the dead event's first.
    expect(h.received.map((r) => (r.body as { payload: unknown }).payload)).toEqual([{ at: 10_000 }, { at: 10_000 }, { at: 20_000 }]);

    const redeliver = (args: unknown) => ({ type: 'redeliver_scheduled_event', args });
    await refused(redeliver({ type: 'cron', event_id: failed }), bad('$.args.event_id', `scheduled event "${failed}" does not exist`, 'not-exists'));
    await refused(redeliver({ type: 'one_off' }), bad('$.args', 'the key "event_id" was not present'));
    await e.db.query('UPDATE engine_catalog.scheduled_events SET locked = now() WHERE id = $1', [failed]);
    await refused(redeliver({ type: 'one_off', event_id: failed }), bad('$.args.event_id', `scheduled event "${failed}" is already being processed`, 'busy'));
  });
});
