/**
 * Where a GPT-style BPE count splits exactly. o200k and cl100k first cut text into pre-tokens
 * with a regex and merge only inside one. A pre-token that holds a newline ends at the last
 * newline of its whitespace run, or (o200k: `[\r\n/]*` trails punctuation) takes in newlines
 * and slashes right after one; no other crosses a newline. So just after a newline that is
 * followed by a printable ASCII character other than `/`, or by spaces and tabs and then any
 * printable ASCII character, a pre-token ends, and matching (no look-behind) restarts there:
 * at such a point count(A + B) = count(A) + count(B). Indented lines are split points too, so an
 * edit inside a function costs its own lines, not the whole function. The block costs
 * (src/assemble/block-cost.ts) and the tokenizer's piecewise count (src/tokenize/tokenizer.ts)
 * rely on it; their tests check it against whole counts.
 */
export function isSafeStart(code: number): boolean {
  return code > 0x20 && code < 0x7f && code !== 0x2f;
}

/** Whether `text` splits exactly at `i`, given a newline just before it (text[i - 1], or the end of what `text` follows); only text[i..] is read. */
export function isSafeSplitAt(text: string, i: number): boolean {
  const first = text.charCodeAt(i);
  if (isSafeStart(first)) return true;
  if (first !== 0x20 && first !== 0x09) return false;
  let j = i + 1;
  let code = text.charCodeAt(j);
  while (code === 0x20 || code === 0x09) code = text.charCodeAt(++j);
  // NaN at the end of the text: the run is trailing whitespace, not a split point
  return code > 0x20 && code < 0x7f;
}

/** Index i > `from` with text[i - 1] = '\n' and a safe split at i, else -1. */
export function nextSafeSplit(text: string, from = 0): number {
  let i = text.indexOf('\n', from);
  while (i >= 0 && i + 1 < text.length) {
    if (isSafeSplitAt(text, i + 1)) return i + 1;
    i = text.indexOf('\n', i + 1);
  }
  return -1;
}

/** Each piece of `text` between safe split points, in order: what a piecewise count sums over. */
export function eachPiece(text: string, use: (piece: string) => void): void {
  let start = 0;
  for (let cut = nextSafeSplit(text); cut >= 0; cut = nextSafeSplit(text, cut)) {
    use(text.slice(start, cut));
    start = cut;
  }
  if (start < text.length) use(text.slice(start));
}
