import { charsPerToken, largestFitting, safeCutAfter, safeCutBefore } from './fit-search.js';
import type { Tokenizer } from './tokenizer.js';

/**
 * The truncation strategies of spec 001 section 4, plus its `max_lines`:
 * - never:  the whole text or nothing (null);
 * - start:  keep the end (logs, where the recent part matters);
 * - middle: keep the head and the tail (code);
 * - end:    keep the beginning (documents read top-down).
 *
 * Where text was cut a marker line says how much, e.g. `[... 120 lines (3,400 tokens) cut ...]`.
 * Cuts fall on line boundaries unless that would throw away more than half of what fits (one
 * huge minified line), then on characters, never inside a surrogate pair. The result's token
 * count, marker included, never exceeds the budget for the given tokenizer.
 */

export const TRUNCATE_STRATEGIES = ['never', 'start', 'middle', 'end'] as const;
export type TruncateStrategy = (typeof TRUNCATE_STRATEGIES)[number];

export interface TruncateOutcome {
  text: string;
  /** Exact token count of `text`. */
  tokens: number;
  /** Exact token count of the input. */
  originalTokens: number;
  /** True when `text` differs from the input. */
  truncated: boolean;
}

export interface TruncateOptions {
  /** Token budget for the result, marker included. */
  budget: number;
  strategy: TruncateStrategy;
  tokenizer: Tokenizer;
  /** Hard limit on lines kept from the text (the marker line is extra); <= 0 or absent: none. */
  maxLines?: number;
}

/** Re-fitting attempts when the exact marker or a join costs more than the search assumed. */
const MAX_REFITS = 8;

/**
 * Fit `text` into `budget` tokens with a truncation strategy. Returns null when the strategy is
 * `never` and the text does not fit whole (or has more than `maxLines` lines), or when not even
 * the marker plus some of the text fits.
 */
export function truncateWithStrategy(text: string, options: TruncateOptions): TruncateOutcome | null {
  const { budget, strategy, tokenizer } = options;
  const originalTokens = tokenizer.count(text);
  const limits = lineLimits(text, options.maxLines, strategy);
  if (!limits.isCut && originalTokens <= budget) {
    return { text, tokens: originalTokens, originalTokens, truncated: false };
  }
  if (strategy === 'never' || !(budget > 0)) return null;

  const plan: FitPlan = { text, tokenizer, limits, originalTokens, strategy };
  if (limits.isCut) {
    const lineCut = composeCut(plan, limits.headMax, limits.tailMin);
    if (lineCut.tokens <= budget) return { ...lineCut, originalTokens, truncated: true };
  }
  // The search sizes the marker by its longest possible form, and BPE joins are not additive:
  // shrink the target while the exact result overshoots, grow it while budget is left over.
  let best: { text: string; tokens: number; kept: number } | null = null;
  let effective = budget;
  for (let attempt = 0; attempt < MAX_REFITS && effective > 0; attempt++) {
    const cut = findCut(plan, effective);
    if (cut === null) break;
    const result = composeCut(plan, cut.head, cut.tail);
    const kept = cut.head + text.length - cut.tail;
    if (result.tokens > budget) {
      if (best) break;
      effective -= Math.max(1, result.tokens - budget);
      continue;
    }
    if (best && kept <= best.kept) break;
    best = { ...result, kept };
    if (result.tokens === budget) break;
    effective += budget - result.tokens;
  }
  return best ? { text: best.text, tokens: best.tokens, originalTokens, truncated: true } : null;
}

/**
 * Keep at most `maxLines` lines of `text`, choosing which by strategy (middle keeps the first
 * ceil(n/2) and last floor(n/2)), with a marker line where lines were cut. `never` never cuts:
 * truncateWithStrategy excludes such text instead. `maxLines <= 0` means no limit.
 */
export function applyMaxLines(
  text: string,
  maxLines: number,
  strategy: TruncateStrategy,
): { text: string; truncated: boolean } {
  const limits = lineLimits(text, maxLines, strategy);
  if (!limits.isCut || strategy === 'never') return { text, truncated: false };
  const cutLines = countLines(text.slice(limits.headMax, limits.tailMin));
  return { text: joinAroundMarker(text, limits.headMax, limits.tailMin, `[... ${plural(cutLines, 'line')} cut ...]`), truncated: true };
}

/** Number of lines: a trailing newline does not start another line; "" has none. */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let lines = text.endsWith('\n') ? 0 : 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  return lines;
}

interface LineLimits {
  /** The head may keep text[0, headMax). */
  headMax: number;
  /** The tail may keep text[tailMin, length). */
  tailMin: number;
  /** True when max_lines alone already forces a cut. */
  isCut: boolean;
}

interface FitPlan {
  text: string;
  tokenizer: Tokenizer;
  limits: LineLimits;
  originalTokens: number;
  strategy: TruncateStrategy;
}

