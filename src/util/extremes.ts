/**
 * The largest and smallest of any number of values. `Math.max(...values)` passes every value as
 * an argument and overflows the stack past ~120k of them (a repository's files, a cache's entries).
 */
export function maxOf(values: Iterable<number>, empty = -Infinity): number {
  let out = empty;
  for (const value of values) if (value > out || Number.isNaN(value)) out = value;
  return out;
}

export function minOf(values: Iterable<number>, empty = Infinity): number {
  let out = empty;
  for (const value of values) if (value < out || Number.isNaN(value)) out = value;
  return out;
}
