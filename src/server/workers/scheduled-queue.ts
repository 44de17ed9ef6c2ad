import type { Cron } from 'croner';
import type { Database } from '../../db/database.js';
import type { Json, JsonObject } from '../../metadata/json.js';
import { isObject } from '../../metadata/json.js';
import { cronSchedule, fullRetryConf, type CronTrigger, type ScheduleRetryConf } from '../../metadata/kinds/cron-triggers.js';
import type { Header } from '../../metadata/types.js';
import { SCHEDULED_CHANNEL } from '../catalog.js';
import { systemClock, type Clock } from '../clock.js';
import type { Env } from '../outbound/index.js';
import { deliver } from './event-delivery.js';
import { secondsSince, type DeliveryQueue } from './event-processor.js';
import type { AttemptResult } from './event-store.js';
import { claimScheduled, recordScheduled, releaseScheduled, writeCronEvents, type ClaimedScheduled } from './scheduled-store.js';

/**
 * Cron triggers and one-off scheduled events delivered by the event processor (issue 20). Before each claim the
 * cron times that fell due are written as rows (scheduled-store.ts); a row is then claimed, attempted and recorded
 * like an event-trigger event, with the trigger's (or the one-off event's) webhook, headers and retry_conf.
 */

/** The definitions rows are claimed for: each cron trigger by name, and '' for every one-off event. */
export type ScheduledDef = { kind: 'cron'; trigger: CronTrigger } | { kind: 'one-off' };

/** Missed times further back than this are not written at all, whatever the tolerance. */
const MAX_CATCH_UP_MS = 7 * 24 * 3600 * 1000;
/** At most this many (the latest) missed times of one trigger are written in one catch-up. */
export const MAX_MISSED_TIMES = 1000;

/** The stored definition of a one-off event (create_scheduled_event). */
export interface OneOffDefinition {
  webhook: string;
  headers: Header[];
  retry_conf: Partial<ScheduleRetryConf>;
  payload: Json;
  comment: string | null;
}

function oneOff(def: Json): OneOffDefinition {
  const d = (isObject(def) ? def : {}) as Partial<OneOffDefinition> & JsonObject;
  return {
    webhook: typeof d.webhook === 'string' ? d.webhook : '', headers: Array.isArray(d.headers) ? d.headers : [],
    retry_conf: isObject(d.retry_conf) ? d.retry_conf : {}, payload: d.payload ?? null, comment: d.comment ?? null,
  };
}

/** The body a scheduled webhook receives, keys in this order. */
export function scheduledBody(ev: ClaimedScheduled, name: string | null, payload: Json, comment: string | null): Record<string, Json> {
  return { id: ev.id, name, scheduled_time: ev.scheduled_time, payload, comment };
}

export class ScheduledQueue implements DeliveryQueue<ScheduledDef, ClaimedScheduled> {
  readonly name = 'scheduled-event processor';
  readonly channel = SCHEDULED_CHANNEL;
  private readonly crons: () => Promise<Map<string, CronTrigger>>;
  private readonly clock: Clock;
  /** Per trigger: the schedule last seen and when its next time falls due; nothing is written before then. */
  private readonly due = new Map<string, { schedule: string; cron: Cron; next: number }>();

  constructor(crons: () => Promise<Map<string, CronTrigger>>, clock: Clock = systemClock) {
    this.crons = crons;
    this.clock = clock;
  }

  async definitions(): Promise<Map<string, ScheduledDef>> {
    const out = new Map<string, ScheduledDef>([['', { kind: 'one-off' }]]);
    for (const [name, trigger] of await this.crons()) out.set(name, { kind: 'cron', trigger });
    return out;
  }

  async prepare(db: Database, defs: Map<string, ScheduledDef>): Promise<void> {
    const now = this.clock.now();
    const dueNames: string[] = [];
    for (const [name, def] of defs) {
      if (def.kind !== 'cron') continue;
      let d = this.due.get(name);
      if (!d || d.schedule !== def.trigger.schedule) {
        const cron = cronSchedule(def.trigger.schedule);
        if (typeof cron === 'string') continue;
        d = { schedule: def.trigger.schedule, cron, next: -Infinity };
        this.due.set(name, d);
      }
      if (d.next <= now.getTime()) dueNames.push(name);
    }
    if (dueNames.length === 0) return;
    await writeCronEvents(db, dueNames, now, (name, from) => {
      const def = defs.get(name);
      const d = this.due.get(name);
      if (def?.kind !== 'cron' || !d) return [];
      const tolerance = fullRetryConf(def.trigger.retry_conf).tolerance_seconds * 1000;
      const times: Date[] = [];
      let t = d.cron.nextRun(new Date(Math.max(from.getTime(), now.getTime() - MAX_CATCH_UP_MS)));
      while (t && t.getTime() <= now.getTime()) {
        times.push(t);
        if (times.length > MAX_MISSED_TIMES) times.shift();
        t = d.cron.nextRun(t);
      }
      return times.map((at) => ({ at, status: now.getTime() - at.getTime() > tolerance ? 'dead' as const : 'scheduled' as const }));
    });
    for (const name of dueNames) {
      const d = this.due.get(name);
      if (d) d.next = d.cron.nextRun(now)?.getTime() ?? Infinity;
    }
  }

  claim: DeliveryQueue<ScheduledDef, ClaimedScheduled>['claim'] = (db, me, rooms, limit) => claimScheduled(db, me, rooms, limit, this.clock.now());
  release: DeliveryQueue<ScheduledDef, ClaimedScheduled>['release'] = (db, me, ids) => releaseScheduled(db, me, ids);
  record: DeliveryQueue<ScheduledDef, ClaimedScheduled>['record'] = (db, me, results) => recordScheduled(db, me, results, this.clock.now());

  kind(def: ScheduledDef): 'cron' | 'one_off' {
    return def.kind === 'cron' ? 'cron' : 'one_off';
  }

  /** From the event's time, or its creation when later (a one-off event created past its time), by the queue's clock. */
  sinceDue(ev: ClaimedScheduled): number {
    return secondsSince(ev.created_at > ev.scheduled_time ? ev.created_at : ev.scheduled_time, this.clock.now().getTime());
  }

  async attempt(ev: ClaimedScheduled, def: ScheduledDef, env: Env, signal: AbortSignal): Promise<AttemptResult> {
    const d = def.kind === 'cron'
      ? { webhook: def.trigger.webhook, headers: def.trigger.headers, retry_conf: def.trigger.retry_conf ?? {}, payload: def.trigger.payload ?? null, comment: def.trigger.comment }
      : oneOff(ev.definition);
    const conf = fullRetryConf(d.retry_conf);
    // Late beyond the tolerance (the engine was down, or busy): recorded as dead, never called. A redelivered event is
    // due from when it was asked for again.
    const due = ev.redelivered_at !== null && ev.redelivered_at > ev.scheduled_time ? ev.redelivered_at : ev.scheduled_time;
    if (ev.tries === 0 && this.clock.now().getTime() - Date.parse(due) > conf.tolerance_seconds * 1000) {
      return { id: ev.id, trigger: ev.trigger_name, delivered: false, error: false, dead: true, retryIn: null, status: null, request: 'null', response: null };
    }
    return deliver({
      id: ev.id, trigger: ev.trigger_name, url: d.webhook, headers: d.headers,
      body: JSON.stringify(scheduledBody(ev, def.kind === 'cron' ? def.trigger.name : null, d.payload, d.comment)),
      timeoutSec: conf.timeout_seconds, tries: ev.tries, numRetries: conf.num_retries, intervalSec: conf.retry_interval_seconds,
    }, env, signal);
  }
}
