import type { Level, LevelContent } from '../types.js';
import type { RenderFormat } from '../stages.js';
import type { Tokenizer } from '../tokenize/tokenizer.js';
import { LEVELS } from '../config/schema.js';
import { buildCandidate, isCandidate, type Candidate } from './candidates.js';
import type { TierOutcome } from './overflow.js';
import type { FileTier, TieredFile } from './tiers.js';

/** Tiers whose files may be lifted above their starting level, in the order they are offered spare budget. */
const UPGRADE_TIERS: readonly FileTier[] = ['supporting', 'reference'];

/**
 * Spend budget nobody needed. A tier's starting level (supporting detailed, reference summary)
 * is where it starts under pressure; when the whole allocation leaves `spare` tokens, files are
 * lifted towards full, supporting before reference and by relevance within a tier, each to the
 * highest level whose extra cost still fits. Without this a small repository with a large budget
 * would leave most of it unused (spec 003's own example uses 14.6%).
 *
 * Returns new outcomes (the inputs are not mutated), the upgraded paths, and how many tokens
 * the lifted files want beyond their starting levels (so "requested" still equals "used" when
 * nothing overflowed, as spec 000's log invariant says).
 */
export function upgradeWithSpare(args: {
  outcomes: Record<FileTier, TierOutcome>;
  tiered: ReadonlyMap<string, TieredFile>;
  levels: ReadonlyMap<string, readonly LevelContent[]>;
  spare: number;
  format: RenderFormat;
  tokenizer: Tokenizer;
}): { outcomes: Record<FileTier, TierOutcome>; upgraded: string[]; extraRequested: number } {
  const outcomes = { ...args.outcomes };
  const upgraded: string[] = [];
  let spare = args.spare;
  let extraRequested = 0;
  for (const tier of UPGRADE_TIERS) {
    const { candidates, choice } = outcomes[tier];
    const nextCandidates = [...candidates];
    const nextChoice = Int32Array.from(choice);
    const order = candidates.map((_, i) => i).sort((a, b) => candidates[b]!.relevance - candidates[a]!.relevance || (candidates[a]!.path < candidates[b]!.path ? -1 : 1));
    for (const i of order) {
      if (spare <= 0) break;
      const current = candidates[i]!;
      const held = choice[i]!;
      if (held < 0) continue;
      const option = current.options[held]!;
      if (option.truncated || option.level === 'full') continue;
      const tieredFile = args.tiered.get(current.path);
      if (!tieredFile) continue;
      const lifted = buildCandidate(tieredFile, args.levels.get(current.path), 'full', { format: args.format, tokenizer: args.tokenizer });
      if (!isCandidate(lifted)) continue;
      const pick = highestAffordable(lifted, option.level, option.cost + spare);
      if (pick < 0) continue;
      spare -= lifted.options[pick]!.cost - option.cost;
      extraRequested += lifted.options[pick]!.cost - current.options[0]!.cost;
      nextCandidates[i] = lifted;
      nextChoice[i] = pick;
      upgraded.push(current.path);
    }
    outcomes[tier] = { ...outcomes[tier], candidates: nextCandidates, choice: nextChoice };
  }
  return { outcomes, upgraded, extraRequested };
}

/** Index of the highest option above `current` costing at most `limit`, or -1. */
function highestAffordable(candidate: Candidate, current: Level, limit: number): number {
  const currentRank = LEVELS.indexOf(current);
  for (let i = 0; i < candidate.options.length; i++) {
    const option = candidate.options[i]!;
    if (LEVELS.indexOf(option.level) >= currentRank) return -1;
    if (option.cost <= limit) return i;
  }
  return -1;
}
