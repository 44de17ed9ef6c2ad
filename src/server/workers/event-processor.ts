import { setMaxListeners } from 'node:events';
import type { Database, Queryable, Session } from '../../db/database.js';
import { silentLogger, type Logger } from '../../logger.js';
import type { EventTrigger } from '../../metadata/types.js';
import { EVENTS_CHANNEL } from '../catalog.js';
import type { Env } from '../outbound/index.js';
import { attempt } from './event-delivery.js';
import { claimEvents, recordAttempts, releaseEvents, type AttemptResult, type ClaimedEvent, type TriggerRoom } from './event-store.js';
import { holdInstanceLock, releaseInstanceLock } from './instance.js';

/**
 * The event processor of one engine instance (engine-api.md §5.3.2). It is woken by the NOTIFY of
 * insert_event_log at commit and polls every second as a fallback; it claims pending events in batches
 * (FOR UPDATE SKIP LOCKED), keeps at most `maxInFlight` deliveries in flight, at most `perTrigger` of them for
 * one trigger (so one slow webhook never holds back the others), and writes results in batches.
 */

/** Claims while deliveries are in flight wait for at least this many free slots. */
const MIN_CLAIM = 20;
/** … or after this delay. */
const CLAIM_DELAY_MS = 5;
/** Results are written in batches of up to this many … */
const FLUSH_BATCH = 50;
/** … or after this delay. */
const FLUSH_DELAY_MS = 5;

/**
 * What the processor delivers: event-trigger events (below) or scheduled events (scheduled-queue.ts). Rows are
 * claimed per definition ("trigger") with FOR UPDATE SKIP LOCKED and `locked_by` = the instance, as event_log's are.
 */
export interface DeliveryQueue<D, E extends { id: string; trigger_name: string }> {
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
}

/** Event-trigger events (engine-api.md §5.3). */
export const eventQueue = (triggers: () => Promise<Map<string, EventTrigger>>): DeliveryQueue<EventTrigger, ClaimedEvent> => ({
  channel: EVENTS_CHANNEL, definitions: triggers, claim: claimEvents, release: releaseEvents, record: recordAttempts, attempt,
});

export interface ProcessorOptions {
  /** The consistent event triggers by name, as of the stored metadata (read at each claim). */
  triggers: () => Promise<Map<string, EventTrigger>>;
  logger?: Logger;
  env?: Env;
  maxInFlight?: number;
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

export class EventProcessor<D = EventTrigger, E extends { id: string; trigger_name: string } = ClaimedEvent> {
  private readonly db: Database;
  private readonly queue: DeliveryQueue<D, E>;
  private readonly opts: Required<Omit<ProcessorOptions, 'logger' | 'env' | 'triggers' | 'claimOnStart'>> & { env: Env };
  private readonly logger: Logger;
  private session: Session | null = null;
  private me = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;
  private readonly abort = new AbortController();
  /** Claimed and not yet recorded, by trigger. */
  private readonly inFlight = new Map<string, number>();
  private total = 0;
  private pumping: Promise<void> | null = null;
  private again = false;
  private readonly results: AttemptResult[] = [];
  private flushing: Promise<void> | null = null;
  private flushTimer: NodeJS.Timeout | undefined;
  private claimTimer: NodeJS.Timeout | undefined;
  private claimDue = false;
  private idle: (() => void) | null = null;

  private constructor(db: Database, queue: DeliveryQueue<D, E>, opts: Omit<ProcessorOptions, 'triggers'>) {
    this.db = db;
    this.queue = queue;
    this.logger = opts.logger ?? silentLogger;
    const maxInFlight = opts.maxInFlight ?? 100;
    this.opts = {
      env: opts.env ?? process.env, maxInFlight,
      perTrigger: opts.perTrigger ?? Math.max(1, Math.floor(maxInFlight * 0.8)), pollMs: opts.pollMs ?? 1000, graceMs: opts.graceMs ?? 10_000,
    };
  }

  static async start(db: Database, opts: ProcessorOptions): Promise<EventProcessor> {
    return EventProcessor.startQueue(db, eventQueue(opts.triggers), opts);
  }

  static async startQueue<D2, E2 extends { id: string; trigger_name: string }>(
    db: Database, queue: DeliveryQueue<D2, E2>, opts: Omit<ProcessorOptions, 'triggers'>,
  ): Promise<EventProcessor<D2, E2>> {
    const p = new EventProcessor<D2, E2>(db, queue, opts);
    // Every delivery in flight listens on the one stop signal.
    setMaxListeners(0, p.abort.signal);
    await p.connect();
    p.timer = setInterval(() => p.wake(), p.opts.pollMs);
    p.timer.unref();
    if (opts.claimOnStart ?? true) p.wake();
    return p;
  }

  /** The instance id that lock rows of this processor carry. */
  get instanceId(): number {
    return this.me;
  }

  /** Opens the session holding the instance lock and listening; after a lost connection, with the same id. */
  private async connect(): Promise<void> {
    const session = await this.db.openSession();
    try {
      this.me = await holdInstanceLock(session, this.me || undefined);
      await session.listen(this.queue.channel, () => this.wake());
    } catch (e) {
      await session.close();
      throw e;
    }
    session.onLost((err) => {
      this.session = null;
      this.logger.warn(`event processor: database session lost (${err.message}); reconnecting`);
      void this.reconnect();
    });
    this.session = session;
  }

