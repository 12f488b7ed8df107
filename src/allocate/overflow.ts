import { formatCount as fmt } from '../util/format.js';
export { fmt };
import type { OverflowStrategy } from '../config/schema.js';
import type { RenderFormat } from '../stages.js';
import type { Tokenizer } from '../tokenize/tokenizer.js';
import { BudgetExceededError } from '../errors.js';
import { cutToFit } from './cut-to-fit.js';
import { levelOption, optionValue, type Candidate, type LevelOption } from './candidates.js';
import { lowestFirst } from './degrade-greedy.js';
import { choiceCost, solveMultipleChoiceKnapsack, type Choice } from './optimise.js';
import { allocateMonotone, degradeMonotone, type MonotoneValues } from './monotone.js';
import type { FileTier } from './tiers.js';

export type LevelAlgorithm = 'optimal' | 'greedy';

export interface TierRequest {
  tier: FileTier;
  /** Weight descending, ties by path. */
  candidates: Candidate[];
  budget: number;
  strategy: OverflowStrategy;
  algorithm: LevelAlgorithm;
  format: RenderFormat;
  tokenizer: Tokenizer;
  /** Candidates are already in rank order (truncate keeps it and stops at the first drop). */
  ordered?: boolean;
  /** Values of the monotone allocation (summarize, prioritize). */
  values?: MonotoneValues;
}

export interface TierOutcome {
  /** The candidates, a truncated option in place of the starting level where `truncate` cut one. */
  candidates: Candidate[];
  /** Option index per candidate, -1 dropped. */
  choice: Choice;
}

/** Content tokens below which a truncated file is not worth its wrapper. */
export const MIN_TRUNCATED_CONTENT_TOKENS = 24;

/**
 * Fit a list of files (one tier's, or the whole ranking) into a budget with the overflow
 * strategy, never dropping or lowering a file while one ranked below it is kept:
 * - summarize and prioritize: the monotone allocation of greatest value (`optimal`), or the
 *   spec's degrade loop over the ranking (`greedy`); see monotone.ts. Prioritize differs only in
 *   the render repair (it drops the last-ranked file where summarize steps it down).
 * - truncate: spec 001's assembly loop: by relevance, each file whole if it fits, else its
 *   content cut ('middle' for code, 'end' for prose) to what is left, else dropped (with
 *   `ordered`, the first file that cannot be kept ends the list).
 * - error: throw BudgetExceededError with the numbers and the flags to change.
 */
export function allocateFileTier(request: TierRequest): TierOutcome {
  const { candidates, budget, strategy, algorithm } = request;
  const demand = candidates.reduce((sum, c) => sum + c.options[0]!.cost, 0);
  if (demand <= budget) return { candidates, choice: new Int32Array(candidates.length).fill(0) };
  switch (strategy) {
    case 'error':
      throw new BudgetExceededError(
        `${request.tier} tier needs ${fmt(demand)} tokens but the budget leaves ${fmt(Math.max(0, budget))}: raise --max-tokens or use --overflow summarize`,
      );
    case 'truncate':
      return truncateTier(request);
    case 'prioritize':
    case 'summarize':
      // Candidates of one tier are in rank order (weight descending, ties by path).
      return { candidates, choice: algorithm === 'greedy' ? degradeMonotone(candidates, budget) : allocateMonotone(candidates, budget, request.values) };
  }
}

/** The whole ranking (every tier's files, best first) in one budget: allocateFileTier in rank order. */
export function allocateRanked(request: {
  ranked: Candidate[];
  budget: number;
  strategy: OverflowStrategy;
  algorithm: LevelAlgorithm;
  values: MonotoneValues;
  format: RenderFormat;
  tokenizer: Tokenizer;
}): TierOutcome {
  const { ranked, budget } = request;
  switch (request.strategy) {
    case 'summarize':
    case 'prioritize':
    case 'truncate':
    case 'error':
      return allocateFileTier({ ...request, tier: 'primary', candidates: ranked, ordered: true });
  }
}

/** The knapsack over candidates: value = weight x level usefulness, cost = exact block tokens. */
export function solveKnapsack(candidates: readonly Candidate[], budget: number): Choice {
  const items = candidates.map((c) => ({ options: c.options.map((o, k) => ({ cost: o.cost, value: optionValue(c, k) })) }));
  return solveMultipleChoiceKnapsack(items, budget);
}

export function totalValue(candidates: readonly Candidate[], choice: Choice): number {
  let total = 0;
  choice.forEach((o, i) => (total += optionValue(candidates[i]!, o)));
  return total;
}

function truncateTier(request: TierRequest): TierOutcome {
  const { budget } = request;
  const candidates = [...request.candidates];
  const choice = new Int32Array(candidates.length).fill(-1);
  let remaining = budget;
  const order = request.ordered === true ? candidates.map((_, i) => i) : lowestFirst(candidates).reverse();
  for (const i of order) {
    const candidate = candidates[i]!;
    const start = candidate.options[0]!;
    if (start.cost <= remaining) {
      choice[i] = 0;
      remaining -= start.cost;
      continue;
    }
    const cut = truncatedOption(candidate, start, remaining, request);
    if (cut) {
      candidates[i] = { ...candidate, options: [cut, ...candidate.options.slice(1)] };
      choice[i] = 0;
      remaining -= cut.cost;
    } else if (request.ordered === true) {
      break; // monotone: nothing ranked below a dropped file is kept
    }
  }
  return { candidates, choice };
}

/** The starting level's content cut to fit `remaining` tokens of block, or null. */
function truncatedOption(candidate: Candidate, start: LevelOption, remaining: number, request: TierRequest): LevelOption | null {
  const { format, tokenizer } = request;
  const strategy = candidate.category === 'documentation' || candidate.category === 'requirements' ? 'end' : 'middle';
  const wrapper = levelOption(candidate.path, start.level, '', start.contentTokens, { format, tokenizer, truncated: true }).cost;
  return cutToFit({
    content: start.content,
    strategy,
    tokenizer,
    remaining,
    contentBudget: remaining - wrapper - 1,
    minContentTokens: MIN_TRUNCATED_CONTENT_TOKENS,
    price: (cut) => levelOption(candidate.path, start.level, cut.text, cut.tokens, { format, tokenizer, truncated: true, originalTokens: start.contentTokens }),
  });
}

export function chosenCost(candidates: readonly Candidate[], choice: Choice): number {
  return choiceCost(
    candidates.map((c) => ({ options: c.options.map((o) => ({ cost: o.cost, value: 0 })) })),
    choice,
  );
}

