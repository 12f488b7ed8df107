import { TIER_NAMES, type Level, type TierName } from '../config/schema.js';
import { FACTOR_NAMES, type FactorName } from '../types.js';
import type { BudgetRecord } from './record-schema.js';
import { levelReason } from './level-reason.js';

/** One file as a recorded run saw it: `aiwg context-score <file> --run <id>`. */
export interface RecordedExplanation {
  run_id: string;
  timestamp: string;
  task: string;
  path: string;
  /** Included with a tier and level, or excluded with the reason. */
  outcome: 'included' | 'excluded';
  tier: TierName | null;
  level: Level | null;
  tokens: number | null;
  relevance: number | null;
  factors: Array<{ name: FactorName; score: number; weight: number; contribution: number }> | null;
  /** Why the level (included) or why left out (excluded). */
  reason: string;
}

/**
 * Explain a file from a recorded run, never from today's tree: its factor scores and weights as
 * recorded, its tier and level and why. Null when the run never saw the path. Pure.
 */
export function explainRecorded(record: BudgetRecord, path: string): RecordedExplanation | null {
  const base = { run_id: record.run_id, timestamp: record.timestamp, task: record.task, path };
  for (const tier of TIER_NAMES) {
    const file = record.allocation[tier].files.find((f) => f.path === path);
    if (!file) continue;
    const overflow = record.overflow.files_affected.includes(path) ? record.overflow.strategy_applied : null;
    return {
      ...base,
      outcome: 'included',
      tier,
      level: file.level,
      tokens: file.tokens,
      relevance: file.relevance_score,
      factors: FACTOR_NAMES.map((name) => {
        const weight = record.scoring.weights[name];
        return { name, score: file.factors[name], weight, contribution: round(file.factors[name] * weight) };
      }),
      reason: file.level_reason ?? levelReason({ tier, level: file.level, truncated: file.truncated, overflow }),
    };
  }
  const excluded = record.excluded.find((e) => e.path === path || (e.path.endsWith('/') && path.startsWith(e.path)));
  if (!excluded) return null;
  return { ...base, outcome: 'excluded', tier: null, level: null, tokens: null, relevance: excluded.relevance_score, factors: null, reason: excluded.reason };
}

export function renderRecordedExplanation(e: RecordedExplanation): string {
  const out = [`File:   ${e.path}`, `Run:    ${e.run_id} (${e.timestamp})`, `Task:   ${e.task}`, ''];
  if (e.factors) {
    const rows = e.factors.map((f) => [f.name, f.score.toFixed(4), f.weight.toFixed(2), f.contribution.toFixed(4)]);
    const header = ['factor', 'score', 'weight', 'contribution'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
    const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ');
    out.push(line(header), ...rows.map(line), '');
  }
  if (e.outcome === 'included') {
    out.push(`Relevance: ${(e.relevance ?? 0).toFixed(4)}`, `Tier:      ${e.tier}`, `Level:     ${e.level}, ${e.tokens} tokens`, `Why:       ${e.reason}`);
  } else {
    out.push(`Excluded${e.relevance === null ? '' : ` at relevance ${e.relevance.toFixed(4)}`}: ${e.reason}`);
  }
  return `${out.join('\n')}\n`;
}

function round(value: number): number {
  return Math.round(value * 10000) / 10000;
}
