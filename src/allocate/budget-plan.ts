import type { Config, TierName } from '../types.js';
import type { BudgetPlan } from '../stages.js';
import { tierPercentages, TIER_NAMES } from '../config/schema.js';

/** What a caller may fix instead of the config: the room the context gets, and the reserves around it. */
export interface BudgetRequest {
  /** Tokens the rendered context may hold; the total is then available + reserves. */
  available?: number;
  /** Reserves for the model's output and system prompt; the config's when absent. */
  reserved?: BudgetPlan['reserved'];
}

/**
 * The budget of one run, computed once and handed to the engine (and carried by the record):
 * available = max_tokens - reserve_for_output - reserve_for_system, or the caller's `available`;
 * tiers by percentage of available. With `budget_config.enabled: false` there are no tier
 * shares: the whole budget is one pool, handed to the tiers in flow order (the first tier holds
 * it, what it leaves flows on).
 */
export function planBudget(config: Config, request: BudgetRequest = {}): BudgetPlan {
  const total = config.budget_config.total_budget;
  const reserved = request.reserved ?? { output: total.reserve_for_output, system: total.reserve_for_system };
  const available = request.available ?? Math.max(0, total.max_tokens - reserved.output - reserved.system);
  const onePool = !config.budget_config.enabled;
  const shares = onePool ? poolShares(config) : tierPercentages(config);
  const tiers = Object.fromEntries(TIER_NAMES.map((t) => [t, Math.floor((available * shares[t]) / 100)])) as BudgetPlan['tiers'];
  const totalTokens = request.available === undefined ? total.max_tokens : available + reserved.output + reserved.system;
  return { total: totalTokens, reserved, available, tiers, shares, onePool };
}

function poolShares(config: Config): Record<TierName, number> {
  const first = config.budget_config.flow_order[0] ?? 'primary';
  return Object.fromEntries(TIER_NAMES.map((t) => [t, t === first ? 100 : 0])) as Record<TierName, number>;
}
