/**
 * The first index of a list sorted by `keyOf` (the entry itself for strings) whose key is not
 * below `item` (the list's length when none).
 */
export function lowerBound(sorted: readonly string[], item: string): number;
export function lowerBound<T>(sorted: readonly T[], item: string, keyOf: (entry: T) => string): number;
export function lowerBound<T>(sorted: readonly T[], item: string, keyOf: (entry: T) => string = (entry) => entry as unknown as string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (keyOf(sorted[mid] as T) < item) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A copy of a sorted list with `item` in its place. */
export function insertSorted(list: readonly string[], item: string): string[] {
  const at = lowerBound(list, item);
  return [...list.slice(0, at), item, ...list.slice(at)];
}

/** Whether `items` are `list`, in the same order. */
export function sameInOrder(items: Iterable<string>, list: readonly string[]): boolean {
  let i = 0;
  for (const item of items) if (item !== list[i++]) return false;
  return i === list.length;
}
