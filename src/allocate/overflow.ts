import { formatCount as fmt } from '../util/format.js';
export { fmt };
import type { OverflowStrategy } from '../config/schema.js';
import type { RenderFormat } from '../stages.js';
import type { Tokenizer } from '../tokenize/tokenizer.js';
import { BudgetExceededError } from '../errors.js';
import { truncateWithStrategy } from '../tokenize/truncate.js';
import { levelOption, optionValue, type Candidate, type LevelOption } from './candidates.js';
import { degradeGreedy, lowestFirst, prioritizeGreedy } from './degrade-greedy.js';
import { choiceCost, solveMultipleChoiceKnapsack, type Choice } from './optimise.js';
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
 * Fit one tier's files into its budget with the overflow strategy:
 * - summarize: degrade levels. `optimal` solves the multiple-choice knapsack and keeps the greedy
 *   loop's answer only if it is worth more; `greedy` is the spec's loop.
 * - prioritize (spec default): each file at its starting level or dropped: the same knapsack
 *   restricted to those two choices (0/1), against keeping files by relevance while they fit.
 * - truncate: spec 001's assembly loop: by relevance, each file whole if it fits, else its
 *   content cut ('middle' for code, 'end' for prose) to what is left, else dropped.
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
    case 'prioritize': {
      const greedy = prioritizeGreedy(candidates, budget);
      if (algorithm === 'greedy') return { candidates, choice: greedy };
      return { candidates, choice: better(candidates, prioritizeOptimal(candidates, budget), greedy) };
    }
    case 'summarize': {
      const greedy = degradeGreedy(candidates, budget);
      if (algorithm === 'greedy') return { candidates, choice: greedy };
      return { candidates, choice: better(candidates, solveKnapsack(candidates, budget), greedy) };
    }
  }
}

/**
 * `prioritize` with the optimiser. Files by relevance keep their starting level as long as each
 * still fits (so the most relevant files are never traded for packing); from the first that does
 * not fit on, the rest of the budget is a 0/1 knapsack over the remaining files.
 */
export function prioritizeOptimal(candidates: readonly Candidate[], budget: number): Choice {
  const choice = new Int32Array(candidates.length).fill(-1);
  const order = lowestFirst(candidates).reverse();
  let used = 0;
  let k = 0;
  for (; k < order.length; k++) {
    const cost = candidates[order[k]!]!.options[0]!.cost;
    if (used + cost > budget) break;
    used += cost;
    choice[order[k]!] = 0;
  }
  const rest = order.slice(k);
  const restricted = rest.map((i) => ({ ...candidates[i]!, options: candidates[i]!.options.slice(0, 1) }));
  solveKnapsack(restricted, budget - used).forEach((o, j) => (choice[rest[j]!] = o));
  return choice;
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

/** The optimiser's answer unless the greedy one is worth strictly more. */
function better(candidates: readonly Candidate[], optimal: Choice, greedy: Choice): Choice {
  return totalValue(candidates, greedy) > totalValue(candidates, optimal) + 1e-12 ? greedy : optimal;
}

function truncateTier(request: TierRequest): TierOutcome {
  const { budget } = request;
  const candidates = [...request.candidates];
  const choice = new Int32Array(candidates.length).fill(-1);
  let remaining = budget;
  for (const i of lowestFirst(candidates).reverse()) {
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
    }
  }
  return { candidates, choice };
}

/** The starting level's content cut to fit `remaining` tokens of block, or null. */
function truncatedOption(candidate: Candidate, start: LevelOption, remaining: number, request: TierRequest): LevelOption | null {
  const { format, tokenizer } = request;
  const strategy = candidate.category === 'documentation' || candidate.category === 'requirements' ? 'end' : 'middle';
  const wrapper = levelOption(candidate.path, start.level, '', start.contentTokens, { format, tokenizer, truncated: true }).cost;
  let contentBudget = remaining - wrapper - 1;
  for (let attempt = 0; attempt < 4 && contentBudget >= MIN_TRUNCATED_CONTENT_TOKENS; attempt++) {
    const cut = truncateWithStrategy(start.content, { budget: contentBudget, strategy, tokenizer });
    if (!cut) return null;
    const option = levelOption(candidate.path, start.level, cut.text, cut.tokens, { format, tokenizer, truncated: true, originalTokens: start.contentTokens });
    if (option.cost <= remaining) return option;
    contentBudget -= option.cost - remaining;
  }
  return null;
}

export function chosenCost(candidates: readonly Candidate[], choice: Choice): number {
  return choiceCost(
    candidates.map((c) => ({ options: c.options.map((o) => ({ cost: o.cost, value: 0 })) })),
    choice,
  );
}

