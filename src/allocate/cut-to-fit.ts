import type { Tokenizer } from '../tokenize/tokenizer.js';
import { truncateWithStrategy, type TruncateStrategy } from '../tokenize/truncate.js';

/** Spec 001 section 4 truncation (src/tokenize/truncate.ts), as a port a front end may swap. */
export type TruncatePort = (
  text: string,
  options: { budget: number; strategy: TruncateStrategy; tokenizer: Tokenizer; maxLines?: number },
) => { text: string; tokens: number; originalTokens: number; truncated: boolean } | null;

export interface CutToFitOptions<T extends { cost: number }> {
  content: string;
  strategy: TruncateStrategy;
  tokenizer: Tokenizer;
  /** Tokens the block may cost, wrapper included. */
  remaining: number;
  /** Content tokens to aim for first: `remaining` less the empty block (and any slack). */
  contentBudget: number;
  /** Below this many content tokens a cut is not worth its wrapper (default 1). */
  minContentTokens?: number;
  truncate?: TruncatePort;
  /** The block holding a cut, priced exactly. */
  price: (cut: { text: string; tokens: number }) => T;
}

/** Tries before giving up: wrapping and escaping change a cut's cost by a few tokens at most. */
const MAX_CUT_ATTEMPTS = 4;

/** A kept share of a file's tokens below which the file counts as "truncated significantly" (spec 001 section 9). */
export const SIGNIFICANT_CUT_SHARE = 0.5;

/**
 * The one truncation choice of every front end: the content cut by its strategy to the content
 * budget, priced as its block, and while the block still costs more than `remaining` the budget
 * shrinks by the overshoot and the content is cut again. Null when no cut fits.
 */
export function cutToFit<T extends { cost: number }>(options: CutToFitOptions<T>): T | null {
  const truncate = options.truncate ?? truncateWithStrategy;
  const minContent = options.minContentTokens ?? 1;
  let budget = options.contentBudget;
  for (let attempt = 0; attempt < MAX_CUT_ATTEMPTS && budget >= minContent; attempt++) {
    const cut = truncate(options.content, { budget, strategy: options.strategy, tokenizer: options.tokenizer });
    if (!cut || cut.text.length === 0) return null;
    const priced = options.price(cut);
    if (priced.cost <= options.remaining) return priced;
    budget -= priced.cost - options.remaining;
  }
  return null;
}

/** True when a cut kept under SIGNIFICANT_CUT_SHARE of the original tokens. */
export function isSignificantCut(keptTokens: number, originalTokens: number): boolean {
  return originalTokens > 0 && keptTokens < originalTokens * SIGNIFICANT_CUT_SHARE;
}
