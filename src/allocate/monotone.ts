import type { Level } from '../types.js';
import { LEVELS } from '../config/schema.js';
import type { Candidate } from './candidates.js';
import type { Choice } from './optimise.js';

/**
 * Monotone allocation: files in rank order (best first) each get a level, and a higher-ranked
 * file never gets a lower level than a file ranked below it, nor is it dropped while a file below
 * it is included. The levels are read as slots (full, detailed, summary, stub): a file whose
 * ladder lacks a level has the content of the level above there (the levels stage leaves a
 * level out when it would repeat the one above), so "slot" and "share" agree.
 *
 * Among monotone allocations that fit the budget, the one of greatest value is chosen by
 * dynamic programming over (file, slot of the file above, tokens used), tokens counted in
 * buckets rounded up (so whatever the program accepts truly fits), then the leftover tokens are
 * spent exactly on single-step upgrades that keep the order. Value = rank weight x level value:
 * a rank weight falling with rank makes one strong file at full or detailed worth more than many
 * summaries of weak ones.
 */
export interface MonotoneValues {
  /** Value of a file's content at each level, relative to full (1). */
  level: Readonly<Record<Level, number>>;
  /** Rank weight = relevance x (rank + 1)^-rankDecay (rank 0 = best). */
  rankDecay: number;
}

export const DEFAULT_MONOTONE_VALUES: MonotoneValues = {
  level: { full: 1, detailed: 0.75, summary: 0.2, stub: 0.03 },
  rankDecay: 0.5,
};

/** Files beyond this rank are dropped without being considered: at their rank a stub is worth almost nothing. */
export const MONOTONE_MAX_FILES = 400;
/** Token buckets of the dynamic program: the rounding wastes at most budget / BUCKETS per file, recovered by the exact leftover pass. */
const BUCKETS = 1200;
const SLOTS = LEVELS.length;
const DROP: number = SLOTS;

/** The option a candidate shows at a slot (level index), or -1 when it has no option at all. */
export function slotOption(candidate: Candidate, slot: number): number {
  const options = candidate.options;
  if (options.length === 0) return -1;
  const k = options.findIndex((o) => LEVELS.indexOf(o.level) >= slot);
  if (k === -1) return options.length - 1;
  return LEVELS.indexOf(options[k]!.level) > slot && k > 0 ? k - 1 : k;
}

/** The slot an option index stands for (its level), DROP for -1. */
export function optionSlot(candidate: Candidate, choice: number): number {
  return choice < 0 ? DROP : LEVELS.indexOf(candidate.options[choice]!.level);
}

/**
 * Choose every candidate's option (index into its options, -1 dropped). `ranked` is best first;
 * the result is monotone in slots and its exact cost is at most `budget`.
 */
