/**
 * What a cancellable piece of work listens to: the part of AbortSignal the engine uses, so that a real AbortSignal
 * (the workers' stop signals) and a Canceller both serve.
 */
export interface CancelSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * An AbortController for the per-request path. Node's costs 7–25 µs to create and listen to (its AbortSignal is an
 * EventTarget), two per GraphQL request were a tenth of a cheap request's time on the peer benchmark (issue 28);
 * this one is a plain object with a listener list. It is its own signal.
 */
export class Canceller implements CancelSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: (() => void)[] | null = null;

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const ls = this.listeners;
    this.listeners = null;
    if (ls) for (const l of ls) l();
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.aborted) return;
    (this.listeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const ls = this.listeners;
    if (!ls) return;
    // Listeners come off in the reverse of their order (a statement's inside a request's): the last, without a splice.
    if (ls[ls.length - 1] === listener) {
      ls.pop();
      return;
    }
    const i = ls.lastIndexOf(listener);
    if (i >= 0) ls.splice(i, 1);
  }
}

/**
 * Work in flight and its time limits, on one timer (issue 28): a Node timer armed and cleared per request cost about
 * 1k instructions of a cheap request's 300k. The timer runs while anything is in flight and ticks every tenth of the
 * shortest limit seen (10 ms to 1 s), so a limit is never early and at most a tick late.
 */
export class InFlight {
  /** Each canceller's deadline (performance.now() ms), Infinity without a limit. */
  private readonly due = new Map<Canceller, number>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private tickMs = MAX_TICK_MS;

  constructor(private readonly timeoutReason: unknown) {}

  add(c: Canceller, limitMs: number): void {
    if (limitMs <= 0) {
      this.due.set(c, Infinity);
      return;
    }
    this.due.set(c, performance.now() + limitMs);
    const tick = Math.min(MAX_TICK_MS, Math.max(MIN_TICK_MS, limitMs / 10));
    if (this.timer === null || tick < this.tickMs) this.arm(tick);
  }

  delete(c: Canceller): void {
    this.due.delete(c);
  }

  /** Aborts everything in flight (a stop's grace period is over). */
  abortAll(reason: unknown): void {
    for (const c of this.due.keys()) c.abort(reason);
  }

  private arm(tick: number): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.tickMs = tick;
    // Unref'd: the work in flight holds its own handle (a socket, the database's), and a stop is not kept waiting.
    this.timer = setInterval(() => this.sweep(), tick).unref();
  }

  private sweep(): void {
    const now = performance.now();
    let timed = false;
    for (const [c, at] of this.due) {
      if (at <= now) {
        this.due.delete(c);
        c.abort(this.timeoutReason);
      } else if (at !== Infinity) timed = true;
    }
    if (!timed && this.timer !== null) {
      clearInterval(this.timer);
      this.timer = null;
      this.tickMs = MAX_TICK_MS;
    }
  }
}

const MIN_TICK_MS = 10;
const MAX_TICK_MS = 1000;
