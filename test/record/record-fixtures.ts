import { FACTOR_NAMES } from '../../src/types.js';
import { RECORD_VERSION, type BudgetRecord, type RecordFile } from '../../src/record/record-schema.js';
import type { Level, TierName } from '../../src/config/schema.js';

const FACTORS = Object.fromEntries(FACTOR_NAMES.map((n) => [n, 0.5])) as RecordFile['factors'];

export function recordFile(path: string, level: Level, tokens: number, options: { truncated?: boolean } = {}): RecordFile {
  return { path, tokens, level, relevance_score: 0.8, factors: FACTORS, ...(options.truncated ? { truncated: true } : {}) };
}

export interface RunSpec {
  runId: string;
  timestamp: string;
  /** Tokens of the rendered context; utilization is this / available. */
  rendered: number;
  available?: number;
  requested?: number;
  files?: Partial<Record<TierName, RecordFile[]>>;
  dropped?: string[];
  overflow?: BudgetRecord['overflow']['strategy_applied'];
}

/** A valid budget record for one recorded run. */
export function makeRecord(spec: RunSpec): BudgetRecord {
  const available = spec.available ?? 10_000;
  const tier = (name: TierName, budget: number) => {
    const files = spec.files?.[name] ?? [];
    return { budget, total_tokens: files.reduce((s, f) => s + f.tokens, 0), files };
  };
  return {
    version: RECORD_VERSION,
    run_id: spec.runId,
    timestamp: spec.timestamp,
    task: `task of ${spec.runId}`,
    root: '/repo',
    tokenizer: 'o200k',
    total_budget: available + 2000,
    reserved: { output: 1500, system: 500 },
    available,
    allocation: {
      primary: tier('primary', Math.floor(available * 0.5)),
      supporting: tier('supporting', Math.floor(available * 0.3)),
      reference: tier('reference', Math.floor(available * 0.15)),
      history: tier('history', Math.floor(available * 0.05)),
    },
    excluded: [
      { path: 'package-lock.json', relevance_score: null, reason: 'lockfile' },
      ...(spec.dropped ?? []).map((path) => ({ path, relevance_score: 0.4, reason: 'over budget: dropped from the reference tier (budget 1,500 tokens, needed 2,000 at summary)' })),
    ],
    overflow: {
      occurred: spec.overflow !== undefined && spec.overflow !== null,
      strategy_applied: spec.overflow ?? null,
      files_affected: spec.dropped ?? [],
    },
    metrics: { utilization: Math.round((spec.rendered / available) * 10000) / 10000, efficiency: 0.7, rendered_tokens: spec.rendered, requested_tokens: spec.requested ?? spec.rendered },
    scoring: { method: 'hybrid', embedding_model: null, weights: { task_alignment: 0.4, recency: 0.2, mention_density: 0.2, dependency_depth: 0.1, file_type: 0.1 } },
    warnings: [],
    timings_ms: { total: 12.5 },
    tool_version: '0.1.0',
    config_hash: 'abc',
  };
}
