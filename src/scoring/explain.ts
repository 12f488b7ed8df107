import { posix } from 'node:path';
import type { Config, FactorName, ScoredFile } from '../types.js';
import { FACTOR_NAMES } from '../types.js';
import type { ScoreResult } from '../stages.js';
import { round6 } from './numbers.js';
import type { TierVerdict } from '../allocate/tiers.js';

/** One factor of one file, as `aiwg context-score` shows it. */
export interface FactorExplanation {
  name: FactorName;
  raw: number;
  score: number;
  weight: number;
  /** weight * score */
  contribution: number;
  detail: string;
}

export interface ScoreExplanation {
  path: string;
  category: ScoredFile['category'];
  method: ScoreResult['method'];
  embeddingModel: string | null;
  factors: FactorExplanation[];
  relevance: number;
  /** Where the tier rule (src/allocate/tiers.ts, the one context-budget uses) puts it. */
  tier: TierVerdict['tier'];
  /** Why: the threshold crossed, the task @-mention, or the calibration guard. */
  tierReason: string;
  mentionedInTask: boolean;
  /** 1-based rank among all candidates, and their number. */
  rank: number;
  candidates: number;
}

/**
 * Explain one scored file: each factor's raw value, normalised score, weight and
 * contribution, and the verdict of the tier rule (`tierOf` over the run's tiering). Pure.
 */
export function explainScore(path: string, result: ScoreResult, config: Config, verdict: TierVerdict): ScoreExplanation | null {
  const index = result.files.findIndex((f) => f.path === path);
  const file = result.files[index];
  if (file === undefined) return null;
  const weights = config.relevance_scoring.factors;
  const factors = FACTOR_NAMES.map((name) => {
    const f = file.factors[name];
    const weight = weights[name].weight;
    return { name, raw: f.raw, score: f.score, weight, contribution: round6(weight * f.score), detail: f.detail ?? '' };
  });
  const { tier, reason } = verdict;
  return {
    path: file.path,
    category: file.category,
    method: result.method,
    embeddingModel: result.embeddingModel,
    factors,
    relevance: file.relevance,
    tier,
    tierReason: reason,
    mentionedInTask: file.mentionedInTask,
    rank: index + 1,
    candidates: result.files.length,
  };
}

/** Plain-text rendering for the terminal. */
export function renderExplanation(e: ScoreExplanation, task: string): string {
  const rows = e.factors.map((f) => [f.name, fmt(f.raw), fmt(f.score), fmt(f.weight, 2), fmt(f.contribution), f.detail]);
  const header = ['factor', 'raw', 'score', 'weight', 'contribution', 'detail'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number)))
      .join('  ')
      .trimEnd();
  const model = e.embeddingModel ? ` (embedding model ${e.embeddingModel})` : e.method === 'keyword' ? '' : ' (no embedding model: keyword alignment)';
  return [
    `File:   ${e.path} (${e.category})`,
    `Task:   ${task}`,
    `Method: ${e.method}${model}`,
    '',
    line(header),
    ...rows.map(line),
    '',
    `Total relevance: ${fmt(e.relevance)}  (rank ${e.rank} of ${e.candidates})`,
    `Tier:            ${e.tier}  (${e.tierReason})`,
    '',
  ].join('\n');
}

/** Root-relative POSIX path of a file argument, or null when it leaves the root. */
export function toRootRelative(file: string, root: string, isAbsolute: boolean): string | null {
  const rel = isAbsolute ? posix.relative(toPosix(root), toPosix(file)) : posix.normalize(toPosix(file));
  if (rel === '' || rel === '.' || rel === '..' || rel.startsWith('../') || posix.isAbsolute(rel)) return null;
  return rel.replace(/^\.\//, '');
}

function toPosix(p: string): string {
  return p.replace(/\\/g, '/');
}

function fmt(x: number, digits = 3): string {
  return x.toFixed(digits);
}
