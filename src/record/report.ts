import { formatCount as fmt } from '../util/format.js';
export { fmt };
import { LEVELS, TIER_NAMES, type Level, type TierName } from '../config/schema.js';
import type { BudgetRecord } from './record-schema.js';
import { maxOf, minOf } from '../util/extremes.js';

/**
 * `aiwg context-report`: what the recorded runs say about the budget. Spec 000 keeps its
 * JSONL log so someone can tell whether budgets are too tight or too loose; this turns the
 * records into that answer. Pure: records in, report out.
 */

/** Where each tier starts (spec 003 `use_when`); a file below it was degraded. */
export const STARTING_LEVEL: Record<Exclude<TierName, 'history'>, Level> = {
  primary: 'full',
  supporting: 'detailed',
  reference: 'summary',
};

/** The allocator's reason for a file dropped for lack of budget (src/allocate/allocate-context.ts). */
export const BUDGET_DROP_REASON = /^over budget\b/i;

/** Fewer runs than this say nothing about a pattern. */
export const MIN_RUNS_FOR_ADVICE = 3;
/** At or above this utilization a run used its whole budget. */
export const FULL_UTILIZATION = 0.95;
/** Below this utilization a run left most of its budget unused. */
export const LOW_UTILIZATION = 0.3;
/** Suggested budgets put the largest recorded run at this utilization. */
const TARGET_UTILIZATION = 0.8;
const FILES_LISTED = 10;

export interface TierUse {
  budget: number;
  tokens: number;
  files: number;
}

export interface RunReport {
  run_id: string;
  timestamp: string;
  task: string;
  tokenizer: string;
  total_budget: number;
  available: number;
  rendered_tokens: number;
  requested_tokens: number;
  utilization: number;
  efficiency: number;
  tiers: Record<TierName, TierUse>;
  overflow: { occurred: boolean; strategy: string | null; files_affected: number };
  truncated_files: number;
  degraded_files: number;
  dropped_files: number;
}

export interface FileTrend {
  path: string;
  /** Runs in which the file sat below its tier's starting level. */
  degraded: number;
  /** Runs in which the file was dropped for lack of budget. */
  dropped: number;
}

export type AdviceKind = 'too_tight' | 'too_loose' | 'ok' | 'insufficient_data';

export interface Advice {
  kind: AdviceKind;
  message: string;
}

export interface ContextReport {
  /** Oldest first. */
  runs: RunReport[];
  summary: {
    runs: number;
    first: string | null;
    last: string | null;
    /** Runs where the overflow strategy had to act. */
    overflowed: number;
    /** Runs where at least one file was cut by the `truncate` strategy. */
    truncated: number;
    /** Runs per overflow strategy applied. */
    strategies: Record<string, number>;
    utilization: { mean: number; min: number; max: number } | null;
  };
  /** Files most often degraded or dropped, most first, ties by path. */
  files: FileTrend[];
  advice: Advice[];
}

export function buildReport(records: readonly BudgetRecord[]): ContextReport {
  const sorted = [...records].sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp) || compare(a.run_id, b.run_id));
  const runs = sorted.map(runReport);
  const strategies: Record<string, number> = {};
  for (const run of runs) if (run.overflow.strategy) strategies[run.overflow.strategy] = (strategies[run.overflow.strategy] ?? 0) + 1;
  const utilizations = runs.map((r) => r.utilization);
  return {
    runs,
    summary: {
      runs: runs.length,
      first: runs[0]?.timestamp ?? null,
      last: runs.at(-1)?.timestamp ?? null,
      overflowed: runs.filter((r) => r.overflow.occurred).length,
      truncated: runs.filter((r) => r.truncated_files > 0).length,
      strategies,
      utilization:
        utilizations.length === 0
          ? null
          : { mean: round(utilizations.reduce((a, b) => a + b, 0) / utilizations.length), min: minOf(utilizations), max: maxOf(utilizations) },
    },
    files: fileTrends(sorted),
    advice: advise(sorted, runs),
  };
}

function runReport(record: BudgetRecord): RunReport {
  const tiers = Object.fromEntries(
    TIER_NAMES.map((tier) => {
      const t = record.allocation[tier];
      return [tier, { budget: t.budget, tokens: t.total_tokens, files: t.files.length }];
    }),
  ) as Record<TierName, TierUse>;
  return {
    run_id: record.run_id,
    timestamp: record.timestamp,
    task: record.task,
    tokenizer: record.tokenizer,
    total_budget: record.total_budget,
    available: record.available,
    rendered_tokens: record.metrics.rendered_tokens,
    requested_tokens: record.metrics.requested_tokens,
    utilization: record.metrics.utilization,
    efficiency: record.metrics.efficiency,
    tiers,
    overflow: { occurred: record.overflow.occurred, strategy: record.overflow.strategy_applied, files_affected: record.overflow.files_affected.length },
    truncated_files: TIER_NAMES.reduce((n, tier) => n + record.allocation[tier].files.filter((f) => f.truncated).length, 0),
    degraded_files: degradedPaths(record).length,
    dropped_files: droppedPaths(record).length,
  };
}

