import type { Config, ExcludedFile, Level, ScoredFile, TierName } from '../types.js';
import { LEVELS } from '../config/schema.js';
import { compareScored } from '../scoring/score-files.js';

/** Tiers that hold repository files; `history` holds conversation messages. */
export type FileTier = Exclude<TierName, 'history'>;
export const FILE_TIERS: readonly FileTier[] = ['primary', 'supporting', 'reference'];

/** A scored file placed in a tier, with the weight its value and ordering use. */
export interface TieredFile {
  file: ScoredFile;
  tier: FileTier;
  /** relevance, lifted to primary_threshold for files the task @-mentions. */
  weight: number;
  /** Why the rule put it there: the threshold crossed, the @-mention, or the calibration guard. */
  reason: string;
}

export interface Tiering {
  /** Each tier's files by weight descending, ties by path ascending. */
  tiers: Record<FileTier, TieredFile[]>;
  /** Files under include_minimum, with the reason. */
  excluded: ExcludedFile[];
  notes: string[];
}

/** Where the tier rule puts one file, as `aiwg context-score` explains it. */
export interface TierVerdict {
  tier: FileTier | 'excluded';
  reason: string;
}

/**
 * Calibration guard: when no file reaches primary_threshold and none is @-mentioned, the
 * top-ranked file is promoted to primary if its task_alignment factor is at least this and its
 * relevance at least supporting_threshold. With the default weights a file that matches the task
 * perfectly but was not touched recently scores about 0.6, under the 0.7 primary threshold.
 */
export const CALIBRATION_MIN_ALIGNMENT = 0.5;

/**
 * The one tier rule, used by context-budget (allocation) and context-score (explanation) alike.
 * Pure: scored files and config in, tiers out. Spec 003's thresholds: relevance >=
 * primary_threshold is primary, >= supporting_threshold supporting, >= include_minimum reference,
 * below excluded; with thresholds.relative (default on) the best-ranked files of the task are
 * primary / supporting / kept too when close enough to its best relevance (rank- and
 * distribution-relative, the absolute thresholds stay a floor). A file the task @-mentions
 * (TaskFacts.mentioned, carried as ScoredFile.mentionedInTask) is primary whatever its score.
 * Then the calibration guard.
 */
