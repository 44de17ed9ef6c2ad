import type { Database, Queryable } from '../../db/database.js';
import { silentLogger, type Logger } from '../../logger.js';
import type { EventTrigger } from '../../metadata/types.js';
import { probes, type DeliveryKind } from '../../probes.js';
import { EVENTS_CHANNEL } from '../catalog.js';
import type { Env } from '../outbound/index.js';
import { attempt } from './event-delivery.js';
import { claimEvents, recordAttempts, releaseEvents, type AttemptResult, type ClaimedEvent, type TriggerRoom } from './event-store.js';
import { message, Worker } from './worker.js';

/**
 * The event processor of one engine instance (engine-api.md §5.3.2). It is woken by the NOTIFY of
 * insert_event_log at commit and polls every second as a fallback; it claims pending events in batches
 * (FOR UPDATE SKIP LOCKED), keeps at most `maxInFlight` deliveries in flight, at most `perTrigger` of them for
 * one trigger (so one slow webhook never holds back the others), and writes results in batches.
 *
 * A delivery's slot is free once its webhook has answered, not once its result is written: the statements that
 * claim and record then overlap the deliveries instead of adding to each one's turn. A trigger whose deliveries
 * end while a claim is out gets as many more claimed ahead (`pace`), kept in a queue and started as slots free, so
 * that a claim's round trip does not leave its slots idle; a trigger whose webhook is slow gets none, so the slots it
 * frees still go to whichever trigger is least busy. Events claimed, in flight or with results not yet written all
 * hold their rows' locks: an instance holds at most `maxHeld`.
 */

/** Claims while deliveries are in flight wait for at least this many to end (at most half of maxInFlight) … */
const MIN_CLAIM = 40;
/** … or after this delay. */
const CLAIM_DELAY_MS = 5;
/**
 * Claims out at once on PostgreSQL: slots freed while one is out need not wait for its round trip. The embedded
 * database runs one statement at a time, so a second claim there would only split the batch.
 */
const MAX_CLAIMS = 2;
/** Results are written as soon as this many wait … */
const FLUSH_BATCH = 50;
/** … or after this delay; and at most this many in one statement. */
const FLUSH_DELAY_MS = 5;
const MAX_FLUSH = 500;

/**
 * What the processor delivers: event-trigger events (below) or scheduled events (scheduled-queue.ts). Rows are
 * claimed per definition ("trigger") with FOR UPDATE SKIP LOCKED and `locked_by` = the instance, as event_log's are.
 */
export interface DeliveryQueue<D, E extends { id: string; trigger_name: string }> {
  /** Names the processor in log lines. */
  name: string;
  /** Notified when rows are added, so that deliveries start at once. */
  channel: string;
  /** The definitions rows may be claimed for, by name (read at each claim). */
  definitions(): Promise<Map<string, D>>;
  /** Runs before each claim round (cron triggers write the events that fell due). */
  prepare?(db: Database, definitions: Map<string, D>): Promise<void>;
  claim(db: Queryable, me: number, rooms: TriggerRoom[], limit: number): Promise<E[]>;
  release(db: Queryable, me: number, ids?: string[]): Promise<void>;
  record(db: Queryable, me: number, results: AttemptResult[]): Promise<void>;
  /** Never throws: every failure is an attempt result. */
  attempt(ev: E, def: D, env: Env, signal: AbortSignal): Promise<AttemptResult>;
  /** What metrics and traces call the row's queue. */
  kind(def: D): DeliveryKind;
  /** Seconds since the row was due: since its creation, or its scheduled time when later (metrics' delivery latency). */
  sinceDue(ev: E): number;
}

/** Seconds from `at` (an ISO time) to `now`, never below 0 (the database's clock may run ahead of the engine's). */
export const secondsSince = (at: string, now: number): number => Math.max(0, (now - Date.parse(at)) / 1000);

/** Event-trigger events (engine-api.md §5.3). */
export const eventQueue = (triggers: () => Promise<Map<string, EventTrigger>>): DeliveryQueue<EventTrigger, ClaimedEvent> => ({
  name: 'event processor', channel: EVENTS_CHANNEL, definitions: triggers, claim: claimEvents, release: releaseEvents, record: recordAttempts, attempt,
  kind: () => 'event_trigger', sinceDue: (ev) => secondsSince(ev.created_at, Date.now()),
});

