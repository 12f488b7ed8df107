/** The first index of a sorted string list whose entry is not below `item` (the list's length when none). */
export function lowerBound(sorted: readonly string[], item: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] as string) < item) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
