import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compareCodePoints, pathKey } from '../../src/metadata/json.js';

/** The obvious definition: compare the code points one by one. */
function reference(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0) ?? 0);
  const y = [...b].map((c) => c.codePointAt(0) ?? 0);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  return x.length - y.length;
}

describe('compareCodePoints', () => {
  it('orders like code points, not UTF-16 units', () => {
    // U+FF5E (one unit, 0xFF5E) sorts before U+1F600 (surrogates 0xD83D…), unlike the default string order.
    expect(compareCodePoints('\uff5e', '😀')).toBeLessThan(0);
    expect('\uff5e' < '😀').toBe(false);
    expect(compareCodePoints('a', 'ab')).toBeLessThan(0);
    expect(compareCodePoints('b', 'a')).toBeGreaterThan(0);
    expect(compareCodePoints('é', 'é')).toBe(0);
  });

  it('agrees in sign with the reference on arbitrary strings (property)', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
      expect(Math.sign(compareCodePoints(a, b))).toBe(Math.sign(reference(a, b)));
    }), { numRuns: 2000, seed: 7 });
  });
});

describe('pathKey', () => {
  it('uses .key for simple keys and [\'key\'] otherwise, escaping quotes', () => {
    expect(pathKey('$.args', 'table')).toBe('$.args.table');
    expect(pathKey('$', 'a b')).toBe("$['a b']");
    expect(pathKey('$', "it's")).toBe("$['it\\'s']");
    expect(pathKey('$', '1x')).toBe("$['1x']");
  });
});
