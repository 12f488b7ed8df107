import { randomUUID } from 'node:crypto';
import type { Config, Reporter, RunContext, ScoredFile, TierName } from './types.js';
import type {
  AllocateStage,
  BudgetPlan,
  CollectStage,
  HistoryMessage,
  LevelsStage,
  RenderFormat,
  ScoreStage,
} from './stages.js';
import { tierPercentages, TIER_NAMES } from './config/schema.js';
import { createTokenizer, type Tokenizer } from './tokenize/tokenizer.js';
import { createCollectStage } from './collect/collect-files.js';
import { createScoreStage } from './scoring/score-files.js';
import { createLevelsStage } from './summarize/levels-stage.js';
import { allocateContext } from './allocate/allocate-context.js';
import { buildRecord } from './record/build-record.js';
import type { BudgetRecord } from './record/record-schema.js';
import { silentReporter } from './util/reporter.js';
import { UsageError } from './errors.js';

/** Ports and stages of one run. Tests override any of them. */
export interface PipelineDeps {
  collect: CollectStage;
  score: ScoreStage;
  levels: LevelsStage;
  allocate: AllocateStage;
  /** Injected clock, epoch ms. */
  now: () => number;
  createTokenizer: (id: Config['tokenizer']) => Promise<Tokenizer>;
  newRunId: () => string;
}

export interface PipelineOptions {
  task: string;
  root: string;
  config: Config;
  history?: HistoryMessage[];
  format?: RenderFormat;
  reporter?: Reporter;
}

export interface PipelineResult {
  record: BudgetRecord;
  /** The assembled context, ready for `--output`. */
  rendered: string;
  scored: ScoredFile[];
}

/** Build the default stages for a config: real fs, git, embedder and caches. */
export function defaultDeps(config: Config, root: string): PipelineDeps {
  return {
    collect: createCollectStage(),
    score: createScoreStage({ root, config }),
    levels: createLevelsStage({ root, config }),
    allocate: allocateContext,
    now: () => Date.now(),
    createTokenizer,
    newRunId: () => randomUUID(),
  };
}

/**
 * The whole engine for one task: collect -> score -> summarize -> allocate + render -> record.
 * Returns the record and the rendered context; writing them is the caller's choice.
 */
export async function runContextBudget(options: PipelineOptions, overrides: Partial<PipelineDeps> = {}): Promise<PipelineResult> {
  const { task, root, config } = options;
  if (task.trim() === '') throw new UsageError('the task is empty: describe the change, e.g. aiwg context-budget "fix the retry loop in the http client"');
  const deps: PipelineDeps = { ...defaultDeps(config, root), ...overrides };
  const timings: Record<string, number> = {};
  const time = async <T>(name: string, fn: () => Promise<T> | T): Promise<T> => {
    const started = performance.now();
    try {
      return await fn();
    } finally {
      timings[name] = Math.round((performance.now() - started) * 10) / 10;
    }
  };

  const startedAt = deps.now();
  const startedPerf = performance.now();
  const ctx: RunContext = {
    config,
    tokenizer: await time('tokenizer', () => deps.createTokenizer(config.tokenizer)),
    reporter: options.reporter ?? silentReporter(),
    nowMs: startedAt,
    warnings: [],
  };
  const plan = planBudget(config);

  const collected = await time('collect', () => deps.collect({ root }, ctx));
  const scored = await time('score', () => deps.score({ task, collected }, ctx));
  const minimum = config.relevance_scoring.thresholds.include_minimum;
  const wanted = new Set(scored.files.filter((f) => f.relevance >= minimum || f.mentionedInTask).map((f) => f.path));
  const lastModifiedMs = new Map(collected.files.map((f) => [f.path, collected.git.lastCommitMs.get(f.path) ?? f.mtimeMs]));
  const levels = await time('summarize', () =>
    deps.levels({ root, files: collected.files.filter((f) => wanted.has(f.path)), lastModifiedMs }, ctx),
  );
  const allocation = await time('allocate', () =>
    deps.allocate(
      { task, root, scored: scored.files, levels, history: options.history ?? [], plan, format: options.format ?? 'xml' },
      ctx,
    ),
  );
  timings.total = Math.round((performance.now() - startedPerf) * 10) / 10;

  const record = buildRecord({
    runId: deps.newRunId(),
    timestampMs: startedAt,
    task,
    root,
    config,
    plan,
    collected,
    scoring: scored,
    allocation,
    warnings: [...collected.warnings, ...ctx.warnings, ...allocation.warnings],
    timings,
  });
  return { record, rendered: allocation.rendered, scored: scored.files };
}

/**
 * available = max_tokens - reserve_for_output - reserve_for_system; tiers by percentage. With
 * `budget_config.enabled: false` there are no tier shares: the whole budget is one pool,
 * handed to the tiers in flow order (the first tier holds it, what it leaves flows on).
 */
export function planBudget(config: Config): BudgetPlan {
  const { max_tokens, reserve_for_output, reserve_for_system } = config.budget_config.total_budget;
  const available = Math.max(0, max_tokens - reserve_for_output - reserve_for_system);
  const pct = config.budget_config.enabled ? tierPercentages(config) : onePool(config);
  const tiers = Object.fromEntries(TIER_NAMES.map((t) => [t, Math.floor((available * pct[t]) / 100)])) as BudgetPlan['tiers'];
  return { total: max_tokens, reserved: { output: reserve_for_output, system: reserve_for_system }, available, tiers };
}

function onePool(config: Config): Record<TierName, number> {
  const first = config.budget_config.flow_order[0] ?? 'primary';
  return Object.fromEntries(TIER_NAMES.map((t) => [t, t === first ? 100 : 0])) as Record<TierName, number>;
}
