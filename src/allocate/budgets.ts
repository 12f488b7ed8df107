import type { TierName } from '../types.js';
import { TIER_NAMES } from '../config/schema.js';

export interface TierBudgetInput {
  /** The plan's tier budgets (percentages of available). */
  nominal: Record<TierName, number>;
  /** What each tier needs at its starting levels. */
  demand: Record<TierName, number>;
  available: number;
  /** Tokens taken before any tier: the boot header and the document's structure. */
  reserve: number;
  flowUnused: boolean;
  flowOrder: readonly TierName[];
}

export interface TierBudgets {
  /** Each tier's own budget after the reserve (before anything flows in). */
  own: Record<TierName, number>;
  /** Tiers whose demand fits their own budget: they take everything at starting levels. */
  satisfied: TierName[];
  /** Tiers that must degrade, in the order they receive flowing budget (flow_order first). */
  constrained: TierName[];
  /** Budget left unused by satisfied tiers (and by rounding), free to flow. 0 when flow is off. */
  pool: number;
}

/**
 * Plan every tier's budget. The reserve (boot header) is paid first from budget nobody needs
 * (the rounding remainder and what satisfied tiers leave); only if that is not enough are all
 * tiers' capacities scaled down to make room. With flow on, what satisfied tiers leave then
 * flows to the constrained tiers in flow_order: the first takes what it needs, its leftover
 * passes on. Invariant: sum of what tiers can use + reserve <= available.
 */
export function planTierBudgets(input: TierBudgetInput): TierBudgets {
  const { demand, available, reserve, flowUnused, flowOrder } = input;
  const nominal = fitNominal(input.nominal, available);
  let slack = available - sum(TIER_NAMES.map((t) => nominal[t]));
  for (const t of TIER_NAMES) if (demand[t] <= nominal[t]) slack += nominal[t] - demand[t];

  const own = { ...nominal };
  const paid = Math.min(reserve, slack);
  slack -= paid;
  const deficit = reserve - paid;
  if (deficit > 0) {
    const capacity = Object.fromEntries(TIER_NAMES.map((t) => [t, Math.min(demand[t], nominal[t])])) as Record<TierName, number>;
    const total = sum(TIER_NAMES.map((t) => capacity[t]));
    const ratio = total <= deficit ? 0 : (total - deficit) / total;
    for (const t of TIER_NAMES) {
      const scaled = Math.floor(capacity[t] * ratio);
      own[t] = scaled >= demand[t] ? nominal[t] : scaled;
    }
  }
  const satisfied = TIER_NAMES.filter((t) => demand[t] <= own[t]);
  const over = TIER_NAMES.filter((t) => demand[t] > own[t]);
  const constrained = [...flowOrder.filter((t) => over.includes(t)), ...over.filter((t) => !flowOrder.includes(t))];
  return { own, satisfied, constrained, pool: flowUnused && deficit === 0 ? slack : 0 };
}

/** Tier budgets that add up to more than available (percentages over 100) are scaled down. */
function fitNominal(nominal: Record<TierName, number>, available: number): Record<TierName, number> {
  const total = sum(TIER_NAMES.map((t) => Math.max(0, nominal[t])));
  if (total <= available) return Object.fromEntries(TIER_NAMES.map((t) => [t, Math.max(0, nominal[t])])) as Record<TierName, number>;
  return Object.fromEntries(TIER_NAMES.map((t) => [t, Math.floor((Math.max(0, nominal[t]) * available) / total)])) as Record<TierName, number>;
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
