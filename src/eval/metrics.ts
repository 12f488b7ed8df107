import type { Level, TierName } from '../config/schema.js';
import { TIER_NAMES } from '../config/schema.js';
import type { BudgetRecord } from '../record/record-schema.js';

/** Where one file ended up in a context: its tier (null for the baseline, which has none) and level. */
export interface Placement {
  tier: TierName | null;
  level: Level;
}

/** What one method produced for one instance at one budget: the facts the metrics are computed from. */
export interface RunOutcome {
  /** Changed files that existed at the parent. Never empty. */
  gold: string[];
  /** Every file in the context, by path. */
  placements: Map<string, Placement>;
  /** The method's ranking of all candidates, best first. */
  ranking: string[];
  /** False for a method without tiers (the BM25 baseline): its primary hit rate is n/a. */
  tiered: boolean;
  renderedTokens: number;
  available: number;
  /** Wall time of one run, ms. */
  ms: number;
}

/** Metrics of one run. Fractions are in [0, 1]. */
export interface InstanceMetrics {
  /** Gold files included at full or detailed level / gold files. */
  recallDetailed: number;
  /** Gold files included at any level / gold files. */
  recallAny: number;
  /** Every gold file included at some level (the SWE-bench paper's "all retrieved"). */
  allIncluded: boolean;
  /** At least one gold file included at some level (the paper's "any retrieved"). */
  oneIncluded: boolean;
  /** A gold file in the primary tier; null when the method has no tiers. */
  primaryHit: boolean | null;
  /** Mean over gold files of 1 / rank in the method's ranking (0 for an unranked file). */
  reciprocalRank: number;
  /** Rendered tokens <= available. */
  adherent: boolean;
  ms: number;
}

/** Metrics of one method at one budget over all instances. Rates are in [0, 1]. */
export interface MethodSummary {
  instances: number;
  /** Runs that threw; they are not in the means. */
  errors: number;
  recallDetailed: number;
  recallAny: number;
  allIncluded: number;
  oneIncluded: number;
  /** null when the method has no tiers (the BM25 baseline). */
  primaryHitRate: number | null;
  mrr: number;
  adherence: number;
  msPerRun: number;
}

const DETAILED_OR_BETTER: ReadonlySet<Level> = new Set(['full', 'detailed']);

/** Metrics of one run. Pure. */
export function instanceMetrics(outcome: RunOutcome): InstanceMetrics {
  const { gold, placements } = outcome;
  const placed = gold.map((path) => placements.get(path));
  const anyCount = placed.filter((p) => p !== undefined).length;
  const detailedCount = placed.filter((p) => p !== undefined && DETAILED_OR_BETTER.has(p.level)).length;
  const rank = new Map(outcome.ranking.map((path, i) => [path, i + 1]));
  const reciprocal = gold.reduce((sum, path) => {
    const r = rank.get(path);
    return sum + (r === undefined ? 0 : 1 / r);
  }, 0);
  return {
    recallDetailed: detailedCount / gold.length,
    recallAny: anyCount / gold.length,
    allIncluded: anyCount === gold.length,
    oneIncluded: anyCount > 0,
    primaryHit: outcome.tiered ? placed.some((p) => p?.tier === 'primary') : null,
    reciprocalRank: reciprocal / gold.length,
    adherent: outcome.renderedTokens <= outcome.available,
    ms: outcome.ms,
  };
}

/** Means over the runs of one method at one budget. Pure. */
export function summarize(runs: InstanceMetrics[], errors = 0): MethodSummary {
  const mean = (values: number[]) => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);
  const rate = (values: boolean[]) => mean(values.map((v) => (v ? 1 : 0)));
  const primary = runs.map((r) => r.primaryHit).filter((v): v is boolean => v !== null);
  return {
    instances: runs.length,
    errors,
    recallDetailed: mean(runs.map((r) => r.recallDetailed)),
    recallAny: mean(runs.map((r) => r.recallAny)),
    allIncluded: rate(runs.map((r) => r.allIncluded)),
    oneIncluded: rate(runs.map((r) => r.oneIncluded)),
    primaryHitRate: primary.length === 0 ? null : rate(primary),
    mrr: mean(runs.map((r) => r.reciprocalRank)),
    adherence: rate(runs.map((r) => r.adherent)),
    msPerRun: mean(runs.map((r) => r.ms)),
  };
}

/** Placements of every file a budget record allocated, by path. */
export function placementsFromRecord(record: BudgetRecord): Map<string, Placement> {
  const placements = new Map<string, Placement>();
  for (const tier of TIER_NAMES) {
    for (const file of record.allocation[tier].files) placements.set(file.path, { tier, level: file.level });
  }
  return placements;
}