/** The bounds max_lines puts on the kept head and tail, per strategy. */
function lineLimits(text: string, maxLines: number | undefined, strategy: TruncateStrategy): LineLimits {
  const n = text.length;
  const open: LineLimits =
    strategy === 'start' ? { headMax: 0, tailMin: 0, isCut: false } : strategy === 'end' ? { headMax: n, tailMin: n, isCut: false } : { headMax: n, tailMin: 0, isCut: false };
  if (maxLines === undefined || !(maxLines > 0) || !Number.isFinite(maxLines)) return open;
  const starts = lineStarts(text);
  const max = Math.floor(maxLines);
  if (starts.length <= max) return open;
  const startOf = (line: number) => (line >= starts.length ? n : (starts[line] ?? n));
  if (strategy === 'start') return { headMax: 0, tailMin: startOf(starts.length - max), isCut: true };
  if (strategy === 'middle') {
    const headLines = Math.ceil(max / 2);
    const tailLines = max - headLines;
    return { headMax: startOf(headLines), tailMin: startOf(starts.length - tailLines), isCut: true };
  }
  return { headMax: startOf(max), tailMin: n, isCut: true };
}

function lineStarts(text: string): number[] {
  if (text.length === 0) return [];
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1 && i + 1 < text.length; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** Where to cut for an effective budget: the kept head text[0, head) and tail text[tail, n). */
function findCut(plan: FitPlan, effective: number): { head: number; tail: number } | null {
  const { text, tokenizer, limits, originalTokens, strategy } = plan;
  const n = text.length;
  const ratio = charsPerToken(n, originalTokens);
  // The longest marker this text can need: every character and every token cut.
  const markerBound = `[... ${plural(n, 'character')} (${plural(originalTokens, 'token')}) cut ...]`;
  const count = (s: string) => tokenizer.count(s);

  if (strategy === 'end') {
    const head = fitHead(text, limits.headMax, effective * ratio, (h) => count(`${text.slice(0, h)}\n${markerBound}`) <= effective);
    return head > 0 ? { head, tail: n } : null;
  }
  if (strategy === 'start') {
    const tail = fitTail(text, limits.tailMin, effective * ratio, (t) => count(`${markerBound}\n${text.slice(t)}`) <= effective);
    return tail < n ? { head: 0, tail } : null;
  }
  const content = effective - count(`\n${markerBound}\n`);
  if (content <= 0) return null;
  const headBudget = Math.ceil(content / 2);
  const head = Math.max(0, fitHead(text, limits.headMax, headBudget * ratio, (h) => count(text.slice(0, h)) <= headBudget));
  // The tail gets whatever the head left, so a short head does not waste budget.
  const tailBudget = content - count(text.slice(0, head));
  const tail = fitTail(text, Math.max(limits.tailMin, head), tailBudget * ratio, (t) => count(text.slice(t)) <= tailBudget);
  return head > 0 || tail < n ? { head, tail } : null;
}

/** Largest fitting head end <= headMax, moved back to a line end when that keeps half of it. */
function fitHead(text: string, headMax: number, guessChars: number, fits: (h: number) => boolean): number {
  const h = largestFitting(0, headMax, guessChars, fits);
  if (h <= 0) return h;
  const lineEnd = text.lastIndexOf('\n', h - 1) + 1;
  return lineEnd > 0 && lineEnd * 2 >= h ? lineEnd : safeCutBefore(text, h);
}

/** Smallest fitting tail start >= tailMin, moved forward to a line start when that keeps half. */
function fitTail(text: string, tailMin: number, guessChars: number, fits: (t: number) => boolean): number {
  const n = text.length;
  const kept = largestFitting(0, n - tailMin, guessChars, (k) => fits(n - k));
  if (kept <= 0) return n;
  const t = n - kept;
  if (t === 0 || text[t - 1] === '\n') return t;
  const newline = text.indexOf('\n', t);
  const lineStart = newline === -1 ? n : newline + 1;
  return lineStart < n && (n - lineStart) * 2 >= kept ? lineStart : safeCutAfter(text, t);
}

/**
 * The text with [head, tail) replaced by a marker, and its exact token count. The marker's token
 * figure is the original count minus the kept parts' counts (exact up to the merges BPE makes
 * across the cut), which costs O(kept) instead of counting the removed text again.
 */
function composeCut(plan: FitPlan, head: number, tail: number): { text: string; tokens: number } {
  const { text, tokenizer, originalTokens } = plan;
  const removed = text.slice(head, tail);
  const isLineCut = (head === 0 || text[head - 1] === '\n') && (tail === text.length || text[tail - 1] === '\n');
  const amount = isLineCut ? plural(countLines(removed), 'line') : plural(removed.length, 'character');
  const keptTokens = tokenizer.count(text.slice(0, head)) + tokenizer.count(text.slice(tail));
  const marker = `[... ${amount} (${plural(Math.max(0, originalTokens - keptTokens), 'token')}) cut ...]`;
  const out = joinAroundMarker(text, head, tail, marker);
  return { text: out, tokens: tokenizer.count(out) };
}

/** head + marker on its own line + tail. */
function joinAroundMarker(text: string, head: number, tail: number, marker: string): string {
  const before = text.slice(0, head);
  const after = text.slice(tail);
  const open = before.length > 0 && !before.endsWith('\n') ? '\n' : '';
  return `${before}${open}${marker}${after.length > 0 ? `\n${after}` : ''}`;
}

/** "1 line", "3,400 tokens": thousands separators without depending on the process locale. */
function plural(value: number, unit: string): string {
  const digits = String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${digits} ${unit}${value === 1 ? '' : 's'}`;
}
