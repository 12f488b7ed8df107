/**
 * Multiple-choice knapsack: pick at most one option per item (or none) to maximise total value
 * within a budget. Used to choose every file's level: options are a file's levels, cost their
 * exact block tokens, value relevance x usefulness.
 *
 * Method: greedy on the upper convex hull of each item's (cost, value) options. Each hull edge
 * is an upgrade with an incremental efficiency (value per token); taking edges globally by
 * efficiency, each item's in order, is the classic LP-relaxation greedy (Sinha & Zoltners 1979).
 * It stops short where the LP would take a fraction of an edge, so a repair pass then spends the
 * leftover on the best upgrades to any option, hull or not. O(n k log(n k)) for n items of k
 * options: ~10 ms for 10,000 files of four levels (bench/allocate-bench.ts).
 */

export interface KnapsackOption {
  cost: number;
  value: number;
}

export interface KnapsackItem {
  options: readonly KnapsackOption[];
}

/** Chosen option index per item, -1 for none. */
export type Choice = Int32Array;

/** Upgrade passes of the repair step; each pass is O(n k). */
const REPAIR_PASSES = 4;

export function solveMultipleChoiceKnapsack(items: readonly KnapsackItem[], budget: number): Choice {
  const choice = new Int32Array(items.length).fill(-1);
  if (budget <= 0 || items.length === 0) return choice;

  const hulls = items.map((item) => upperHull(item.options));
  let segmentCount = 0;
  for (const hull of hulls) segmentCount += hull.length;
  const segItem = new Int32Array(segmentCount);
  const segStep = new Int32Array(segmentCount);
  const segEff = new Float64Array(segmentCount);
  let s = 0;
  hulls.forEach((hull, i) => {
    let prevCost = 0;
    let prevValue = 0;
    hull.forEach((optionIndex, k) => {
      const option = items[i]!.options[optionIndex]!;
      const dc = option.cost - prevCost;
      const dv = option.value - prevValue;
      segItem[s] = i;
      segStep[s] = k;
      segEff[s] = dc <= 0 ? Number.POSITIVE_INFINITY : dv / dc;
      prevCost = option.cost;
      prevValue = option.value;
      s++;
    });
  });
  const order = new Int32Array(segmentCount);
  for (let k = 0; k < segmentCount; k++) order[k] = k;
  order.sort((a, b) => segEff[b]! - segEff[a]! || segItem[a]! - segItem[b]! || segStep[a]! - segStep[b]!);

  const step = new Int32Array(items.length).fill(-1);
  const blocked = new Uint8Array(items.length);
  let used = 0;
  for (const seg of order) {
    const i = segItem[seg]!;
    const k = segStep[seg]!;
    if (blocked[i] || step[i] !== k - 1) continue;
    const next = items[i]!.options[hulls[i]![k]!]!;
    const current = k === 0 ? 0 : items[i]!.options[hulls[i]![k - 1]!]!.cost;
    if (used + next.cost - current <= budget) {
      used += next.cost - current;
      step[i] = k;
      choice[i] = hulls[i]![k]!;
    } else {
      blocked[i] = 1;
    }
  }
  repairUpgrades(items, choice, budget - used);
  return choice;
}

/**
 * Spend leftover budget: each pass collects every item's best affordable upgrade (largest value
 * gain, then smallest cost) and applies them by gain while they still fit.
 */
function repairUpgrades(items: readonly KnapsackItem[], choice: Choice, leftover: number): void {
  for (let pass = 0; pass < REPAIR_PASSES && leftover > 0; pass++) {
    const upgrades: { i: number; o: number; dv: number; dc: number }[] = [];
    items.forEach((item, i) => {
      const cur = choice[i]! >= 0 ? item.options[choice[i]!]! : { cost: 0, value: 0 };
      let best: { o: number; dv: number; dc: number } | null = null;
      item.options.forEach((option, o) => {
        const dv = option.value - cur.value;
        const dc = option.cost - cur.cost;
        if (dv <= 0 || dc > leftover) return;
        if (!best || dv > best.dv || (dv === best.dv && dc < best.dc)) best = { o, dv, dc };
      });
      if (best) upgrades.push({ i, ...(best as { o: number; dv: number; dc: number }) });
    });
    if (upgrades.length === 0) return;
    upgrades.sort((a, b) => b.dv - a.dv || a.dc - b.dc || a.i - b.i);
    let changed = false;
    for (const u of upgrades) {
      if (u.dc > leftover) continue;
      choice[u.i] = u.o;
      leftover -= u.dc;
      changed = true;
    }
    if (!changed) return;
  }
}

/**
 * Indices of an item's options on the upper convex hull of {(0,0)} and its options, by cost
 * ascending: dominated options (costlier but not more valuable) and options under the hull are
 * left out. Every hull edge is less efficient than the one before it.
 */
export function upperHull(options: readonly KnapsackOption[]): number[] {
  const sorted = options
    .map((option, index) => ({ ...option, index }))
    .filter((o) => o.value > 0)
    .sort((a, b) => a.cost - b.cost || b.value - a.value || a.index - b.index);
  const hull: { cost: number; value: number; index: number }[] = [];
  let bestValue = 0;
  for (const point of sorted) {
    if (point.value <= bestValue) continue;
    bestValue = point.value;
    while (hull.length > 0) {
      const b = hull[hull.length - 1]!;
      const a = hull.length > 1 ? hull[hull.length - 2]! : { cost: 0, value: 0 };
      // Keep b only if the edge a->b is strictly steeper than b->point.
      if ((b.value - a.value) * (point.cost - b.cost) > (point.value - b.value) * (b.cost - a.cost)) break;
      hull.pop();
    }
    hull.push(point);
  }
  return hull.map((p) => p.index);
}

export function choiceValue(items: readonly KnapsackItem[], choice: Choice): number {
  let total = 0;
  choice.forEach((o, i) => (total += o >= 0 ? items[i]!.options[o]!.value : 0));
  return total;
}

export function choiceCost(items: readonly KnapsackItem[], choice: Choice): number {
  let total = 0;
  choice.forEach((o, i) => (total += o >= 0 ? items[i]!.options[o]!.cost : 0));
  return total;
}