export function allocateMonotone(ranked: readonly Candidate[], budget: number, values: MonotoneValues = DEFAULT_MONOTONE_VALUES): Choice {
  const n = Math.min(ranked.length, MONOTONE_MAX_FILES);
  const slots = new Int32Array(ranked.length).fill(DROP);
  if (budget <= 0 || n === 0) return toChoice(ranked, slots);
  const table = slotTable(ranked, n, values);
  const { cost, value } = table;
  const width1 = SLOTS + 1;

  const q = Math.max(1, budget / BUCKETS);
  const width = Math.floor(budget / q) + 1;
  const stride = width1 * width;
  const NONE = Number.NEGATIVE_INFINITY;
  // two rows of the program, swapped per file (no row allocated per file)
  let best = new Float64Array(stride).fill(NONE);
  let next = new Float64Array(stride);
  best[0] = 0; // slot 0 (full) as the cap above the first file, nothing spent
  const back = new Uint8Array(n * stride);
  const runMax = new Float64Array(width);
  const runArg = new Uint8Array(width);
  // buckets above `reach` hold nothing yet in any slot: the loops stop there
  let reach = 0;
  for (let i = 0; i < n; i++) {
    next.fill(NONE);
    runMax.fill(NONE, 0, reach + 1);
    let nextReach = 0;
    const row = i * stride;
    for (let s = 0; s <= DROP; s++) {
      // runMax[b] = best over caps s' <= s at bucket b: the file above holds slot s' <= s.
      const from = s * width;
      for (let b = 0; b <= reach; b++) {
        const held = best[from + b]!;
        if (held > runMax[b]!) {
          runMax[b] = held;
          runArg[b] = s;
        }
      }
      const c = Math.ceil(cost[i * width1 + s]! / q - 1e-9);
      if (c >= width) continue;
      const v = value[i * width1 + s]!;
      const last = Math.min(reach, width - 1 - c);
      for (let b = 0; b <= last; b++) {
        const before = runMax[b]!;
        if (before === NONE) continue;
        const at = from + b + c;
        if (before + v > next[at]!) {
          next[at] = before + v;
          back[row + at] = runArg[b]!;
        }
      }
      if (last + c > nextReach) nextReach = last + c;
    }
    const done = best;
    best = next;
    next = done;
    reach = nextReach;
  }
  let at = 0;
  for (let k = 1; k < stride; k++) if (best[k]! > best[at]!) at = k;
  for (let i = n - 1; i >= 0; i--) {
    const s = Math.floor(at / width);
    const b = at % width;
    slots[i] = s;
    const c = Math.ceil(cost[i * width1 + s]! / q - 1e-9);
    at = back[i * stride + at]! * width + (b - c);
  }
  spendLeftover(slots, n, budget, table);
  // Bucket rounding can cost the program an upgrade: the spec's degrade loop and the rank-first
  // fill are monotone too, and the best of the three is kept.
  let bestSlots: Int32Array = slots;
  for (const other of [degradeSlots(table, n, budget), rankFirstSlots(table, n, budget)]) {
    if (slotsValue(table, other) > slotsValue(table, bestSlots) + 1e-12) bestSlots = other;
  }
  const full = new Int32Array(ranked.length).fill(DROP);
  full.set(bestSlots.subarray(0, n));
  return toChoice(ranked, full);
}

/** Total value of a choice under the monotone values (what allocateMonotone maximises). */
export function monotoneValue(ranked: readonly Candidate[], choice: Choice, values: MonotoneValues = DEFAULT_MONOTONE_VALUES): number {
  let total = 0;
  choice.forEach((o, i) => {
    if (o >= 0) total += rankWeight(ranked[i]!, i, values) * values.level[ranked[i]!.options[o]!.level];
  });
  return total;
}

interface SlotTable {
  n: number;
  /** cost[i * (SLOTS + 1) + s], value likewise; the DROP slot costs and is worth 0. */
  cost: Float64Array;
  value: Float64Array;
}

function rankWeight(candidate: Candidate, rank: number, values: MonotoneValues): number {
  return Math.max(candidate.weight, 1e-6) * (rank + 1) ** -values.rankDecay;
}

function slotTable(ranked: readonly Candidate[], n: number, values: MonotoneValues): SlotTable {
  const cost = new Float64Array(n * (SLOTS + 1));
  const value = new Float64Array(n * (SLOTS + 1));
  for (let i = 0; i < n; i++) {
    const c = ranked[i]!;
    const w = rankWeight(c, i, values);
    for (let s = 0; s < SLOTS; s++) {
      const option = c.options[slotOption(c, s)]!;
      cost[i * (SLOTS + 1) + s] = option.cost;
      value[i * (SLOTS + 1) + s] = w * values.level[option.level];
    }
  }
  return { n, cost, value };
}

function slotsValue(t: SlotTable, slots: Int32Array): number {
  let total = 0;
  for (let i = 0; i < t.n; i++) total += t.value[i * (SLOTS + 1) + slots[i]!]!;
  return total;
}

function slotsCost(t: SlotTable, slots: Int32Array): number {
  let total = 0;
  for (let i = 0; i < t.n; i++) total += t.cost[i * (SLOTS + 1) + slots[i]!]!;
  return total;
}

/**
 * Spend what bucket rounding left: repeatedly take the single-slot upgrade (or the next dropped
 * file at stub) with the largest value gain that fits exactly and keeps the order.
 */
