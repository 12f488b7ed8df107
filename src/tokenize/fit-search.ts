/**
 * Search for the largest cut point that fits a token budget, with few `count()` calls.
 *
 * Token counts of prefixes (or suffixes) grow with their length, but BPE is not additive, so
 * the predicate is only nearly monotone: callers must re-check the string they finally build.
 * Starting from a guess derived from the text's own chars/token ratio, the search gallops to
 * bracket the answer and then bisects: O(log error) calls, each on a string about the size of
 * the budget, instead of O(log n) calls on the whole text.
 */

/** Smallest first step of the gallop, in characters. */
const MIN_STEP_CHARS = 8;

/**
 * Largest `k` in `[lo, hi]` with `fits(k)`, assuming `fits` is true up to some point and false
 * after it. Returns `lo - 1` when even `fits(lo)` is false.
 */
export function largestFitting(lo: number, hi: number, guess: number, fits: (k: number) => boolean): number {
  if (hi < lo) return lo - 1;
  const start = Math.min(hi, Math.max(lo, Math.round(guess)));
  let good: number;
  let bad: number;
  let step = Math.max(MIN_STEP_CHARS, Math.ceil(start / 32));
  if (fits(start)) {
    good = start;
    for (;;) {
      if (good >= hi) return hi;
      const next = Math.min(hi, good + step);
      if (!fits(next)) {
        bad = next;
        break;
      }
      good = next;
      step *= 2;
    }
  } else {
    bad = start;
    for (;;) {
      if (bad <= lo) return lo - 1;
      const next = Math.max(lo, bad - step);
      if (fits(next)) {
        good = next;
        break;
      }
      bad = next;
      step *= 2;
    }
  }
  while (bad - good > 1) {
    const mid = good + Math.floor((bad - good) / 2);
    if (fits(mid)) good = mid;
    else bad = mid;
  }
  return good;
}

/** Characters per token of a text, for guessing where a budget ends. Never 0. */
export function charsPerToken(length: number, tokens: number): number {
  return tokens > 0 && length > 0 ? length / tokens : 4;
}

/** Grapheme clusters are short; this much context around a cut decides where clusters begin. */
const GRAPHEME_WINDOW = 64;
/** Stateless: segmenting has no side effects, so one shared instance is safe. Made on first use (~12 ms of ICU set-up). */
let graphemes: Intl.Segmenter | undefined;

/**
 * Move a cut point back to the start of the grapheme cluster it falls in, so a cut never
 * separates an emoji from its modifiers, a letter from its combining marks, or a surrogate pair.
 */
export function safeCutBefore(text: string, k: number): number {
  const bounds = clusterAround(text, k);
  return bounds ? bounds.start : k;
}

/** Move a cut point forward to the end of the grapheme cluster it falls in. */
export function safeCutAfter(text: string, k: number): number {
  const bounds = clusterAround(text, k);
  return bounds ? bounds.end : k;
}

/** The cluster strictly containing position k (a cut inside it), if any. */
function clusterAround(text: string, k: number): { start: number; end: number } | undefined {
  if (k <= 0 || k >= text.length) return undefined;
  const from = Math.max(0, k - GRAPHEME_WINDOW);
  const window = text.slice(from, Math.min(text.length, k + GRAPHEME_WINDOW));
  graphemes ??= new Intl.Segmenter('en', { granularity: 'grapheme' });
  for (const { index, segment } of graphemes.segment(window)) {
    const start = from + index;
    const end = start + segment.length;
    if (start < k && k < end) return { start, end };
    if (start >= k) return undefined;
  }
  return undefined;
}