  private async reconnect(): Promise<void> {
    while (!this.stopping && !this.session) {
      await new Promise((r) => setTimeout(r, this.opts.pollMs));
      if (this.stopping) return;
      try {
        await this.connect();
        this.wake();
      } catch (e) {
        this.logger.debug(`event processor: reconnect failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }

  /** Fetches as long as there is room and there may be more; concurrent wake-ups fold into one more round. */
  wake(): void {
    if (this.stopping) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = this.pump().finally(() => {
      this.pumping = null;
    });
  }

  private async pump(): Promise<void> {
    do {
      this.again = false;
      // Without its session the instance holds no advisory lock: its claims could be taken over at once.
      if (this.stopping || !this.session) return;
      const room = this.opts.maxInFlight - this.total;
      if (room <= 0) return;
      // While busy, freed slots are gathered for a moment: one claim per freed slot would cost a statement each.
      if (this.total > 0 && room < Math.min(MIN_CLAIM, this.opts.maxInFlight) && !this.claimDue) {
        this.claimTimer ??= setTimeout(() => {
          this.claimTimer = undefined;
          this.claimDue = true;
          this.wake();
        }, CLAIM_DELAY_MS);
        return;
      }
      this.claimDue = false;
      try {
        const triggers = await this.queue.definitions();
        await this.queue.prepare?.(this.db, triggers);
        const rooms = [...triggers.keys()].map((name) => {
          const busy = this.inFlight.get(name) ?? 0;
          return { name, busy, room: Math.min(room, this.opts.perTrigger - busy) };
        });
        const claimed = await this.queue.claim(this.db, this.me, rooms, room);
        const excess: string[] = [];
        for (const ev of claimed) {
          const trigger = triggers.get(ev.trigger_name);
          const n = this.inFlight.get(ev.trigger_name) ?? 0;
          if (!trigger || n >= this.opts.perTrigger || this.stopping) {
            excess.push(ev.id);
            continue;
          }
          this.inFlight.set(ev.trigger_name, n + 1);
          this.total++;
          void this.deliver(ev, trigger);
        }
        await this.queue.release(this.db, this.me, excess);
        // A full batch means more may be waiting; a partial one that had to give rows back too.
        if (claimed.length === room && excess.length < claimed.length) this.again = true;
      } catch (e) {
        this.logger.warn(`event processor: fetching events failed: ${e instanceof Error ? e.message : String(e)}`);
        return;
      }
    } while (this.again);
  }

  private async deliver(ev: E, trigger: D): Promise<void> {
    const result = await this.queue.attempt(ev, trigger, this.opts.env, this.abort.signal);
    if (this.abort.signal.aborted) {
      // Cut short by a stop past its grace period: not an attempt; the lock is released with the rest.
      this.done(ev.trigger_name);
      return;
    }
    this.logger.debug(`event ${ev.id} of trigger "${ev.trigger_name}": ${result.delivered ? 'delivered' : result.error ? 'failed, error' : 'failed, will retry'}` +
      (result.status === null ? '' : ` (HTTP ${result.status})`));
    this.results.push(result);
    this.scheduleFlush();
  }

  private done(trigger: string, n = 1): void {
    this.inFlight.set(trigger, (this.inFlight.get(trigger) ?? n) - n);
    this.total -= n;
    if (this.total === 0) this.idle?.();
  }

  /**
   * One flush at a time: results arriving meanwhile form the next batch. A flush waits FLUSH_DELAY_MS for more
   * results unless a batch is full: the deliveries already happened, only their recording waits.
   */
  private scheduleFlush(): void {
    if (this.flushing) return;
    if (this.results.length < FLUSH_BATCH && !this.stopping && !this.abort.signal.aborted) {
      this.flushTimer ??= setTimeout(() => {
        this.flushTimer = undefined;
        this.startFlush();
      }, FLUSH_DELAY_MS);
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
        const batch = this.results.splice(0);
        await this.record(batch);
        for (const r of batch) {
          this.done(r.trigger);
          // A retry due sooner than the next poll is fetched on time.
          if (r.retryIn !== null && r.retryIn * 1000 < this.opts.pollMs) setTimeout(() => this.wake(), r.retryIn * 1000 + 5).unref();
        }
        this.wake();
      }
    })().finally(() => {
      this.flushing = null;
    });
  }

  /** A batch that cannot be written is retried row by row; a row that still fails is released for another attempt. */
  private async record(batch: AttemptResult[]): Promise<void> {
    try {
      await this.queue.record(this.db, this.me, batch);
      return;
    } catch (e) {
      this.logger.warn(`event processor: recording ${batch.length} attempt(s) failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    for (const r of batch) {
      try {
        await this.queue.record(this.db, this.me, [r]);
      } catch {
        await this.queue.release(this.db, this.me, [r.id]).catch(() => {});
      }
    }
  }

  /**
   * Graceful stop (§5.3.2): no more fetching; deliveries in flight get `graceMs` to finish and be recorded, the
   * rest are cancelled and their locks released; then the instance lock goes.
   */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    clearInterval(this.timer);
    clearTimeout(this.claimTimer);
    while (this.pumping) await this.pumping;
    if (this.total > 0) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, this.opts.graceMs);
        this.idle = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
    this.abort.abort(new Error('the engine is stopping'));
    this.startFlush();
    while (this.flushing) await this.flushing;
    const session = this.session;
    this.session = null;
    try {
      await this.queue.release(this.db, this.me);
      if (session) await releaseInstanceLock(session, this.me);
    } catch (e) {
      this.logger.warn(`event processor: releasing locks failed: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      await session?.close();
    }
  }
}
