import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { probes, type DeliveryKind } from '../../src/probes.js';
import { EventProcessor } from '../../src/server/workers/event-processor.js';
import { ScheduledQueue } from '../../src/server/workers/scheduled-queue.js';
import { useTestEngine } from '../helpers/engine.js';
import { startProcessor, useProcessors } from '../helpers/events.js';
import { eventually, startWebhook, type Webhook } from '../helpers/webhook.js';

/**
 * Issue 31.3 (metrics split): each delivery attempt reported to the metrics with its queue (event_trigger, cron,
 * one_off), its outcome and the time since the event was due: its creation, or a scheduled event's time when later.
 * Scheduled events run on a clock the test moves, so their latencies are exact.
 */

const e = useTestEngine({ setup: async () => {
  await e.sql('create table item (id int primary key)');
  await e.ok({ type: 'track_table', args: 'item' });
} });
useProcessors();

interface Reported { queue: DeliveryKind; outcome: string; seconds: number; sinceDue: number }
const reported: Reported[] = [];
const stops: (() => Promise<void>)[] = [];
const hooks: Webhook[] = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
  for (const h of hooks.splice(0)) await h.close();
  probes.delivery = undefined;
  reported.length = 0;
});

function record(): void {
  probes.delivery = (queue, outcome, seconds, sinceDue) => reported.push({ queue, outcome, seconds, sinceDue });
}

class TestClock {
  t = Math.floor(Date.now() / 60_000) * 60_000 + 90_000;
  now = (): Date => new Date(this.t);
}

async function scheduler(clock: TestClock): Promise<void> {
  const p = await EventProcessor.startQueue(e.db, new ScheduledQueue(() => e.engine.cronTriggers(), clock), { pollMs: 30, logger: silentLogger });
  stops.push(() => p.stop());
}

async function hook(status = 200): Promise<Webhook> {
  const h = await startWebhook((_, res) => {
    res.statusCode = status;
    res.end('ok');
  });
  hooks.push(h);
  return h;
}

describe('delivery metrics by queue', () => {
  it('a cron trigger\'s events are `cron`, measured from their scheduled time, however late', async () => {
    record();
    const clock = new TestClock();
    const start = clock.t;
    const h = await hook();
    await e.ok({ type: 'create_cron_trigger', args: { name: 'tick', webhook: h.url, schedule: '* * * * *', include_in_metadata: true, retry_conf: { tolerance_seconds: 150 } } });
    await scheduler(clock);
    await eventually(async () => (await e.db.query('SELECT 1 FROM engine_catalog.cron_trigger_state')).length === 1, 10_000, 'state row');
    clock.t = start + 30_500;
    await eventually(() => reported.length === 1, 10_000, 'first delivery reported');
    expect(reported[0]).toEqual({ queue: 'cron', outcome: 'delivered', seconds: expect.any(Number), sinceDue: 0.5 });
    // Five minutes later: the times within the tolerance are delivered late (older ones are written dead, never claimed).
    clock.t = start + 330_000;
    await eventually(() => reported.length === 4, 10_000, 'three more reported');
    expect(reported.slice(1).map((r) => [r.queue, r.outcome, r.sinceDue]).sort((a, b) => Number(b[2]) - Number(a[2])))
      .toEqual([['cron', 'delivered', 120], ['cron', 'delivered', 60], ['cron', 'delivered', 0]]);
    expect(h.received).toHaveLength(4);
  });

  it('a scheduled event claimed past its tolerance is reported `dead`, not attempted', async () => {
    record();
    const clock = new TestClock();
    const h = await hook();
    const at = clock.t + 10_000;
    await e.ok({ type: 'create_scheduled_event', args: { webhook: h.url, schedule_at: new Date(at).toISOString(), retry_conf: { tolerance_seconds: 60 } } });
    clock.t = at + 61_000;
    await scheduler(clock);
    await eventually(() => reported.length === 1, 10_000, 'the dead event');
    expect(reported.map((r) => [r.queue, r.outcome, r.sinceDue])).toEqual([['one_off', 'dead', 61]]);
    expect(h.received).toHaveLength(0);
  });

  it('a one-off scheduled event is `one_off`, each attempt reported, measured from its time', async () => {
    record();
    const clock = new TestClock();
    const h = await hook(500);
    await scheduler(clock);
    const at = clock.t + 10_000;
    await e.ok({ type: 'create_scheduled_event', args: { webhook: h.url, schedule_at: new Date(at).toISOString(), retry_conf: { num_retries: 1, retry_interval_seconds: 5 } } });
    clock.t = at + 2_500;
    await eventually(() => reported.length === 1, 10_000, 'first attempt');
    // The retry is due retry_interval_seconds after the clock's time when the attempt is recorded.
    await eventually(async () => (await e.db.query<{ tries: number }>('SELECT tries FROM engine_catalog.scheduled_events'))[0]?.tries === 1, 10_000, 'first attempt recorded');
    clock.t = at + 8_000;
    await eventually(() => reported.length === 2, 10_000, 'the retry');
    expect(reported.map((r) => [r.queue, r.outcome, r.sinceDue])).toEqual([['one_off', 'retry', 2.5], ['one_off', 'error', 8]]);
  });

  it('an event trigger\'s events are `event_trigger`, measured from their creation', async () => {
    record();
    const h = await hook();
    await e.ok({ type: 'create_event_trigger', args: { name: 'items', table: 'item', webhook: h.url, insert: { columns: '*' } } });
    await startProcessor(e, { pollMs: 30 });
    const before = Date.now();
    await e.sql('insert into item values (1)');
    await eventually(() => reported.length === 1, 10_000, 'the delivery');
    const waited = (Date.now() - before) / 1000;
    expect(reported[0]).toMatchObject({ queue: 'event_trigger', outcome: 'delivered' });
    // From the row's creation (the database's clock), never negative, and no longer than the test waited (plus skew).
    expect(reported[0]?.sinceDue).toBeGreaterThanOrEqual(0);
    expect(reported[0]?.sinceDue).toBeLessThan(waited + 1);
    expect(reported[0]?.seconds).toBeLessThanOrEqual((reported[0]?.sinceDue ?? 0) + 1);
  });
});
