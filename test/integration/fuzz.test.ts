import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fuzzBody, SETUP_BODIES } from '../../bench/fuzz-bodies.mjs';
import { useTestEngine } from '../helpers/engine.js';

// Issue 11: a smaller, deterministic run of `npm run probe`'s fuzzer (bench/fuzz-bodies.mjs) on the in-process
// engine: fuzzed bodies around every §4.0 operation, with NUL/surrogates, prototype names, huge numbers, deep nesting
// and invalid UTF-8, must never be answered with a 5xx.

const e = useTestEngine({
  setup: async (t) => {
    for (const b of SETUP_BODIES) await t.ok(b);
  },
});

describe('fuzzed request bodies', () => {
  it('500 bodies (fixed seed): no 5xx, and the engine still serves', { timeout: 300_000 }, async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 2 ** 31 - 1 }), async (seed) => {
        const body = fuzzBody(seed);
        const r = await fetch(`${e.url}/v1/query`, { method: 'POST', body });
        const text = await r.text();
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        if (r.status >= 500) throw new Error(`seed ${seed}: ${String(body).slice(0, 300)} → ${r.status} ${text}`);
        expect([200, 400, 409]).toContain(r.status);
        // Fuzzed drops and clears must not leave the later bodies with nothing to reach.
        if (r.status === 200) for (const b of SETUP_BODIES) await e.ok(b);
      }),
      { seed: 11, numRuns: 500, endOnFailure: true },
    );
    expect(statuses.get(400)).toBeGreaterThan(100);
    expect(statuses.get(200)).toBeGreaterThan(10);
    expect((await e.query({ type: 'export_metadata', args: {} })).status).toBe(200);
  });
});
