/**
 * Thousands separators for counts in messages and reports: 131072 -> "131,072", as
 * `toLocaleString('en-US')` writes it. An integer is grouped here: the first toLocaleString of a
 * process loads ICU's number formats (~10 ms), which a run that names one large file paid.
 */
export function formatCount(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString('en-US');
  const digits = String(Math.abs(n));
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return n < 0 || Object.is(n, -0) ? `-${out}` : out;
}

/** "1 file", "3 files". */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