function degradedPaths(record: BudgetRecord): string[] {
  const paths: string[] = [];
  for (const [tier, start] of Object.entries(STARTING_LEVEL) as Array<[keyof typeof STARTING_LEVEL, Level]>) {
    for (const file of record.allocation[tier].files) if (LEVELS.indexOf(file.level) > LEVELS.indexOf(start)) paths.push(file.path);
  }
  return paths;
}

function droppedPaths(record: BudgetRecord): string[] {
  return record.excluded.filter((e) => BUDGET_DROP_REASON.test(e.reason)).map((e) => e.path);
}

function fileTrends(records: readonly BudgetRecord[]): FileTrend[] {
  const trends = new Map<string, FileTrend>();
  const bump = (path: string, key: 'degraded' | 'dropped') => {
    const trend = trends.get(path) ?? { path, degraded: 0, dropped: 0 };
    trend[key]++;
    trends.set(path, trend);
  };
  for (const record of records) {
    for (const path of new Set(degradedPaths(record))) bump(path, 'degraded');
    for (const path of new Set(droppedPaths(record))) bump(path, 'dropped');
  }
  return [...trends.values()]
    .sort((a, b) => b.degraded + b.dropped - (a.degraded + a.dropped) || compare(a.path, b.path))
    .slice(0, FILES_LISTED);
}

/**
 * Tight: overflow in at least half of the runs, or half of them at ~100% utilization.
 * Loose: more than half of the runs under 30% utilization. Suggested sizes are rounded up to
 * 1,000 tokens and computed from the recorded need plus the latest run's reserves.
 */
function advise(records: readonly BudgetRecord[], runs: readonly RunReport[]): Advice[] {
  const n = runs.length;
  if (n < MIN_RUNS_FOR_ADVICE) {
    return [{ kind: 'insufficient_data', message: `${n} run${n === 1 ? '' : 's'} recorded: advice needs at least ${MIN_RUNS_FOR_ADVICE}` }];
  }
  const latest = records.at(-1) as BudgetRecord;
  const reserves = latest.reserved.output + latest.reserved.system;
  const overflowed = runs.filter((r) => r.overflow.occurred).length;
  const full = runs.filter((r) => r.utilization >= FULL_UTILIZATION).length;
  const low = runs.filter((r) => r.utilization < LOW_UTILIZATION).length;
  const mean = runs.reduce((a, r) => a + r.utilization, 0) / n;
  const advice: Advice[] = [];

  if (overflowed * 2 >= n || full * 2 >= n) {
    const need = percentile(runs.map((r) => r.requested_tokens), 0.75);
    const suggested = roundUp(need / TARGET_UTILIZATION + reserves);
    const raise = suggested > latest.total_budget ? `raise --max-tokens to about ${fmt(suggested)} (75% of runs needed at most ${fmt(need)} tokens before degradation)` : 'raise --max-tokens';
    advice.push({
      kind: 'too_tight',
      message:
        `budgets look too tight: ${overflowed} of ${n} runs overflowed and ${full} used ${pct(FULL_UTILIZATION)} or more (mean ${pct(mean)}): ` +
        `${raise}, or raise relevance_scoring.thresholds.include_minimum so fewer files compete`,
    });
  }
  if (low * 2 > n) {
    const largest = maxOf(runs.map((r) => r.rendered_tokens));
    const suggested = roundUp(largest / TARGET_UTILIZATION + reserves);
    const lower = suggested < latest.total_budget ? `lower --max-tokens (budget_config.total_budget.max_tokens) to about ${fmt(suggested)}` : 'lower --max-tokens';
    advice.push({
      kind: 'too_loose',
      message: `budgets look too loose: ${low} of ${n} runs used under ${pct(LOW_UTILIZATION)} of the available tokens (mean ${pct(mean)}, largest run ${fmt(largest)} tokens): ${lower}`,
    });
  }
  if (advice.length === 0) {
    advice.push({ kind: 'ok', message: `budgets fit: mean utilization ${pct(mean)}, overflow in ${overflowed} of ${n} runs` });
  }
  return advice;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? 0;
}

function roundUp(tokens: number): number {
  return Math.ceil(tokens / 1000) * 1000;
}

function round(value: number): number {
  return Math.round(value * 10000) / 10000;
}

export function pct(ratio: number): string {
  return `${(ratio * 100).toFixed(1).replace(/\.0$/, '')}%`;
}


function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
