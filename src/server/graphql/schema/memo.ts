/**
 * `build` computed once per key object, held weakly: for values derived from immutable metadata, catalog or schema
 * cache objects, so that every role's schema (and every request) shares them.
 */
export function memoByObject<K extends object, V>(build: (key: K) => V): (key: K) => V {
  const known = new WeakMap<K, V>();
  return (key) => {
    let v = known.get(key);
    if (v === undefined) {
      v = build(key);
      known.set(key, v);
    }
    return v;
  };
}
