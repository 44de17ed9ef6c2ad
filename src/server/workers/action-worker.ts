import type { Database } from '../../db/database.js';
import { silentLogger, type Logger } from '../../logger.js';
import { ACTIONS_CHANNEL } from '../catalog.js';
import type { AsyncTarget } from '../graphql/actions/index.js';
import type { Env } from '../outbound/index.js';
import { makeCall } from './action-delivery.js';
import { claimCalls, recordCalls, releaseCalls, type CallOutcome, type ClaimedCall } from './action-store.js';
import { message, Worker } from './worker.js';

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

export class ActionWorker extends Worker {
  private inFlight = 0;
  private readonly recording = new Set<Promise<void>>();
  private readonly env: Env;
  private readonly maxInFlight: number;

  private constructor(db: Database, private readonly opts: ActionWorkerOptions) {
    super(db, { name: 'action worker', channel: ACTIONS_CHANNEL, logger: opts.logger ?? silentLogger, pollMs: opts.pollMs ?? 1000, graceMs: opts.graceMs ?? 10_000 });
    this.env = opts.env ?? process.env;
    this.maxInFlight = opts.maxInFlight ?? 100;
  }

  static async start(db: Database, opts: ActionWorkerOptions): Promise<ActionWorker> {
    const w = new ActionWorker(db, opts);
    await w.begin(opts.claimOnStart ?? true);
    return w;
  }

  protected busy(): number {
    return this.inFlight;
  }

  protected async claimRound(): Promise<boolean> {
    const room = Math.min(BATCH, this.maxInFlight - this.inFlight);
    if (room <= 0) return false;
    const targets = await this.opts.targets();
    const claimed = await claimCalls(this.db, this.me, [...targets.keys()], room);
    for (const row of claimed) {
      const target = targets.get(row.action_name);
      if (target) this.start(target, row);
    }
    return claimed.length === room;
  }

  private start(target: AsyncTarget, row: ClaimedCall): void {
    this.inFlight++;
    const { logger } = this.settings;
    const done = (async () => {
      let outcome: CallOutcome | null = null;
      try {
        outcome = await makeCall(target, row, this.env, this.abort.signal);
      } catch (e) {
        logger.error(`action worker: call ${row.id} of "${row.action_name}" failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
        outcome = { id: row.id, ok: false, errors: { path: '$', error: 'internal error', code: 'unexpected' } };
      }
      // Cut short by a stop past its grace period: not a call; the row is released with the rest.
      if (!this.abort.signal.aborted) {
        logger.debug(`action ${row.id} of "${row.action_name}": ${outcome.ok ? 'completed' : 'error'}`);
        await recordCalls(this.db, this.me, [outcome]).catch((e: unknown) => {
          logger.warn(`action worker: recording call ${row.id} failed: ${message(e)}`);
        });
      }
    })().finally(() => {
      this.recording.delete(done);
      this.inFlight--;
      this.settled();
      this.wake();
    });
    this.recording.add(done);
  }

  protected async drain(): Promise<void> {
    await Promise.all([...this.recording]);
  }

  protected async releaseAll(): Promise<void> {
    await releaseCalls(this.db, this.me);
  }
}
