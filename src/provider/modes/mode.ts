import type { TierName } from '../../config/schema.js';

/** Tier percentages by tier name, as in the config's `budget_config.allocation`. */
export type TierPercentages = Record<TierName, number>;

/**
 * A context mode: a named adjustment of the configured tier percentages. Adding a mode is adding
 * a file to this folder and a line to `modes/index.ts`; callers pass its name as a string (spec Q5).
 */
export interface ContextMode {
  readonly name: string;
  readonly description: string;
  /** Pure: returns new percentages with the same sum. */
  adjust(percentages: TierPercentages): TierPercentages;
}

/**
 * Move up to `points` percentage points into `to`, taken from the `from` tiers in proportion to
 * their current shares, so the sum is unchanged and no tier goes below zero.
 */
export function shiftPercentages(percentages: TierPercentages, from: TierName[], to: TierName, points: number): TierPercentages {
  const pool = from.reduce((sum, tier) => sum + percentages[tier], 0);
  const moved = Math.min(Math.max(0, points), pool);
  if (moved === 0) return { ...percentages };
  const next = { ...percentages };
  for (const tier of from) next[tier] = round(percentages[tier] - (moved * percentages[tier]) / pool);
  next[to] = round(percentages[to] + moved);
  return next;
}

/** Six decimals keeps the sum exact to the config validator's tolerance without float noise. */
function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