export interface ProcessorOptions {
  /** The consistent event triggers by name, as of the stored metadata (read at each claim). */
  triggers: () => Promise<Map<string, EventTrigger>>;
  logger?: Logger;
  env?: Env;
  maxInFlight?: number;
  /** Rows an instance holds locked at most: in flight plus results not yet written; default twice maxInFlight. */
  maxHeld?: number;
  /** Default 80% of maxInFlight: one trigger with a slow webhook leaves the rest to the others. */
  perTrigger?: number;
  pollMs?: number;
  /** How long a graceful stop waits for deliveries in flight. */
  graceMs?: number;
  /**
   * Claim at once (default), or first at the first poll: `engine serve` keeps its first claims (cold statements,
   * ~100 ms) out of the way of its first requests; a notification still wakes the processor at once.
   */
  claimOnStart?: boolean;
}

/** One trigger's counts (EventProcessor.tally). */
interface Tally {
  flying: number;
  queued: number;
  reserved: number;
  ended: number;
  /** Its deliveries that ended during the last claim's round trip. */
  pace: number;
}

/** How an attempt ended, as metrics count it. */
const outcome = (r: AttemptResult): 'delivered' | 'retry' | 'error' | 'dead' => (r.delivered ? 'delivered' : r.dead ? 'dead' : r.error ? 'error' : 'retry');

export class EventProcessor<D = EventTrigger, E extends { id: string; trigger_name: string } = ClaimedEvent> extends Worker {
  private readonly queue: DeliveryQueue<D, E>;
  private readonly opts: Required<Omit<ProcessorOptions, 'logger' | 'env' | 'triggers' | 'claimOnStart'>> & { env: Env };
  /** By trigger: deliveries in flight, events waiting for a slot, slots claims out may fill, deliveries ended, pace. */
  private readonly tally = new Map<string, Tally>();
  /** Deliveries in flight in all. */
  private total = 0;
  /** Claimed events waiting for a slot, oldest claim first. */
  private readonly ready: { ev: E; def: D }[] = [];
  /** Deliveries ended since the last claim went out. */
  private freed = 0;
  /** Claims out, and the rows they may bring in all. */
  private claims = 0;
  private reserved = 0;
  private readonly maxClaims: number;
  /** The rows a claim waits for while busy (MIN_CLAIM, at most half of maxInFlight). */
  private readonly batch: number;
  /** A wake-up came while every claim allowed was out. */
  private rewake = false;
  /** Results not yet written: waiting, and being written. */
  private readonly results: AttemptResult[] = [];
  private writing = 0;
  private flushing: Promise<void> | null = null;
  private flushTimer: NodeJS.Timeout | undefined;
  private claimTimer: NodeJS.Timeout | undefined;
  private claimDue = false;
  private retryTimer: { at: number; timer: NodeJS.Timeout } | null = null;

  private constructor(db: Database, queue: DeliveryQueue<D, E>, opts: Omit<ProcessorOptions, 'triggers'>) {
    const maxInFlight = opts.maxInFlight ?? 100;
    const pollMs = opts.pollMs ?? 1000;
    const graceMs = opts.graceMs ?? 10_000;
    super(db, { name: queue.name, channel: queue.channel, logger: opts.logger ?? silentLogger, pollMs, graceMs });
    this.queue = queue;
    this.maxClaims = db.kind === 'embedded' ? 1 : MAX_CLAIMS;
    this.batch = Math.min(MIN_CLAIM, Math.ceil(maxInFlight / 2));
    this.opts = {
      env: opts.env ?? process.env, maxInFlight, maxHeld: Math.max(maxInFlight, opts.maxHeld ?? 2 * maxInFlight),
      perTrigger: opts.perTrigger ?? Math.max(1, Math.floor(maxInFlight * 0.8)), pollMs, graceMs,
    };
  }

  static async start(db: Database, opts: ProcessorOptions): Promise<EventProcessor> {
    return EventProcessor.startQueue(db, eventQueue(opts.triggers), opts);
  }

  static async startQueue<D2, E2 extends { id: string; trigger_name: string }>(
    db: Database, queue: DeliveryQueue<D2, E2>, opts: Omit<ProcessorOptions, 'triggers'>,
  ): Promise<EventProcessor<D2, E2>> {
    const p = new EventProcessor<D2, E2>(db, queue, opts);
    await p.begin(opts.claimOnStart ?? true);
    return p;
  }

  protected busy(): number {
    return this.total + this.reserved;
  }

  private of(trigger: string): Tally {
    let t = this.tally.get(trigger);
    if (!t) {
      t = { flying: 0, queued: 0, reserved: 0, ended: 0, pace: 0 };
      this.tally.set(trigger, t);
    }
    return t;
  }

