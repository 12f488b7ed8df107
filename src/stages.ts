import type {
  CandidateFile,
  CollectResult,
  ExcludedFile,
  LevelContent,
  OverflowInfo,
  RunContext,
  ScoredFile,
  TierAllocation,
  TierName,
} from './types.js';
import type { ScoringMethod } from './config/schema.js';
import type { TaskFacts } from './scoring/task-facts.js';
import type { Tiering } from './allocate/tiers.js';
import type { BootFacts } from './assemble/boot-header.js';

/**
 * The contracts between the stages of the pipeline:
 * collect -> score -> summarize (levels) -> allocate + render -> record.
 * Each stage is `(input, ctx)`; its ports are bound when the stage is created, so the
 * orchestrator (src/pipeline.ts) can swap any stage in a test.
 */

export interface CollectInput {
  root: string;
  /**
   * Root-relative paths that may have changed since this stage's last collect of the same root
   * and config, when nothing else did (no git index, HEAD or ref change): a stage that remembers
   * its last collect looks at these alone. Absent: look at everything.
   */
  changed?: ReadonlySet<string>;
}
export type CollectStage = (input: CollectInput, ctx: RunContext) => Promise<CollectResult>;

export interface ScoreInput {
  task: string;
  collected: CollectResult;
  /** The run's task facts over `collected.files`; built by the stage when absent. */
  facts?: TaskFacts;
}
export interface ScoreResult {
  /** Sorted by relevance descending, ties by path ascending. */
  files: ScoredFile[];
  method: ScoringMethod;
  /** Embedding model id when semantic alignment ran, else null. */
  embeddingModel: string | null;
}
export type ScoreStage = ((input: ScoreInput, ctx: RunContext) => Promise<ScoreResult>) & {
  /**
   * Optional: told the task as a run starts, before collect and before its secret scan, to get
   * ready for it (load a model); it may only look the task's hash up, and never rejects.
   */
  prepare?(task: string, ctx: RunContext): Promise<void>;
  /**
   * Optional: told during collect of each file whose content the run reads for the first time (its
   * chunks will be embedded): embed them ahead, which loads the model; never throws.
   */
  newContent?(file: CandidateFile, ctx: RunContext): void;
  /** Optional: told during collect, before any file is read, that new content is coming: load the model; never throws. */
  expectNewContent?(ctx: RunContext): void;
  /**
   * Optional: what a run left under way once its scores were out (a changed ANN index and the
   * kept import graph being written while the run summarises and allocates). A one-shot run
   * awaits it before it ends, also when it fails; a long-lived stage resolves at once (its next
   * run waits instead). Never rejects.
   */
  settle?(): Promise<void>;
};

export interface LevelsInput {
  root: string;
  files: CandidateFile[];
  /** Last commit time per path (stubs show it); falls back to mtime. */
  lastModifiedMs: Map<string, number>;
  /**
   * The query-aware detailed level (issue 16): for these paths (the primary and supporting
   * files), definitions named by one of `identifiers` are shown whole in the detailed level.
   */
  focus?: { paths: ReadonlySet<string>; identifiers: readonly string[] };
}
/**
 * Every level (full, detailed, summary, stub) of each file, token counts exact for ctx.tokenizer.
 * Levels that would not be smaller than the level above may be omitted, but `full` and `stub`
 * are always present.
 */
export type LevelsStage = ((input: LevelsInput, ctx: RunContext) => Promise<Map<string, LevelContent[]>>) & {
  /** Optional: what a run left under way (the outline blocks it parsed, being kept); awaited as a one-shot run ends, as ScoreStage.settle. Never rejects. */
  settle?(): Promise<void>;
  /** Optional: collect read `file` as new content (its facts were missing); the stage may outline it later and gets ready (SyntaxEngine.expect). */
  newContent?(file: CandidateFile): void;
};

/** A message of the conversation history tier. */
export interface HistoryMessage {
  role: string;
  content: string;
  /** Tool calls an assistant message made; it is kept only together with their results. */
  tool_calls?: HistoryToolCall[];
  /** On a `tool` message: the id of the call it answers. */
  tool_call_id?: string;
  /** Optional author name (OpenAI-style `name`). */
  name?: string;
}

/** One tool call of an assistant history message. */
export interface HistoryToolCall {
  id: string;
  name: string;
  /** Arguments as the model wrote them (usually JSON text). */
  arguments: string;
}

/**
 * The budget of a run, an input of the engine (`planBudget` in src/allocate/budget-plan.ts makes
 * it from config or a caller's numbers); the record carries it, so reports render from the record.
 */
export interface BudgetPlan {
  total: number;
  reserved: { output: number; system: number };
  /** total - reserves: what the rendered context may use, header and wrappers included. */
  available: number;
  /** Nominal tier budgets in tokens (before unused budget flows). */
  tiers: Record<TierName, number>;
  /** The same as percentages of available; with one pool the first tier in flow order holds 100. */
  shares: Record<TierName, number>;
  /** budget_config.enabled false: no tier shares, one pool the tiers fill in flow order. */
  onePool: boolean;
}

export type RenderFormat = 'xml' | 'markdown' | 'json';

export interface AllocateInput {
  task: string;
  root: string;
  /** Sorted as the score stage returned them. */
  scored: ScoredFile[];
  /** The tier rule's verdict over `scored` when the caller already has it (the pipeline does); else computed here. */
  tiering?: Tiering;
  levels: Map<string, LevelContent[]>;
  history: HistoryMessage[];
  plan: BudgetPlan;
  format: RenderFormat;
  /** Boot header rows beyond the budget (spec 001: constitution, session, output sink, cache hints). */
  boot?: BootFacts;
}

export interface AllocateResult {
  tiers: Record<TierName, TierAllocation>;
  excluded: ExcludedFile[];
  overflow: OverflowInfo;
  warnings: string[];
  /** The assembled context (boot header + tiers) in the requested format. */
  rendered: string;
  /** ctx.tokenizer.count(rendered); never above plan.available. */
  renderedTokens: number;
  /** Tokens the scored files above include_minimum would need at their starting levels (spec 000 original_tokens). */
  requestedTokens: number;
}
/** Pure: no I/O. Throws BudgetExceededError for overflow strategy `error`. */
export type AllocateStage = (input: AllocateInput, ctx: RunContext) => AllocateResult;
