import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Canceller, InFlight } from '../../src/db/cancel.js';

// Issue 28: the time limits of requests in flight run on one timer, never early and at most a tick (a tenth of the
// limit, 10 ms to 1 s) late; nothing ticks while nothing with a limit is in flight.

describe('InFlight', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('aborts a request once its limit passed, not before, with the timeout reason', () => {
    const f = new InFlight('timeout');
    const c = new Canceller();
    f.add(c, 500);
    vi.advanceTimersByTime(450);
    expect(c.aborted).toBe(false);
    vi.advanceTimersByTime(100);
    expect([c.aborted, c.reason]).toEqual([true, 'timeout']);
    // Nothing left with a limit: the timer stopped.
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a request answered in time is never aborted; one without a limit never is and arms nothing', () => {
    const f = new InFlight('timeout');
    const done = new Canceller();
    const unlimited = new Canceller();
    f.add(done, 100);
    f.add(unlimited, 0);
    f.delete(done);
    vi.advanceTimersByTime(10_000);
    expect([done.aborted, unlimited.aborted]).toEqual([false, false]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a shorter limit shortens the tick: each request meets its own limit', () => {
    const f = new InFlight('timeout');
    const long = new Canceller();
    const short = new Canceller();
    f.add(long, 60_000);
    f.add(short, 200);
    vi.advanceTimersByTime(220);
    expect([short.aborted, long.aborted]).toEqual([true, false]);
    vi.advanceTimersByTime(59_700);
    expect(long.aborted).toBe(false);
    vi.advanceTimersByTime(100);
    expect(long.aborted).toBe(true);
  });

  it('abortAll aborts every request in flight with the given reason', () => {
    const f = new InFlight('timeout');
    const a = new Canceller();
    const b = new Canceller();
    f.add(a, 1000);
    f.add(b, 0);
    f.abortAll('shutdown');
    expect([a.reason, b.reason]).toEqual(['shutdown', 'shutdown']);
  });
});

describe('Canceller listeners', () => {
  it('removed in any order; the rest still run once', () => {
    const c = new Canceller();
    const calls: string[] = [];
    const l = (name: string) => () => calls.push(name);
    const [a, b, d] = [l('a'), l('b'), l('d')];
    c.addEventListener('abort', a);
    c.addEventListener('abort', b);
    c.addEventListener('abort', d);
    c.removeEventListener('abort', d);
    c.removeEventListener('abort', a);
    c.abort('x');
    c.abort('y');
    expect([calls, c.reason]).toEqual([['b'], 'x']);
  });
});