  protected async claimRound(): Promise<boolean> {
    if (this.claims >= this.maxClaims) {
      this.rewake = true;
      return false;
    }
    const { maxInFlight, perTrigger, maxHeld } = this.opts;
    const held = this.total + this.ready.length + this.reserved;
    let ahead = 0;
    for (const t of this.tally.values()) ahead += Math.min(perTrigger, t.pace);
    const room = Math.min(maxInFlight + Math.min(maxInFlight, ahead) - held, maxHeld - held - this.results.length - this.writing);
    if (room <= 0) return false;
    const triggers = await this.queue.definitions();
    const rooms = [...triggers.keys()].map((name) => {
      const t = this.of(name);
      const busy = t.flying + t.queued + t.reserved;
      return { name, busy, room: Math.max(0, Math.min(room, perTrigger + Math.min(perTrigger, t.pace) - busy)) };
    });
    const claimable = Math.min(room, rooms.reduce((n, t) => n + t.room, 0));
    if (claimable === 0) return false;
    // While busy, a claim waits until it is worth a statement: with another claim out, until it can bring a batch
    // (that claim's return wakes the next round); otherwise until a batch of deliveries ended, or for a moment.
    const { batch } = this;
    if (held > 0 && this.claims > 0 && claimable < batch) {
      this.rewake = true;
      return false;
    }
    if (held > 0 && this.claims === 0 && this.freed < batch && !this.claimDue) {
      this.claimTimer ??= setTimeout(() => {
        this.claimTimer = undefined;
        this.claimDue = true;
        this.wake();
      }, CLAIM_DELAY_MS);
      return false;
    }
    this.claimDue = false;
    await this.queue.prepare?.(this.db, triggers);
    this.freed = 0;
    this.reserve(rooms, room, 1);
    void this.claim(triggers, rooms, room);
    // Every room is reserved now: what frees up meanwhile, or a full batch, wakes the next round.
    return false;
  }

  private reserve(rooms: TriggerRoom[], room: number, sign: 1 | -1): void {
    this.claims += sign;
    this.reserved += sign * room;
    for (const r of rooms) this.of(r.name).reserved += sign * r.room;
  }

  /** One claim statement; what it brings starts at once, or waits in `ready` for a slot. */
  private async claim(triggers: Map<string, D>, rooms: TriggerRoom[], room: number): Promise<void> {
    const ended = rooms.map((r) => this.of(r.name).ended);
    let more = false;
    try {
      const claimed = await this.queue.claim(this.db, this.me, rooms, room);
      // A trigger's pace: its deliveries that ended during this round trip, which the next claim may bring ahead.
      rooms.forEach((r, i) => {
        const t = this.of(r.name);
        t.pace = t.ended - (ended[i] ?? 0);
      });
      for (const [name, t] of this.tally) if (!triggers.has(name) && t.flying + t.queued + t.reserved === 0) this.tally.delete(name);
      const excess: string[] = [];
      for (const ev of claimed) {
        const def = triggers.get(ev.trigger_name);
        if (!def || this.stopping) {
          excess.push(ev.id);
          continue;
        }
        this.of(ev.trigger_name).queued++;
        this.ready.push({ ev, def });
      }
      this.startReady();
      await this.queue.release(this.db, this.me, excess);
      // A full batch means more may be waiting; a partial one that had to give rows back too.
      more = claimed.length === room && excess.length < claimed.length;
    } catch (e) {
      this.settings.logger.warn(`${this.settings.name}: claiming failed: ${message(e)}`);
    } finally {
      this.reserve(rooms, room, -1);
    }
    this.settled();
    // A wake-up that found every claim out came while this one's snapshot may have missed its rows.
    if (more || this.rewake) {
      this.rewake = false;
      this.wake();
    }
  }

  /** Starts waiting events, oldest claim first, while slots are free; an event whose trigger is at perTrigger waits. */
  private startReady(): void {
    for (let i = 0; i < this.ready.length && this.total < this.opts.maxInFlight && !this.stopping;) {
      const { ev, def } = this.ready[i] as { ev: E; def: D };
      const t = this.of(ev.trigger_name);
      if (t.flying >= this.opts.perTrigger) {
        i++;
        continue;
      }
      this.ready.splice(i, 1);
      t.queued--;
      t.flying++;
      this.total++;
      void this.deliver(ev, def);
    }
  }

