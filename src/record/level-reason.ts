import { LEVELS, type Level, type TierName } from '../config/schema.js';
import { STARTING_LEVEL } from './report.js';

/**
 * Why a file got its level, in one sentence, from what the allocator decides on: the tier's
 * starting level (spec 003 `use_when`), the level given, whether the overflow strategy acted on
 * the file, and truncation. Pure; the record keeps this sentence per file (`level_reason`).
 */
export function levelReason(input: {
  tier: TierName;
  level: Level;
  truncated?: boolean;
  /** The overflow strategy applied to this file, or null. */
  overflow: string | null;
}): string {
  const { tier, level, overflow } = input;
  if (input.truncated) return `cut to fit by the "truncate" overflow strategy (${tier} tier, ${level})`;
  if (tier === 'history') return 'conversation history: kept within the history tier budget';
  const start = STARTING_LEVEL[tier];
  const rank = LEVELS.indexOf(level) - LEVELS.indexOf(start);
  if (rank === 0) return `the ${tier} tier starts files at ${start}, and it fit`;
  if (rank < 0) return `lifted from ${start} to ${level}: budget was left over after every tier was served`;
  const by = overflow === null ? 'to fit the budget' : `by the "${overflow}" overflow strategy to fit the budget`;
  return `reduced from ${start} to ${level} ${by}`;
}
