import type { Config, ExcludedFile, Level, ScoredFile, TierName } from '../types.js';
import { LEVELS } from '../config/schema.js';

/** Tiers that hold repository files; `history` holds conversation messages. */
export type FileTier = Exclude<TierName, 'history'>;
export const FILE_TIERS: readonly FileTier[] = ['primary', 'supporting', 'reference'];

/** A scored file placed in a tier, with the weight its value and ordering use. */
export interface TieredFile {
  file: ScoredFile;
  tier: FileTier;
  /** relevance, lifted to primary_threshold for files the task @-mentions. */
  weight: number;
}

export interface Tiering {
  /** Each tier's files by weight descending, ties by path ascending. */
  tiers: Record<FileTier, TieredFile[]>;
  /** Files under include_minimum, with the reason. */
  excluded: ExcludedFile[];
  notes: string[];
}

/**
 * Calibration guard: when no file reaches primary_threshold and none is @-mentioned, the
 * top-ranked file is promoted to primary if its task_alignment factor is at least this and its
 * relevance at least supporting_threshold. With the default weights a file that matches the task
 * perfectly but was not touched recently scores about 0.6, under the 0.7 primary threshold.
 */
export const CALIBRATION_MIN_ALIGNMENT = 0.5;

/**
 * Bucket scored files into tiers by the thresholds of spec 003: relevance >= primary_threshold
 * is primary, >= supporting_threshold supporting, >= include_minimum reference, below excluded.
 * A file the task @-mentions is primary whatever its score.
 */
export function assignTiers(scored: readonly ScoredFile[], config: Config): Tiering {
  const { include_minimum, primary_threshold, supporting_threshold } = config.relevance_scoring.thresholds;
  const tiers: Record<FileTier, TieredFile[]> = { primary: [], supporting: [], reference: [] };
  const excluded: ExcludedFile[] = [];
  const notes: string[] = [];
  const ranked = [...scored].sort(byRelevanceThenPath);

  for (const file of ranked) {
    if (file.mentionedInTask) {
      tiers.primary.push({ file, tier: 'primary', weight: Math.max(file.relevance, primary_threshold) });
    } else if (file.relevance >= primary_threshold) {
      tiers.primary.push({ file, tier: 'primary', weight: file.relevance });
    } else if (file.relevance >= supporting_threshold) {
      tiers.supporting.push({ file, tier: 'supporting', weight: file.relevance });
    } else if (file.relevance >= include_minimum) {
      tiers.reference.push({ file, tier: 'reference', weight: file.relevance });
    } else {
      excluded.push({ path: file.path, relevance_score: file.relevance, reason: `relevance ${fixed(file.relevance)} below include_minimum ${fixed(include_minimum)}` });
    }
  }

  const top = tiers.supporting[0];
  if (tiers.primary.length === 0 && top && top.file.factors.task_alignment.score >= CALIBRATION_MIN_ALIGNMENT) {
    tiers.supporting.shift();
    tiers.primary.push({ ...top, tier: 'primary' });
    notes.push(
      `no file reached primary_threshold ${fixed(primary_threshold)}: promoted ${top.file.path} (relevance ${fixed(top.file.relevance)}, task_alignment ${fixed(top.file.factors.task_alignment.score)}) to primary`,
    );
  }
  for (const tier of Object.values(tiers)) tier.sort((a, b) => b.weight - a.weight || comparePaths(a.file.path, b.file.path));
  return { tiers, excluded, notes };
}

/** The level each tier starts at (spec 003 `use_when`), read from the configured use_when texts. */
export function startingLevels(config: Config): Record<FileTier, Level> {
  const levels = config.summarization.levels;
  const pick = (tier: FileTier, fallback: Level): Level =>
    LEVELS.find((level) => new RegExp(`\\b${tier}\\b`, 'i').test(levels[level].use_when)) ?? fallback;
  return { primary: pick('primary', 'full'), supporting: pick('supporting', 'detailed'), reference: pick('reference', 'summary') };
}

export function byRelevanceThenPath(a: ScoredFile, b: ScoredFile): number {
  return b.relevance - a.relevance || comparePaths(a.path, b.path);
}

export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function fixed(value: number): string {
  return (Math.round(value * 100) / 100).toString();
}
