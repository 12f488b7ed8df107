import type { RunContext, TierName } from '../types.js';
import type { AllocateInput } from '../stages.js';
import { selectHistoryWindow, type HistoryItem } from '../assemble/history-window.js';
import type { TierBudgets } from './budgets.js';
import type { Candidate } from './candidates.js';
import { allocateFileTier, chosenCost, totalValue, type LevelAlgorithm, type TierOutcome } from './overflow.js';
import { FILE_TIERS, type FileTier } from './tiers.js';
import type { MonotoneValues } from './monotone.js';

export interface TierFit {
  outcomes: Record<FileTier, TierOutcome>;
  tierBudget: Record<TierName, number>;
  history: HistoryItem[];
}

/**
 * Fit every tier: satisfied tiers keep their starting levels; constrained tiers, in flow order,
 * get their own budget plus what flows to them, and pass on what they leave.
 */
export function fitAllTiers(args: {
  candidates: Record<FileTier, Candidate[]>;
  budgets: TierBudgets;
  wholeHistory: HistoryItem[];
  input: AllocateInput;
  ctx: RunContext;
  algorithm: LevelAlgorithm;
  capBudget: number;
  values: MonotoneValues;
}): TierFit {
  const { candidates, budgets, input, ctx, algorithm, capBudget, values } = args;
  const budgetConfig = ctx.config.budget_config;
  const { format } = input;
  const { tokenizer } = ctx;
  const outcomes = Object.fromEntries(
    FILE_TIERS.map((t) => [t, { candidates: candidates[t], choice: new Int32Array(candidates[t].length).fill(0) }]),
  ) as Record<FileTier, TierOutcome>;
  const tierBudget = { ...budgets.own };
  let history = args.wholeHistory;
  let carry = budgets.pool;
  for (const tier of budgets.constrained) {
    const receives = (budgetConfig.flow_unused || !budgetConfig.enabled) && budgetConfig.flow_order.includes(tier);
    const budget = budgets.own[tier] + (receives ? carry : 0);
    let used: number;
    if (tier === 'history') {
      history = selectHistoryWindow(input.history, { budget, capBudget, format, tokenizer }).kept;
      used = history.reduce((sum, h) => sum + h.cost, 0);
    } else {
      outcomes[tier] = allocateFileTier({ tier, candidates: candidates[tier], budget, strategy: budgetConfig.overflow_strategy, algorithm, format, tokenizer, values });
      used = chosenCost(outcomes[tier].candidates, outcomes[tier].choice);
    }
    tierBudget[tier] = Math.max(budgets.own[tier], used);
    if (receives) carry = budget - used;
  }
  return { outcomes, tierBudget, history };
}

/** Total value (weight x usefulness) of the files an allocation keeps. */
export function allocationValue(outcomes: Record<FileTier, TierOutcome>): number {
  return FILE_TIERS.reduce((sum, t) => sum + totalValue(outcomes[t].candidates, outcomes[t].choice), 0);
}
