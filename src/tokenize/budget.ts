import { charsPerToken, largestFitting, safeCutBefore } from './fit-search.js';
import { createChars4Tokenizer, type Tokenizer } from './tokenizer.js';

/**
 * The token budget API of spec 000 section 2. Every function takes an optional tokenizer: without
 * one it is the spec's chars/4 heuristic, with one the counts (and so the guarantees) are exact
 * for that tokenizer.
 *
 * Invariants (checked by property tests in test/tokenize/budget.test.ts):
 * - estimateTokens("") === 0
 * - truncateToTokenBudget(text, b) === text when b <= 0 (0 means unlimited)
 * - was_truncated  => truncated_tokens <= budget_tokens
 * - !was_truncated => truncated_tokens === original_tokens
 * - truncation never makes the text longer
 */

/** Appended where text was cut. */
export const ELLIPSIS = '...';

const CHARS4 = createChars4Tokenizer();

/** What applyContextBudget did, with spec 000's JSON field names. */
export interface ContextBudgetResult {
  /** estimateTokens(input). */
  original_tokens: number;
  /** The budget asked for; <= 0 means unlimited. */
  budget_tokens: number;
  /** estimateTokens(output); equals original_tokens when not truncated. */
  truncated_tokens: number;
  /** True when the output differs from the input. */
  was_truncated: boolean;
}

/** Token count of `text`: chars/4 rounded up without a tokenizer; "" is always 0. */
export function estimateTokens(text: string, tokenizer: Tokenizer = CHARS4): number {
  return text.length === 0 ? 0 : tokenizer.count(text);
}

/**
 * Cut `text` to at most `budget` tokens, "..." included. The cut goes at the last sentence
 * boundary (". " or ".\n", the ellipsis replacing the full stop) that fits, else at the last
 * word boundary, else mid-word (never inside a surrogate pair). `budget <= 0` means unlimited.
 * The result is never longer than `text`; when not even "..." fits it is "".
 */
export function truncateToTokenBudget(text: string, budget: number, tokenizer: Tokenizer = CHARS4): string {
  if (budget <= 0) return text;
  const total = estimateTokens(text, tokenizer);
  if (total <= budget) return text;

  const fitsBudget = (candidate: string) => tokenizer.count(candidate) <= budget;
  const fitsCut = (k: number) => fitsBudget(text.slice(0, k) + ELLIPSIS);
  // Cutting at most length - 3 characters keeps the result (with "...") no longer than the input.
  const maxCut = text.length - ELLIPSIS.length;
  const guess = budget * charsPerToken(text.length, total) - ELLIPSIS.length;
  let cut = largestFitting(0, maxCut, guess, fitsCut);
  while (cut >= 0) {
    for (const candidate of cutCandidates(text, cut)) {
      if (fitsBudget(candidate)) return candidate;
    }
    // BPE is not additive: a boundary candidate can cost more than the raw cut it came from.
    cut = largestFitting(0, cut - 1, cut - 1, fitsCut);
  }
  return '';
}

/**
 * Spec 000's applyContextBudget: truncate assembled context to `maxTokens` and report what
 * happened. `maxTokens <= 0` returns the context unchanged with was_truncated false.
 */
export function applyContextBudget(
  context: string,
  maxTokens: number,
  tokenizer: Tokenizer = CHARS4,
): { text: string; result: ContextBudgetResult } {
  const text = maxTokens <= 0 ? context : truncateToTokenBudget(context, maxTokens, tokenizer);
  return { text, result: budgetResult(context, text, maxTokens, tokenizer) };
}

/** What applying `maxTokens` to `context` did, given the text it left. */
export function budgetResult(context: string, text: string, maxTokens: number, tokenizer: Tokenizer = CHARS4): ContextBudgetResult {
  const originalTokens = estimateTokens(context, tokenizer);
  const wasTruncated = text !== context;
  return {
    original_tokens: originalTokens,
    budget_tokens: maxTokens,
    truncated_tokens: wasTruncated ? estimateTokens(text, tokenizer) : originalTokens,
    was_truncated: wasTruncated,
  };
}

/** Candidates for a prefix of at most `cut` characters, best first: sentence, word, raw cut. */
function* cutCandidates(text: string, cut: number): Generator<string> {
  // The boundary's trailing space may be the first dropped character, so look one further.
  const window = text.slice(0, Math.min(text.length, cut + 1));
  const sentenceEnd = Math.max(window.lastIndexOf('. '), window.lastIndexOf('.\n'));
  if (sentenceEnd > 0) {
    const sentence = text.slice(0, sentenceEnd).trimEnd();
    if (sentence.length > 0) yield sentence + ELLIPSIS;
  }
  const wordEnd = lastWhitespace(window);
  if (wordEnd > 0) {
    const words = text.slice(0, wordEnd).trimEnd();
    if (words.length > 0) yield words + ELLIPSIS;
  }
  yield text.slice(0, safeCutBefore(text, cut)) + ELLIPSIS;
}

function lastWhitespace(text: string): number {
  for (let i = text.length - 1; i >= 0; i--) {
    if (/\s/.test(text[i] ?? '')) return i;
  }
  return -1;
}
