/**
 * Where a GPT-style BPE count splits exactly. o200k and cl100k first cut text into pre-tokens
 * with a regex and merge only inside one. No pre-token pattern crosses a newline into a
 * following printable ASCII character other than `/` (o200k lets `[\r\n/]*` trail
 * punctuation), and matching restarts there, so at such a point
 * count(A + B) = count(A) + count(B). The block costs (src/assemble/block-cost.ts) and the
 * tokenizer's piecewise count (src/tokenize/tokenizer.ts) rely on it; their tests check it
 * against whole counts.
 */
export function isSafeStart(code: number): boolean {
  return code > 0x20 && code < 0x7f && code !== 0x2f;
}

/** Index i > `from` with text[i - 1] = '\n' and text[i] a safe start, else -1. */
export function nextSafeSplit(text: string, from = 0): number {
  let i = text.indexOf('\n', from);
  while (i >= 0 && i + 1 < text.length) {
    if (isSafeStart(text.charCodeAt(i + 1))) return i + 1;
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
