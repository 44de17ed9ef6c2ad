import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VersionedMap } from '../../src/metadata/versioned-map.js';

type Step = { op: 'set'; key: number; value: number } | { op: 'delete'; key: number } | { op: 'derive' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant('set' as const), key: fc.integer({ min: 0, max: 30 }), value: fc.integer() }),
  fc.record({ op: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 30 }) }),
  fc.constant({ op: 'derive' as const }),
);

describe('VersionedMap', () => {
  it('behaves as a Map copied at each derive, and knows the keys written since any earlier version (property)', () => {
    fc.assert(fc.property(fc.array(step, { maxLength: 200 }), fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 5 }), (steps, initial) => {
      let model = new Map(initial.map((k) => [k, k]));
      let m = VersionedMap.of(model);
      const versions: { map: VersionedMap<number, number>; model: Map<number, number> }[] = [{ map: m, model }];
      for (const s of steps) {
        if (s.op === 'derive') {
          m = m.derive();
          model = new Map(model);
          versions.push({ map: m, model });
        } else if (s.op === 'set') {
          m.set(s.key, s.value);
          model.set(s.key, s.value);
        } else {
          expect(m.delete(s.key)).toBe(model.delete(s.key));
        }
      }
      // Every version still reads as the Map it was when it was copied.
      for (const v of versions) {
        expect(v.map.size).toBe(v.model.size);
        expect(new Map(v.map)).toEqual(v.model);
        expect(new Set(v.map.keys())).toEqual(new Set(v.model.keys()));
        for (let k = 0; k <= 30; k++) {
          expect(v.map.has(k)).toBe(v.model.has(k));
          expect(v.map.get(k)).toBe(v.model.get(k));
        }
      }
      // changedKeys covers every key whose value differs, when the history is still known.
      const first = versions[0];
      const last = versions[versions.length - 1];
      if (first && last) {
        const changed = VersionedMap.changedKeys(first.map, last.map);
        if (changed) {
          for (let k = 0; k <= 30; k++) if (first.model.get(k) !== last.model.get(k)) expect(changed.has(k)).toBe(true);
        } else {
          expect(versions.length).toBeGreaterThan(64);
        }
      }
    }), { numRuns: 300, seed: 7 });
  });

  it('keeps a Map\'s insertion order, new keys last', () => {
    const a = VersionedMap.of(new Map([['x', 1], ['y', 2], ['z', 3]]));
    const b = a.derive();
    b.set('w', 4);
    b.set('y', 20);
    b.delete('x');
    const c = b.derive();
    c.set('v', 5);
    expect([...c.entries()]).toEqual([['y', 20], ['z', 3], ['w', 4], ['v', 5]]);
    expect([...a]).toEqual([['x', 1], ['y', 2], ['z', 3]]);
  });

  it('refuses a write to a version that was copied, which would change the copy', () => {
    const a = VersionedMap.of(new Map([['x', 1]]));
    const b = a.derive();
    expect(() => a.set('x', 2)).toThrow(/written after it was copied/);
    expect(() => a.delete('x')).toThrow(/written after it was copied/);
    expect(b.get('x')).toBe(1);
  });

  it('answers null for unrelated maps, so that callers compare them whole', () => {
    const a = VersionedMap.of(new Map([['x', 1]]));
    const b = VersionedMap.of(new Map([['x', 1]]));
    expect(VersionedMap.changedKeys(a, b)).toBeNull();
    expect(VersionedMap.changedKeys(new Map([['x', 1]]), new Map([['x', 1]]))).toBeNull();
    expect(VersionedMap.changedKeys(a, a)).toEqual(new Set());
  });

  it('finds the nearest version a derived value is known for', () => {
    const a = VersionedMap.of(new Map([['x', 1]]));
    const known = new WeakMap<VersionedMap<string, number>, string>([[a, 'at a']]);
    const b = a.derive();
    b.set('y', 2);
    const c = b.derive();
    c.delete('x');
    expect(VersionedMap.nearest(c, known)).toEqual({ value: 'at a', changed: new Set(['y', 'x']) });
    expect(VersionedMap.nearest(a, known)).toEqual({ value: 'at a', changed: new Set() });
    expect(VersionedMap.nearest(VersionedMap.of(new Map<string, number>()), known)).toBeNull();
  });
});
