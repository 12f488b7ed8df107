/**
 * `make(key)` worked out once per key object and kept while the key lives: a warm index hands
 * the same collected file list (and what is derived from it) to every query until the tree
 * changes, so what depends on it alone is made once.
 */
export function weakMemo<K extends object, V>(make: (key: K) => V): (key: K) => V {
  const held = new WeakMap<K, V>();
  return (key) => {
    let value = held.get(key);
    if (value === undefined) held.set(key, (value = make(key)));
    return value;
  };
}
