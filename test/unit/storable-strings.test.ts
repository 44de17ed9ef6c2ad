import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ApiError } from '../../src/errors.js';
import { setOwn, sortKeysDeep, type JsonObject } from '../../src/metadata/json.js';
import { checkStorableStrings, unstorableReason } from '../../src/server/storable-strings.js';

/** The error checkStorableStrings throws for `body`, as {path, message}, or null. */
function failure(body: unknown, root?: string): { path: string; message: string } | null {
  try {
    checkStorableStrings(body, root);
    return null;
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    expect([e.status, e.code]).toEqual([400, 'parse-failed']);
    return { path: e.path, message: e.message };
  }
}

describe('unstorableReason', () => {
  it('names NUL first, then the first lone surrogate; pairs are fine', () => {
    expect(unstorableReason('plain é 😀 \u0001')).toBeNull();
    expect(unstorableReason('a\u0000b')).toBe('a NUL character (\\u0000)');
    expect(unstorableReason('\ud800\u0000')).toBe('a NUL character (\\u0000)');
    expect(unstorableReason('x\udbff')).toBe('a lone surrogate (\\udbff)');
    expect(unstorableReason('\udc00\ud800')).toBe('a lone surrogate (\\udc00)');
    expect(unstorableReason('😀\ude00')).toBe('a lone surrogate (\\ude00)');
  });

  it('agrees with "encodes to UTF-8 and back unchanged, without NUL" (property)', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => {
      const storable = !s.includes('\u0000') && Buffer.from(s, 'utf8').toString('utf8') === s;
      expect(unstorableReason(s) === null).toBe(storable);
    }), { numRuns: 1000, seed: 4 });
  });
});

describe('checkStorableStrings', () => {
  it('reports the first offending string in document order at its §1.5 path', () => {
    expect(failure({ a: ['ok', { 'b c': 'x\u0000' }], z: '\ud800' })).toEqual({
      path: "$.a[1]['b c']", message: 'string contains a NUL character (\\u0000), which PostgreSQL cannot store',
    });
    expect(failure(JSON.parse('{"args":[{"x":1},"\\ud800"]}'), '$.q')).toEqual({
      path: '$.q.args[1]', message: 'string contains a lone surrogate (\\ud800), which PostgreSQL cannot store',
    });
    expect(failure('\u0000')?.path).toBe('$');
    expect(failure({ a: 1, b: [null, true, 2.5], c: 'fine' })).toBeNull();
  });

  it('reports a bad key at the object holding it, before that key\'s value', () => {
    expect(failure({ ok: { 'k\u0000': 'v\ud800' } })).toEqual({
      path: '$.ok', message: 'object key contains a NUL character (\\u0000), which PostgreSQL cannot store',
    });
  });

  it('handles any depth without recursion', () => {
    let deep: unknown = 'end\u0000';
    for (let i = 0; i < 100_000; i++) deep = i % 2 ? [deep] : { k: deep };
    expect(failure(deep)?.message).toMatch(/NUL/);
  });
});

describe('setOwn', () => {
  it('keeps "__proto__" as an own key, as JSON.parse does, where assignment would drop it', () => {
    const parsed = JSON.parse('{"__proto__":{"_eq":1},"b":2}') as JsonObject;
    const assigned: JsonObject = {};
    for (const k of Object.keys(parsed)) assigned[k] = parsed[k] ?? null;
    expect(JSON.stringify(assigned)).toBe('{"b":2}');
    const out: JsonObject = {};
    for (const k of Object.keys(parsed)) setOwn(out, k, parsed[k] ?? null);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"_eq":1},"b":2}');
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(sortKeysDeep(JSON.parse('{"z":{"__proto__":1},"__proto__":[{"__proto__":null}]}')))).toBe(
      '{"__proto__":[{"__proto__":null}],"z":{"__proto__":1}}');
  });
});
