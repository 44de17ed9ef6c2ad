const GONE: unique symbol = Symbol('gone');
type Slot<V> = V | typeof GONE;

/** Lookups walk at most this many layers; a deeper copy is flattened (so a copy costs O(n) once per this many). */
const MAX_DEPTH = 16;
/** How far back `changedKeys` can trace a map's history; older versions are let go. */
const MAX_HOPS = 64;

/**
 * A Map whose copies are cheap and remember what changed: `derive()` answers a copy in O(1) that stores only its own
 * changes over this map (which is frozen from then on: a later write to it throws), and `changedKeys(a, b)` answers
 * the keys set or deleted between a version and a later copy of it in O(changes). The metadata and the schema cache
 * keep their tables in these, so one change at 10,000 tables costs what it costs at 100 (issue 18).
 * Iteration order is a Map's, except that a key deleted and set again in one copy keeps its old place. Values are
 * never undefined.
 */
export class VersionedMap<K, V> implements Map<K, V> {
  private readonly own: Map<K, Slot<V>>;
  private readonly parent: VersionedMap<K, V> | null;
  private readonly depth: number;
  private count: number;
  private frozen = false;
  /** The version this one was derived from, with the keys written since. */
  private readonly prev: VersionedMap<K, V> | null;
  private readonly hops: number;
  private readonly touched = new Set<K>();

  private constructor(own: Map<K, Slot<V>>, parent: VersionedMap<K, V> | null, count: number, prev: VersionedMap<K, V> | null) {
    this.own = own;
    this.parent = parent;
    this.depth = parent ? parent.depth + 1 : 0;
    this.count = count;
    this.prev = prev && prev.hops < MAX_HOPS ? prev : null;
    this.hops = this.prev ? this.prev.hops + 1 : 0;
  }

  /** A versioned copy of any map (O(n)); of a VersionedMap, its O(1) derived copy. */
  static of<K, V>(map: ReadonlyMap<K, V>): VersionedMap<K, V> {
    if (map instanceof VersionedMap) return (map as VersionedMap<K, V>).derive();
    return new VersionedMap<K, V>(new Map(map), null, map.size, null);
  }

  /** A copy that records its own writes; this map may no longer be written. */
  derive(): VersionedMap<K, V> {
    this.frozen = true;
    if (this.depth + 1 >= MAX_DEPTH) return new VersionedMap<K, V>(new Map(this.entries()), null, this.count, this);
    return new VersionedMap<K, V>(new Map(), this, this.count, this);
  }

  /**
   * The keys written between `from` and `to` when `to` is `from` or a copy of a copy … of it (within MAX_HOPS), else
   * null: the caller then compares the two maps whole.
   */
  static changedKeys<K, V>(from: ReadonlyMap<K, V>, to: ReadonlyMap<K, V>): Set<K> | null {
    if (from === to) return new Set();
    if (!(to instanceof VersionedMap)) return null;
    const out = new Set<K>();
    for (let m: VersionedMap<K, V> | null = to as VersionedMap<K, V>; m; m = m.prev) {
      if (m === from) return out;
      for (const k of m.touched) out.add(k);
    }
    return null;
  }

  /**
   * The nearest version at or before this one that `known` has a value for, with the keys written since; null when
   * there is none within MAX_HOPS. For values derived from the map that can be brought forward key by key.
   */
  static nearest<K, V, T>(map: VersionedMap<K, V>, known: { get(map: VersionedMap<K, V>): T | undefined }): { value: T; changed: Set<K> } | null {
    const changed = new Set<K>();
    for (let m: VersionedMap<K, V> | null = map; m; m = m.prev) {
      const value = known.get(m);
      if (value !== undefined) return { value, changed };
      for (const k of m.touched) changed.add(k);
    }
    return null;
  }

  /** No more writes: a value derived from this version (memoised by the caller) stays true. */
  freeze(): this {
    this.frozen = true;
    return this;
  }

  private slot(key: K): Slot<V> | undefined {
    const s = this.own.get(key);
    return s !== undefined || !this.parent ? s : this.parent.slot(key);
  }

  private writable(): void {
    if (this.frozen) throw new Error('internal error: a VersionedMap was written after it was copied');
  }

  get size(): number {
    return this.count;
  }

  get(key: K): V | undefined {
    const s = this.slot(key);
    return s === GONE ? undefined : s;
  }

  has(key: K): boolean {
    const s = this.slot(key);
    return s !== undefined && s !== GONE;
  }

  set(key: K, value: V): this {
    this.writable();
    if (!this.has(key)) this.count++;
    this.own.set(key, value);
    this.touched.add(key);
    return this;
  }

  delete(key: K): boolean {
    this.writable();
    if (!this.has(key)) return false;
    this.count--;
    if (this.parent) this.own.set(key, GONE);
    else this.own.delete(key);
    this.touched.add(key);
    return true;
  }

  clear(): void {
    for (const k of [...this.keys()]) this.delete(k);
  }

  *entries(): MapIterator<[K, V]> {
    const layers: VersionedMap<K, V>[] = [this];
    for (let m = this.parent; m; m = m.parent) layers.push(m);
    const root = layers.pop() as VersionedMap<K, V>;
    // The newest slot of every key written above the root, then the root's keys in order, then the keys new above it.
    const overlay = new Map<K, Slot<V>>();
    for (const layer of layers) for (const [k, s] of layer.own) if (!overlay.has(k)) overlay.set(k, s);
    for (const [k, v] of root.own) {
      const s = overlay.has(k) ? overlay.get(k) as Slot<V> : v;
      if (s !== GONE) yield [k, s];
    }
    const added = new Set<K>();
    for (const layer of layers.reverse()) {
      for (const k of layer.own.keys()) {
        if (root.own.has(k) || added.has(k)) continue;
        added.add(k);
        const s = overlay.get(k) as Slot<V>;
        if (s !== GONE) yield [k, s];
      }
    }
  }

  *keys(): MapIterator<K> {
    for (const [k] of this.entries()) yield k;
  }

  *values(): MapIterator<V> {
    for (const [, v] of this.entries()) yield v;
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }

  forEach(fn: (value: V, key: K, map: Map<K, V>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
  }

  get [Symbol.toStringTag](): string {
    return 'Map';
  }
}
