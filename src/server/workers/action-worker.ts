import { setMaxListeners } from 'node:events';
import type { Database, Session } from '../../db/database.js';
import { silentLogger, type Logger } from '../../logger.js';
import { ACTIONS_CHANNEL } from '../catalog.js';
import type { AsyncTarget } from '../graphql/async-action.js';
import type { Env } from '../outbound/index.js';
import { makeCall } from './action-delivery.js';
import { claimCalls, recordCalls, releaseCalls, type CallOutcome, type ClaimedCall } from './action-store.js';
import { holdInstanceLock, releaseInstanceLock } from './instance.js';

/**
 * The asynchronous action worker of one engine instance (engine-api.md §5.2.4). An insert into action_log notifies
 * at commit (a statement trigger), which wakes the worker at once; it also polls every second. It claims `created`
 * rows in batches of up to 10 (FOR UPDATE SKIP LOCKED), marks them `processing` under its instance id, calls the
 * handlers concurrently, and records `completed` or `error`.
 *
 * Crashed or slow: while the worker runs, its session holds the instance's advisory lock (instance.ts). A row
 * `processing` under an instance whose lock is gone (its process died, `kill -9` included, or its connection was
 * lost) is free and claimed again by any instance; a slow handler's row stays with its live instance, however long
 * it takes. A handler may thus be called more than once for one id (no automatic retry otherwise).
 */

const BATCH = 10;

export interface ActionWorkerOptions {
  /** The asynchronous actions of the current metadata, by name (read at each claim). */
  targets: () => Promise<Map<string, AsyncTarget>>;
  logger?: Logger;
  env?: Env;
  maxInFlight?: number;
  pollMs?: number;
  /** How long a graceful stop waits for calls in flight before cancelling them. */
  graceMs?: number;
  /** Claim at once (default), or first at the first poll (as the event processor's claimOnStart). */
  claimOnStart?: boolean;
}

export class ActionWorker {
  private session: Session | null = null;
  private me = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;
  private readonly abort = new AbortController();
  private inFlight = 0;
  private pumping: Promise<void> | null = null;
  private again = false;
  private readonly recording = new Set<Promise<void>>();
  private idle: (() => void) | null = null;
  private readonly logger: Logger;
  private readonly env: Env;
  private readonly maxInFlight: number;
  private readonly pollMs: number;
  private readonly graceMs: number;

  private constructor(private readonly db: Database, private readonly opts: ActionWorkerOptions) {
    this.logger = opts.logger ?? silentLogger;
    this.env = opts.env ?? process.env;
    this.maxInFlight = opts.maxInFlight ?? 100;
    this.pollMs = opts.pollMs ?? 1000;
    this.graceMs = opts.graceMs ?? 10_000;
  }

  static async start(db: Database, opts: ActionWorkerOptions): Promise<ActionWorker> {
    const w = new ActionWorker(db, opts);
    setMaxListeners(0, w.abort.signal);
    await w.connect();
    w.timer = setInterval(() => w.wake(), w.pollMs);
    w.timer.unref();
    if (opts.claimOnStart ?? true) w.wake();
    return w;
  }

  /** The instance id that `locked_by` of this worker's rows holds. */
  get instanceId(): number {
    return this.me;
  }

  private async connect(): Promise<void> {
    const session = await this.db.openSession();
    try {
      this.me = await holdInstanceLock(session, this.me || undefined);
      await session.listen(ACTIONS_CHANNEL, () => this.wake());
    } catch (e) {
      await session.close();
      throw e;
    }
    session.onLost((err) => {
      this.session = null;
      this.logger.warn(`action worker: database session lost (${err.message}); reconnecting`);
      void this.reconnect();
    });
    this.session = session;
  }

  private async reconnect(): Promise<void> {
    while (!this.stopping && !this.session) {
      await new Promise((r) => setTimeout(r, this.pollMs));
      if (this.stopping) return;
      try {
        await this.connect();
        this.wake();
      } catch (e) {
        this.logger.debug(`action worker: reconnect failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }

  /** Claims as long as there is room and there may be more; concurrent wake-ups fold into one more round. */
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
      // Without its session the instance holds no advisory lock: its rows could be taken over at once.
      if (this.stopping || !this.session) return;
      const room = Math.min(BATCH, this.maxInFlight - this.inFlight);
      if (room <= 0) return;
      try {
        const targets = await this.opts.targets();
        const claimed = await claimCalls(this.db, this.me, [...targets.keys()], room);
        for (const row of claimed) {
          const target = targets.get(row.action_name);
          if (target) this.start(target, row);
        }
        if (claimed.length === room) this.again = true;
      } catch (e) {
        this.logger.warn(`action worker: fetching calls failed: ${e instanceof Error ? e.message : String(e)}`);
        return;
      }
    } while (this.again);
  }

  private start(target: AsyncTarget, row: ClaimedCall): void {
    this.inFlight++;
    const done = (async () => {
      let outcome: CallOutcome | null = null;
      try {
        outcome = await makeCall(target, row, this.env, this.abort.signal);
      } catch (e) {
        this.logger.error(`action worker: call ${row.id} of "${row.action_name}" failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
        outcome = { id: row.id, ok: false, errors: { path: '$', error: 'internal error', code: 'unexpected' } };
      }
      // Cut short by a stop past its grace period: not a call; the row is released with the rest.
      if (!this.abort.signal.aborted) {
        this.logger.debug(`action ${row.id} of "${row.action_name}": ${outcome.ok ? 'completed' : 'error'}`);
        await recordCalls(this.db, this.me, [outcome]).catch((e: unknown) => {
          this.logger.warn(`action worker: recording call ${row.id} failed: ${e instanceof Error ? e.message : String(e)}`);
        });
      }
    })().finally(() => {
      this.recording.delete(done);
      this.inFlight--;
      if (this.inFlight === 0) this.idle?.();
      this.wake();
    });
    this.recording.add(done);
  }

  /**
   * Graceful stop: no more claims; calls in flight get `graceMs` to finish and be recorded, the rest are cancelled
   * and their rows set back to `created`; then the instance lock goes.
   */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    clearInterval(this.timer);
    while (this.pumping) await this.pumping;
    if (this.inFlight > 0) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, this.graceMs);
        this.idle = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
    this.abort.abort(new Error('the engine is stopping'));
    await Promise.all([...this.recording]);
    const session = this.session;
    this.session = null;
    try {
      await releaseCalls(this.db, this.me);
      if (session) await releaseInstanceLock(session, this.me);
    } catch (e) {
      this.logger.warn(`action worker: releasing calls failed: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      await session?.close();
    }
  }
}
