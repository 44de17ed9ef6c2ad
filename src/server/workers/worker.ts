import { setMaxListeners } from 'node:events';
import type { Database, Session } from '../../db/database.js';
import type { Logger } from '../../logger.js';
import { holdInstanceLock, releaseInstanceLock } from './instance.js';

/**
 * What the event processor and the asynchronous action worker share: the session that holds the instance's advisory
 * lock and listens on the channel whose notifications wake the worker, the reconnect after a lost session (with the
 * same instance id), the fallback poll, the pump that claims as long as there may be more, and the graceful stop.
 */

export interface WorkerSettings {
  /** Names the worker in log lines ("event processor"). */
  name: string;
  /** Notified when rows are added, so that work starts at once. */
  channel: string;
  logger: Logger;
  pollMs: number;
  /** How long a graceful stop waits for the work in flight. */
  graceMs: number;
}

export abstract class Worker {
  protected session: Session | null = null;
  protected me = 0;
  protected stopping = false;
  /** Every call in flight listens on the one stop signal. */
  protected readonly abort = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private pumping: Promise<void> | null = null;
  private again = false;
  private idle: (() => void) | null = null;

  protected constructor(protected readonly db: Database, protected readonly settings: WorkerSettings) {
    setMaxListeners(0, this.abort.signal);
  }

  /** One claim round; true when another round may find more. Throwing ends the pump until the next wake-up. */
  protected abstract claimRound(): Promise<boolean>;
  /** Calls in flight, which a graceful stop waits for. */
  protected abstract busy(): number;
  /** After the stop signal: records what finished. */
  protected abstract drain(): Promise<void>;
  /** Gives back every row this instance still holds. */
  protected abstract releaseAll(): Promise<void>;

  /** The instance id that `locked_by` of this worker's rows holds. */
  get instanceId(): number {
    return this.me;
  }

  /**
   * `claimAtOnce` false: the first claim waits for the first poll or notification (`engine serve` keeps its first
   * claims, cold statements of ~100 ms, out of the way of its first requests).
   */
  protected async begin(claimAtOnce = true): Promise<void> {
    await this.connect();
    this.timer = setInterval(() => this.wake(), this.settings.pollMs);
    this.timer.unref();
    if (claimAtOnce) this.wake();
  }

  /** Opens the session holding the instance lock and listening; after a lost connection, with the same id. */
  private async connect(): Promise<void> {
    const session = await this.db.openSession();
    try {
      this.me = await holdInstanceLock(session, this.me || undefined);
      await session.listen(this.settings.channel, () => this.wake());
    } catch (e) {
      await session.close();
      throw e;
    }
    session.onLost((err) => {
      this.session = null;
      this.settings.logger.warn(`${this.settings.name}: database session lost (${err.message}); reconnecting`);
      void this.reconnect();
    });
    this.session = session;
  }

  private async reconnect(): Promise<void> {
    while (!this.stopping && !this.session) {
      await new Promise((r) => setTimeout(r, this.settings.pollMs));
      if (this.stopping) return;
      try {
        await this.connect();
        this.wake();
      } catch (e) {
        this.settings.logger.debug(`${this.settings.name}: reconnect failed: ${message(e)}`);
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
      try {
        if (await this.claimRound()) this.again = true;
      } catch (e) {
        this.settings.logger.warn(`${this.settings.name}: claiming failed: ${message(e)}`);
        return;
      }
    } while (this.again);
  }

  /** To be called when calls in flight end: a stop waiting for them goes on at none. */
  protected settled(): void {
    if (this.busy() === 0) this.idle?.();
  }

  /**
   * Graceful stop: no more claims; calls in flight get `graceMs` to finish and be recorded, the rest are cancelled
   * and their rows released; then the instance lock goes.
   */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    clearInterval(this.timer);
    while (this.pumping) await this.pumping;
    if (this.busy() > 0) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, this.settings.graceMs);
        this.idle = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
    this.abort.abort(new Error('the engine is stopping'));
    await this.drain();
    const session = this.session;
    this.session = null;
    try {
      await this.releaseAll();
      if (session) await releaseInstanceLock(session, this.me);
    } catch (e) {
      this.settings.logger.warn(`${this.settings.name}: releasing locks failed: ${message(e)}`);
    } finally {
      await session?.close();
    }
  }
}

export const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));
