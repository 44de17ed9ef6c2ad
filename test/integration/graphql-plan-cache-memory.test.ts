import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { post } from '../helpers/engine.js';
import { useExampleEngine } from './graphql-fixture.js';

// Issue 28 point 2: distinct documents holding large string literals, sent without credentials (the unauthorized
// role), must not grow the engine's heap without bound: the plan cache is bounded by bytes (64 MB of its estimate),
// keeps one copy of each text, and does not cache a document over 1 MB.

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heap = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const MB = 1024 * 1024;

describe('the plan cache under distinct documents with large literals', () => {
  const e = useExampleEngine({ adminSecret: 'secret', auth: { unauthorizedRole: 'anonymous' } });
  const send = (i: number, chars: number) =>
    post(`${e.url}/v1/graphql`, { query: `{ __type(name: "${String(i).padStart(6, '0')}${'x'.repeat(chars)}") { name } }` });

  it('200 documents of 600 KB: answered, and the heap grows by less than 70 MB (the cache holds at most 64 MB of its estimate)', async () => {
    // Warm up: the role's schema and the first plans exist before the baseline.
    expect((await send(-1, 10)).body).toEqual({ data: { __type: null } });
    const before = heap();
    for (let i = 0; i < 200; i++) {
      const r = await send(i, 600 * 1024);
      expect(r.body).toEqual({ data: { __type: null } });
    }
    const grown = (heap() - before) / MB;
    console.log(`heap grown by ${grown.toFixed(0)} MB`);
    // Unbounded (1,000 documents) and with two copies of each text, the 200 documents held 240 MB.
    expect(grown).toBeLessThan(70);
  });

  it('documents over 1 MB are answered and not cached', async () => {
    // The reset before this test made a new schema cache: the first request drops the previous test's plans.
    await send(-1, 10);
    const before = heap();
    for (let i = 0; i < 30; i++) expect((await send(1000 + i, 2 * MB)).body).toEqual({ data: { __type: null } });
    // Cached as before, with two copies of each text, the 30 documents held 120 MB.
    const grown = (heap() - before) / MB;
    console.log(`heap grown by ${grown.toFixed(0)} MB`);
    expect(grown).toBeLessThan(30);
  });
});
