/** Thousands separators for counts in messages and reports: 131072 -> "131,072". */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** "1 file", "3 files". */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
