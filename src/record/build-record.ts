import type { BudgetPlan, AllocateResult, ScoreResult } from '../stages.js';
import type { CollectResult, Config, TierAllocation, TierName } from '../types.js';
import { FACTOR_NAMES } from '../types.js';
import { TIER_NAMES } from '../config/schema.js';
import { RECORD_VERSION, validateRecord, type BudgetRecord } from './record-schema.js';
import { TOOL_VERSION } from '../version.js';
import { capStoredText } from '../security/redact-secrets.js';
import { levelReason } from './level-reason.js';
import { configHash } from '../config/load.js';

export interface BuildRecordInput {
  runId: string;
  timestampMs: number;
  task: string;
  root: string;
  config: Config;
  plan: BudgetPlan;
  collected: CollectResult;
  scoring: ScoreResult;
  allocation: AllocateResult;
  warnings: string[];
  timings: Record<string, number>;
}

/**
 * Turn one run's results into the budget record (spec 003 `context_budget_record` plus the
 * audit fields). Pure; validated by validateRecord (E_RECORD, exit 1) so a record that breaks
 * the contract fails here, before anything reaches disk or stdout.
 */
export function buildRecord(input: BuildRecordInput): BudgetRecord {
  const { allocation, plan, config } = input;
  const used = TIER_NAMES.reduce((sum, tier) => sum + allocation.tiers[tier].total_tokens, 0);
  const weighted = TIER_NAMES.reduce(
    (sum, tier) => sum + allocation.tiers[tier].files.reduce((s, f) => s + f.relevance_score * f.tokens, 0),
    0,
  );
  const factors = config.relevance_scoring.factors;
  const affected = new Set(allocation.overflow.files_affected);
  const overflowFor = (path: string) => (allocation.overflow.occurred && affected.has(path) ? config.budget_config.overflow_strategy : null);
  const record: BudgetRecord = {
    version: RECORD_VERSION,
    run_id: input.runId,
    timestamp: new Date(input.timestampMs).toISOString(),
    // Capped: a record stores the task, it does not archive a pasted log.
    task: capStoredText(input.task),
    root: input.root,
    tokenizer: config.tokenizer,
    total_budget: plan.total,
    reserved: { output: plan.reserved.output, system: plan.reserved.system },
    available: plan.available,
    budget_plan: {
      one_pool: plan.onePool,
      tiers: Object.fromEntries(TIER_NAMES.map((tier) => [tier, { percent: plan.shares[tier], tokens: plan.tiers[tier] }])) as NonNullable<BudgetRecord['budget_plan']>['tiers'],
    },
    allocation: Object.fromEntries(TIER_NAMES.map((tier) => [tier, recordTier(tier, allocation.tiers[tier], overflowFor)])) as Record<
      TierName,
      BudgetRecord['allocation']['primary']
    >,
    excluded: [...input.collected.excluded, ...allocation.excluded]
      .map((e) => ({ path: e.path, relevance_score: e.relevance_score === undefined ? null : round(e.relevance_score), reason: e.reason }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    // The allocate stage decided it (strategy and sorted paths): the record only carries it.
    overflow: { ...allocation.overflow, files_affected: [...allocation.overflow.files_affected] },
    metrics: {
      utilization: plan.available === 0 ? 0 : round(allocation.renderedTokens / plan.available),
      efficiency: used === 0 ? 0 : round(weighted / used),
      rendered_tokens: allocation.renderedTokens,
      requested_tokens: allocation.requestedTokens,
    },
    scoring: {
      method: input.scoring.method,
      embedding_model: input.scoring.embeddingModel,
      weights: Object.fromEntries(FACTOR_NAMES.map((name) => [name, factors[name].weight])) as BudgetRecord['scoring']['weights'],
    },
    warnings: [...new Set(input.warnings)],
    timings_ms: input.timings,
    tool_version: TOOL_VERSION,
    config_hash: configHash(config),
  };
  return validateRecord(record);
}

function recordTier(name: TierName, tier: TierAllocation, overflowFor: (path: string) => string | null): BudgetRecord['allocation']['primary'] {
  return {
    budget: tier.budget,
    total_tokens: tier.total_tokens,
    files: tier.files.map((f) => ({
      path: f.path,
      tokens: f.tokens,
      level: f.level,
      relevance_score: round(f.relevance_score),
      factors: Object.fromEntries(FACTOR_NAMES.map((name) => [name, round(f.factors[name])])) as BudgetRecord['allocation']['primary']['files'][number]['factors'],
      ...(f.truncated ? { truncated: true } : {}),
      level_reason: levelReason({ tier: name, level: f.level, truncated: f.truncated, overflow: overflowFor(f.path) }),
    })),
  };
}

/** Four decimals: records stay readable and byte-stable across platforms. */
function round(value: number): number {
  return Math.round(value * 10000) / 10000;
}
