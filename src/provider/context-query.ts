import type { Config, Level, OverflowStrategy, ScoringMethod } from '../config/schema.js';
import type { HistoryMessage, RenderFormat } from '../stages.js';
import type { Reporter, RuntimeEnv } from '../types.js';
import type { TokenizerId } from '../tokenize/tokenizer.js';
import { runContextBudget, type PipelineDeps } from '../pipeline.js';
import { planBudget } from '../allocate/budget-plan.js';
import type { BudgetRecord } from '../record/record-schema.js';
import { writeRecord } from '../record/write-record.js';
import { applyMode, CONTEXT_MODES, DEFAULT_CONTEXT_MODE, resolveMode, type ContextMode } from './modes/index.js';
import { checkRequest } from './request.js';

/** The level chooser of `budget_config.strategy`. */
export type LevelStrategy = Config['budget_config']['strategy'];

/** One question an agent asks per task. Everything but `task` falls back to the configuration. */
export interface ContextQuery {
  task: string;
  /** The most tokens the returned context may hold (the engine's `available`); the config's when absent. */
  maxTokens?: number;
  /** A mode name (`task`, `review`, `chat`); `task` when absent. */
  mode?: string;
  format?: RenderFormat;
  scoring?: ScoringMethod;
  overflow?: OverflowStrategy;
  strategy?: LevelStrategy;
  tokenizer?: TokenizerId;
  history?: HistoryMessage[];
}

/** A repository file in the context, as the allocation placed it. */
export interface IncludedFile {
  /** Root-relative POSIX path. */
  path: string;
  tier: 'primary' | 'supporting' | 'reference';
  level: Level;
  tokens: number;
  relevance: number;
  /** True when the file was cut to fit rather than shown at a whole level. */
  truncated: boolean;
}

/** What one query returns: the context, what is in it, and the record that explains it. */
export interface ContextAnswer {
  mode: string;
  context: string;
  /** Files in the context, in tier order (primary, supporting, reference), each tier as allocated. */
  files: IncludedFile[];
  runId: string;
  /** Tokens of `context` by the record's tokenizer. */
  tokens: number;
  /** The most tokens `context` was allowed to hold. */
  available: number;
  record: BudgetRecord;
  /** Where the record was written, or null when recording was off. */
  recordPath: string | null;
}

export interface RunContextQueryOptions {
  root: string;
  /** The resolved base config; the query's options are layered over it for this call only. */
  config: Config;
  deps?: Partial<PipelineDeps>;
  modes?: readonly ContextMode[];
  reporter?: Reporter;
  /** Write the record and the budget log line exactly as `aiwg context-budget` does. */
  record?: boolean;
  /** Warnings from loading the config (LoadedConfig.warnings); every record lists them first. */
  warnings?: string[];
  /** The caller's environment, handed to the run (RunContext.env). */
  env?: RuntimeEnv;
}

const FILE_TIERS = ['primary', 'supporting', 'reference'] as const;

/**
 * One run of the engine for an agent: the query's options over the base config, then
 * `runContextBudget`, then (when asked) `writeRecord`: the same two calls as the CLI.
 */
export async function runContextQuery(query: ContextQuery, options: RunContextQueryOptions): Promise<ContextAnswer> {
  const modeName = query.mode ?? DEFAULT_CONTEXT_MODE;
  checkRequest({ ...query, mode: modeName });
  const mode = resolveMode(modeName, options.modes ?? CONTEXT_MODES);
  const config = queryConfig(applyMode(options.config, mode), query);
  // maxTokens is what the context may hold: the plan's available, the configured reserves around it
  const plan = planBudget(config, query.maxTokens === undefined ? {} : { available: query.maxTokens });
  const result = await runContextBudget(
    { task: query.task, root: options.root, config, plan, history: query.history, format: query.format, reporter: options.reporter, warnings: options.warnings, env: options.env },
    options.deps,
  );
  const { record } = result;
  const written = options.record === true ? await writeRecord(record, { root: options.root }) : null;
  return {
    mode: mode.name,
    context: result.rendered,
    files: includedFiles(record),
    runId: record.run_id,
    tokens: record.metrics.rendered_tokens,
    available: record.available,
    record,
    recordPath: written?.recordPath ?? null,
  };
}

/** The files a record placed in the context, tier by tier. */
export function includedFiles(record: BudgetRecord): IncludedFile[] {
  return FILE_TIERS.flatMap((tier) =>
    record.allocation[tier].files.map((f) => ({
      path: f.path,
      tier,
      level: f.level,
      tokens: f.tokens,
      relevance: f.relevance_score,
      truncated: f.truncated === true,
    })),
  );
}

/**
 * The base config with a query's options on top, for one call. `maxTokens` is not a config
 * change: it is the run's BudgetPlan (`planBudget(config, { available })`).
 */
export function queryConfig(config: Config, query: Omit<ContextQuery, 'task' | 'maxTokens'>): Config {
  const budget = config.budget_config;
  return {
    ...config,
    tokenizer: query.tokenizer ?? config.tokenizer,
    budget_config: {
      ...budget,
      overflow_strategy: query.overflow ?? budget.overflow_strategy,
      strategy: query.strategy ?? budget.strategy,
    },
    relevance_scoring: { ...config.relevance_scoring, scoring_method: query.scoring ?? config.relevance_scoring.scoring_method },
  };
}