export function assignTiers(scored: readonly ScoredFile[], config: Config): Tiering {
  const { include_minimum, primary_threshold, supporting_threshold, relative } = config.relevance_scoring.thresholds;
  const tiers: Record<FileTier, TieredFile[]> = { primary: [], supporting: [], reference: [] };
  const excluded: ExcludedFile[] = [];
  const notes: string[] = [];
  const ranked = [...scored].sort(byRelevanceThenPath);
  // Rank-relative cut-offs on the evidence of a match (task_alignment; relevance has a floor from
  // the other factors even for unrelated files): the task's own best match sets the scale, the
  // absolute thresholds stay a floor, and a file without any alignment is never lifted.
  const alignment = (f: ScoredFile) => f.factors.task_alignment.score;
  let best = 0;
  for (const f of ranked) if (!f.mentionedInTask) best = Math.max(best, alignment(f));
  const rel = relative.enabled && best > 0 ? relative : null;
  let rank = 0;
  // the reason of an excluded file depends only on its relevance to two decimals: written once per value (babel excludes ~26k files a run)
  const belowReasons = new Map<number, string>();
  const belowMinimum = (relevance: number): string => {
    const hundredths = Math.round(relevance * 100);
    let reason = belowReasons.get(hundredths);
    if (reason === undefined) belowReasons.set(hundredths, (reason = `relevance ${fixed(relevance)} below include_minimum ${fixed(include_minimum)}`));
    return reason;
  };

  for (const file of ranked) {
    if (file.mentionedInTask) {
      tiers.primary.push({ file, tier: 'primary', weight: Math.max(file.relevance, primary_threshold), reason: 'the task @-mentions it' });
      continue;
    }
    const r = rank++;
    const near = (top: number, ratio: number) => rel !== null && r < top && alignment(file) > 0 && alignment(file) >= ratio * best;
    const relReason = (top: number, ratio: number) => `ranked ${r + 1} (within the first ${top}) with task_alignment >= ${ratio} x the best ${fixed(best)}`;
    if (file.relevance >= primary_threshold) {
      tiers.primary.push({ file, tier: 'primary', weight: file.relevance, reason: `relevance >= primary_threshold ${primary_threshold}` });
    } else if (rel && near(rel.primary_top, rel.primary_ratio)) {
      tiers.primary.push({ file, tier: 'primary', weight: file.relevance, reason: relReason(rel.primary_top, rel.primary_ratio) });
    } else if (file.relevance >= supporting_threshold) {
      tiers.supporting.push({ file, tier: 'supporting', weight: file.relevance, reason: `relevance >= supporting_threshold ${supporting_threshold}` });
    } else if (rel && near(rel.supporting_top, rel.supporting_ratio)) {
      tiers.supporting.push({ file, tier: 'supporting', weight: file.relevance, reason: relReason(rel.supporting_top, rel.supporting_ratio) });
    } else if (file.relevance >= include_minimum) {
      tiers.reference.push({ file, tier: 'reference', weight: file.relevance, reason: `relevance >= include_minimum ${include_minimum}` });
    } else if (rel && near(rel.include_top, rel.include_ratio)) {
      tiers.reference.push({ file, tier: 'reference', weight: file.relevance, reason: relReason(rel.include_top, rel.include_ratio) });
    } else {
      excluded.push({ path: file.path, relevance_score: file.relevance, reason: belowMinimum(file.relevance) });
    }
  }

  const top = tiers.supporting[0];
  if (tiers.primary.length === 0 && top && top.file.factors.task_alignment.score >= CALIBRATION_MIN_ALIGNMENT) {
    tiers.supporting.shift();
    const alignment = fixed(top.file.factors.task_alignment.score);
    tiers.primary.push({
      ...top,
      tier: 'primary',
      reason: `calibration guard: no file reached primary_threshold ${primary_threshold}; the top-ranked file has task_alignment ${alignment} >= ${CALIBRATION_MIN_ALIGNMENT}`,
    });
    notes.push(
      `no file reached primary_threshold ${fixed(primary_threshold)}: promoted ${top.file.path} (relevance ${fixed(top.file.relevance)}, task_alignment ${alignment}) to primary`,
    );
  }
  for (const tier of Object.values(tiers)) tier.sort((a, b) => b.weight - a.weight || comparePaths(a.file.path, b.file.path));
  return { tiers, excluded, notes };
}

/** The verdict of the tier rule for one path of a tiering; null when the path was not scored. */
export function tierOf(tiering: Tiering, path: string): TierVerdict | null {
  for (const tier of FILE_TIERS) {
    const found = tiering.tiers[tier].find((f) => f.file.path === path);
    if (found) return { tier, reason: found.reason };
  }
  const excluded = tiering.excluded.find((e) => e.path === path);
  return excluded ? { tier: 'excluded', reason: excluded.reason } : null;
}

/** Paths the tier rule keeps (every tier, none excluded): the files whose levels a run needs. */
export function tieredPaths(tiering: Tiering): Set<string> {
  return new Set(FILE_TIERS.flatMap((tier) => tiering.tiers[tier].map((f) => f.file.path)));
}

/** The level each tier starts at (spec 003 `use_when`), read from the configured use_when texts. */
export function startingLevels(config: Config): Record<FileTier, Level> {
  const levels = config.summarization.levels;
  const pick = (tier: FileTier, fallback: Level): Level =>
    LEVELS.find((level) => new RegExp(`\\b${tier}\\b`, 'i').test(levels[level].use_when)) ?? fallback;
  return { primary: pick('primary', 'full'), supporting: pick('supporting', 'detailed'), reference: pick('reference', 'summary') };
}

/** The ranking order of the score stage (relevance, then evidence, then path): one rule for both. */
export function byRelevanceThenPath(a: ScoredFile, b: ScoredFile): number {
  return compareScored(a, b);
}

export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function fixed(value: number): string {
  return (Math.round(value * 100) / 100).toString();
}
