import { describe, expect, it } from 'vitest';
import { Canceller, type CancelSignal } from '../../src/db/cancel.js';

// The per-request cancel signal (issue 28): the request's time limit, a client gone and a stop abort it; the database
// layer listens to it as to an AbortSignal.
describe('Canceller', () => {
  it('calls each listener once, in order, with the reason set; a second abort changes nothing', () => {
    const c = new Canceller();
    const seen: string[] = [];
    c.addEventListener('abort', () => seen.push(`a:${String(c.reason)}`));
    c.addEventListener('abort', () => seen.push(`b:${String(c.aborted)}`));
    c.abort('timeout');
    c.abort('shutdown');
    expect(seen).toEqual(['a:timeout', 'b:true']);
    expect(c.reason).toBe('timeout');
  });

  it('a removed listener is not called; one added after the abort is not called either', () => {
    const c = new Canceller();
    const calls: number[] = [];
    const one = (): void => { calls.push(1); };
    c.addEventListener('abort', one);
    c.addEventListener('abort', () => calls.push(2));
    c.removeEventListener('abort', one);
    c.abort('x');
    c.addEventListener('abort', () => calls.push(3));
    expect(calls).toEqual([2]);
  });

  it('an AbortSignal is a CancelSignal (the workers pass theirs)', () => {
    const a = new AbortController();
    const s: CancelSignal = a.signal;
    const calls: unknown[] = [];
    s.addEventListener('abort', () => calls.push(s.reason), { once: true });
    a.abort('stop');
    expect(calls).toEqual(['stop']);
  });
});
