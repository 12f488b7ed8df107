import { LEVELS } from '../config/schema.js';
import type { Candidate } from './candidates.js';
import type { Choice } from './optimise.js';

/**
 * The spec's degrade loop (`strategy: greedy`): every file starts at its tier's starting level;
 * while the tier is over budget, level by level (full, then detailed, summary, stub), the file
 * with the lowest relevance still at that level moves down to its next level, and a stub is
 * dropped. Ties: the later path degrades first. Returns option indices (-1 = dropped).
 */
export function degradeGreedy(candidates: readonly Candidate[], budget: number): Choice {
  const choice = new Int32Array(candidates.length).fill(0);
  let total = candidates.reduce((sum, c) => sum + c.options[0]!.cost, 0);
  if (total <= budget) return choice;
  const ascending = lowestFirst(candidates);
  for (const level of LEVELS) {
    for (const i of ascending) {
      const current = choice[i]!;
      if (current < 0 || candidates[i]!.options[current]!.level !== level) continue;
      const options = candidates[i]!.options;
      const next = current + 1 < options.length ? current + 1 : -1;
      total += (next >= 0 ? options[next]!.cost : 0) - options[current]!.cost;
      choice[i] = next;
      if (total <= budget) return choice;
    }
  }
  return choice;
}

/**
 * Spec 003 `prioritize` without an optimiser: files by relevance descending, each at its
 * starting level if it still fits, else dropped (later, smaller files may still fit).
 */
export function prioritizeGreedy(candidates: readonly Candidate[], budget: number): Choice {
  const choice = new Int32Array(candidates.length).fill(-1);
  let used = 0;
  for (const i of [...lowestFirst(candidates)].reverse()) {
    const cost = candidates[i]!.options[0]!.cost;
    if (used + cost <= budget) {
      used += cost;
      choice[i] = 0;
    }
  }
  return choice;
}

/** Candidate indices by weight ascending, ties by path descending (so earlier paths win). */
export function lowestFirst(candidates: readonly Candidate[]): number[] {
  return candidates
    .map((_, i) => i)
    .sort((a, b) => candidates[a]!.weight - candidates[b]!.weight || (candidates[a]!.path < candidates[b]!.path ? 1 : candidates[a]!.path > candidates[b]!.path ? -1 : 0));
}
