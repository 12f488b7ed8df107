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
  const n = items.length;
  const choice = new Int32Array(n).fill(-1);
  if (budget <= 0 || n === 0) return choice;

  // Hulls, flattened: item i's hull option indices are hull[start[i] .. start[i + 1]).
  let total = 0;
  for (const item of items) total += item.options.length;
  const hull = new Int32Array(total);
  const start = new Int32Array(n + 1);
  const scratch = new Int32Array(Math.max(1, ...items.map((item) => item.options.length)));
  for (let i = 0; i < n; i++) {
    start[i + 1] = start[i]! + upperHullInto(items[i]!.options, scratch, hull, start[i]!);
  }
  const segments = start[n]!;
  const segItem = new Int32Array(segments);
  const segEff = new Float64Array(segments);
  for (let i = 0; i < n; i++) {
    const options = items[i]!.options;
    let prevCost = 0;
    let prevValue = 0;
    for (let s = start[i]!; s < start[i + 1]!; s++) {
      const option = options[hull[s]!]!;
      const dc = option.cost - prevCost;
      segItem[s] = i;
      segEff[s] = dc <= 0 ? Number.POSITIVE_INFINITY : (option.value - prevValue) / dc;
      prevCost = option.cost;
      prevValue = option.value;
    }
  }
  // Segments are numbered item by item, step by step, and the sort is stable: equal
  // efficiencies keep that order, so an item's edges are met in hull order.
  const order = Array.from({ length: segments }, (_, k) => k).sort((a, b) => segEff[b]! - segEff[a]!);

  const next = new Int32Array(n);
  for (let i = 0; i < n; i++) next[i] = start[i]!;
  const blocked = new Uint8Array(n);
  let used = 0;
  for (const s of order) {
    const i = segItem[s]!;
    if (blocked[i] || next[i] !== s) continue;
    const options = items[i]!.options;
    const currentCost = s === start[i] ? 0 : options[hull[s - 1]!]!.cost;
    const step = options[hull[s]!]!.cost - currentCost;
    if (used + step <= budget) {
      used += step;
      choice[i] = hull[s]!;
      next[i] = s + 1;
    } else {
      blocked[i] = 1;
    }
  }
  repairUpgrades(items, choice, budget - used);
  return choice;
}

/**
 * Spend leftover budget: each pass finds every item's best affordable upgrade (largest value
 * gain, then smallest cost) and applies them by gain while they still fit.
 */
function repairUpgrades(items: readonly KnapsackItem[], choice: Choice, leftover: number): void {
  const n = items.length;
  const bestOption = new Int32Array(n);
  const bestGain = new Float64Array(n);
  const bestCost = new Float64Array(n);
  for (let pass = 0; pass < REPAIR_PASSES && leftover > 0; pass++) {
    const upgradable: number[] = [];
    for (let i = 0; i < n; i++) {
      const options = items[i]!.options;
      const c = choice[i]!;
      const curValue = c >= 0 ? options[c]!.value : 0;
      const curCost = c >= 0 ? options[c]!.cost : 0;
      let found = -1;
      let gain = 0;
      let cost = 0;
      for (let o = 0; o < options.length; o++) {
        const dv = options[o]!.value - curValue;
        const dc = options[o]!.cost - curCost;
        if (dv <= 0 || dc > leftover) continue;
        if (found < 0 || dv > gain || (dv === gain && dc < cost)) {
          found = o;
          gain = dv;
          cost = dc;
        }
      }
      if (found >= 0) {
        bestOption[i] = found;
        bestGain[i] = gain;
        bestCost[i] = cost;
        upgradable.push(i);
      }
    }
    if (upgradable.length === 0) return;
    upgradable.sort((a, b) => bestGain[b]! - bestGain[a]! || bestCost[a]! - bestCost[b]! || a - b);
    let changed = false;
    for (const i of upgradable) {
      if (bestCost[i]! > leftover) continue;
      choice[i] = bestOption[i]!;
      leftover -= bestCost[i]!;
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
  const out = new Int32Array(options.length);
  const count = upperHullInto(options, new Int32Array(Math.max(1, options.length)), out, 0);
  return Array.from(out.subarray(0, count));
}

/** upperHull without allocation: writes into `out` from `offset`, returns the hull's size. */
function upperHullInto(options: readonly KnapsackOption[], sorted: Int32Array, out: Int32Array, offset: number): number {
  // Insertion sort of the option indices by cost ascending, value descending (k is tiny).
  let m = 0;
  for (let o = 0; o < options.length; o++) {
    if (!(options[o]!.value > 0)) continue;
    let j = m++;
    while (j > 0 && precedes(options, o, sorted[j - 1]!)) {
      sorted[j] = sorted[j - 1]!;
      j--;
    }
    sorted[j] = o;
  }
  let size = 0;
  let bestValue = 0;
  for (let k = 0; k < m; k++) {
    const p = options[sorted[k]!]!;
    if (p.value <= bestValue) continue;
    bestValue = p.value;
    while (size > 0) {
      const b = options[out[offset + size - 1]!]!;
      const aCost = size > 1 ? options[out[offset + size - 2]!]!.cost : 0;
      const aValue = size > 1 ? options[out[offset + size - 2]!]!.value : 0;
      // Keep b only if the edge a->b is strictly steeper than b->p.
      if ((b.value - aValue) * (p.cost - b.cost) > (p.value - b.value) * (b.cost - aCost)) break;
      size--;
    }
    out[offset + size++] = sorted[k]!;
  }
  return size;
}

function precedes(options: readonly KnapsackOption[], a: number, b: number): boolean {
  const x = options[a]!;
  const y = options[b]!;
  return x.cost < y.cost || (x.cost === y.cost && (x.value > y.value || (x.value === y.value && a < b)));
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