  private async deliver(ev: E, def: D): Promise<void> {
    const probe = probes.delivery;
    const started = probe ? performance.now() : 0;
    const tracer = probes.tracer;
    const result = tracer ? await this.tracedAttempt(tracer, ev, def) : await this.queue.attempt(ev, def, this.opts.env, this.abort.signal);
    if (probe && !this.abort.signal.aborted) {
      probe(this.queue.kind(def), outcome(result), (performance.now() - started) / 1000, this.queue.sinceDue(ev));
    }
    const t = this.of(ev.trigger_name);
    t.flying--;
    t.ended++;
    this.total--;
    this.freed++;
    // Cut short by a stop past its grace period: not an attempt; the lock is released with the rest.
    if (!this.abort.signal.aborted) {
      this.settings.logger.debug(`event ${ev.id} of trigger "${ev.trigger_name}": ${result.delivered ? 'delivered' : result.error ? 'failed, error' : 'failed, will retry'}` +
        (result.status === null ? '' : ` (HTTP ${result.status})`));
      this.results.push(result);
      this.scheduleFlush();
    }
    this.startReady();
    this.settled();
    // A pending gathering timer claims the freed slots anyway, unless enough are free already.
    if (!this.claimTimer || this.freed >= this.batch) this.wake();
  }

  /** An attempt as the first span of a trace of its own; the webhook call is its child, and gets its traceparent. */
  private tracedAttempt(tracer: NonNullable<typeof probes.tracer>, ev: E, def: D): Promise<AttemptResult> {
    const kind = this.queue.kind(def);
    const name = ev.trigger_name === '' ? kind : `${kind} ${ev.trigger_name}`;
    return tracer.span(name, 'consumer', { 'engine.event.queue': kind, 'engine.event.id': ev.id, 'engine.event.trigger': ev.trigger_name || undefined }, async (span) => {
      const result = await this.queue.attempt(ev, def, this.opts.env, this.abort.signal);
      span.set({ 'engine.event.outcome': outcome(result), 'http.response.status_code': result.status ?? undefined });
      if (!result.delivered && !result.dead) span.fail(result.status === null ? 'the webhook was not reached' : `HTTP ${result.status}`);
      return result;
    }, 'root');
  }

  /**
   * One flush at a time: results arriving meanwhile form the next batch. A flush waits FLUSH_DELAY_MS for more
   * results unless a batch is full: the deliveries already happened, only their recording waits.
   */
  private scheduleFlush(): void {
    if (this.flushing) return;
    if (this.results.length < FLUSH_BATCH && !this.stopping) {
      this.flushTimer ??= setTimeout(() => this.startFlush(), FLUSH_DELAY_MS);
      return;
    }
    this.startFlush();
  }

  private startFlush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.flushing || this.results.length === 0) return;
    this.flushing = (async () => {
      while (this.results.length > 0) {
        const batch = this.results.splice(0, MAX_FLUSH);
        this.writing = batch.length;
        await this.record(batch);
        this.writing = 0;
        this.wakeForRetries(batch);
        // Written results free room under maxHeld.
        this.wake();
      }
    })().finally(() => {
      this.flushing = null;
    });
  }

  /** A retry due sooner than the next poll is fetched on time: one timer, for the soonest. */
  private wakeForRetries(batch: AttemptResult[]): void {
    let soonest = Infinity;
    for (const r of batch) if (r.retryIn !== null && r.retryIn * 1000 < this.opts.pollMs) soonest = Math.min(soonest, r.retryIn * 1000);
    if (soonest === Infinity) return;
    const at = Date.now() + soonest + 5;
    if (this.retryTimer && this.retryTimer.at <= at) return;
    if (this.retryTimer) clearTimeout(this.retryTimer.timer);
    const timer = setTimeout(() => {
      this.retryTimer = null;
      this.wake();
    }, soonest + 5);
    timer.unref();
    this.retryTimer = { at, timer };
  }

  /** A batch that cannot be written is retried row by row; a row that still fails is released for another attempt. */
  private async record(batch: AttemptResult[]): Promise<void> {
    try {
      await this.queue.record(this.db, this.me, batch);
      return;
    } catch (e) {
      this.settings.logger.warn(`${this.settings.name}: recording ${batch.length} attempt(s) failed: ${message(e)}`);
    }
    for (const r of batch) {
      try {
        await this.queue.record(this.db, this.me, [r]);
      } catch {
        await this.queue.release(this.db, this.me, [r.id]).catch(() => {});
      }
    }
  }

  protected async drain(): Promise<void> {
    clearTimeout(this.claimTimer);
    if (this.retryTimer) clearTimeout(this.retryTimer.timer);
    this.startFlush();
    while (this.flushing) await this.flushing;
  }

  protected async releaseAll(): Promise<void> {
    await this.queue.release(this.db, this.me);
  }
}