function spendLeftover(slots: Int32Array, n: number, budget: number, t: SlotTable): void {
  const at = (i: number, s: number) => i * (SLOTS + 1) + s;
  let used = slotsCost(t, slots);
  for (;;) {
    let pick = -1;
    let pickSlot = -1;
    let gain = 0;
    for (let i = 0; i < n; i++) {
      const s = slots[i]!;
      const above = i === 0 ? 0 : slots[i - 1]!;
      for (let u = s - 1; u >= above; u--) {
        const extra = t.cost[at(i, u)]! - t.cost[at(i, s)]!;
        const g = t.value[at(i, u)]! - t.value[at(i, s)]!;
        if (used + extra <= budget && g > gain + 1e-12) {
          pick = i;
          pickSlot = u;
          gain = g;
        }
      }
    }
    if (pick < 0) return;
    used += t.cost[at(pick, pickSlot)]! - t.cost[at(pick, slots[pick]!)]!;
    slots[pick] = pickSlot;
  }
}

/** The spec's degrade loop on slots: from full, the last-ranked file at the highest slot steps down first. */
function degradeSlots(t: SlotTable, n: number, budget: number): Int32Array {
  const slots = new Int32Array(n).fill(0);
  let total = slotsCost(t, slots);
  for (let level = 0; level < SLOTS && total > budget; level++) {
    for (let i = n - 1; i >= 0 && total > budget; i--) {
      if (slots[i] !== level) continue;
      total += t.cost[i * (SLOTS + 1) + level + 1]! - t.cost[i * (SLOTS + 1) + level]!;
      slots[i] = level + 1;
    }
  }
  return total <= budget ? slots : new Int32Array(n).fill(DROP);
}

/** Rank first: each file, best first, at the highest slot (no higher than the file above) that still fits. */
function rankFirstSlots(t: SlotTable, n: number, budget: number): Int32Array {
  const slots = new Int32Array(n).fill(DROP);
  let left = budget;
  let cap = 0;
  for (let i = 0; i < n; i++) {
    let s = cap;
    while (s < SLOTS && t.cost[i * (SLOTS + 1) + s]! > left) s++;
    if (s >= SLOTS) break;
    slots[i] = s;
    left -= t.cost[i * (SLOTS + 1) + s]!;
    cap = s;
  }
  return slots;
}

function toChoice(ranked: readonly Candidate[], slots: Int32Array): Choice {
  const choice = new Int32Array(ranked.length).fill(-1);
  for (let i = 0; i < ranked.length; i++) choice[i] = slots[i]! === DROP ? -1 : slotOption(ranked[i]!, slots[i]!);
  return choice;
}

/**
 * The spec's degrade loop over the whole ranked list: from full, the lowest-ranked file still at
 * the highest level steps down first; stubs are dropped last-ranked first. Monotone by
 * construction (`strategy: greedy`).
 */
export function degradeMonotone(ranked: readonly Candidate[], budget: number): Choice {
  const table = slotTable(ranked, ranked.length, DEFAULT_MONOTONE_VALUES);
  return toChoice(ranked, degradeSlots(table, ranked.length, budget));
}

/**
 * True when `choice` (over `ranked`, best first) never gives a file less than one ranked below
 * it: slots can be read off the options so that they never rise down the ranking (an option
 * stands for every slot it fills, e.g. a small file's full text is also its detailed level).
 */
export function isMonotone(ranked: readonly Candidate[], choice: Choice): boolean {
  let floor = 0;
  for (let i = 0; i < ranked.length; i++) {
    const [lo, hi] = slotRange(ranked[i]!, choice[i]!);
    floor = Math.max(floor, lo);
    if (floor > hi) return false;
  }
  return true;
}

function slotRange(candidate: Candidate, choice: number): [number, number] {
  if (choice < 0) return [DROP, DROP];
  let lo = DROP;
  let hi = -1;
  for (let s = 0; s < SLOTS; s++) {
    if (slotOption(candidate, s) !== choice) continue;
    lo = Math.min(lo, s);
    hi = Math.max(hi, s);
  }
  return hi < 0 ? [optionSlot(candidate, choice), optionSlot(candidate, choice)] : [lo, hi];
}
