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
    const i = ls.lastIndexOf(listener);
    if (i >= 0) ls.splice(i, 1);
  }
}
