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

/**
 * `make(key, ...inputs)` kept per key object for as long as the inputs stay the same (each
 * compared with ===; pass a value compared by content as a string): made again when they differ.
 */
export function weakMemoWith<K extends object, I extends readonly unknown[], V>(make: (key: K, ...inputs: I) => V): (key: K, ...inputs: I) => V {
  const held = new WeakMap<K, { inputs: I; value: V }>();
  return (key, ...inputs) => {
    const last = held.get(key);
    if (last !== undefined && last.inputs.length === inputs.length && last.inputs.every((input, i) => input === inputs[i])) return last.value;
    const value = make(key, ...inputs);
    held.set(key, { inputs, value });
    return value;
  };
}
