import { randomUUID } from 'node:crypto';
import type { CandidateFile, CollectResult, Config, Reporter, RunContext, RuntimeEnv, ScoredFile } from './types.js';
import type {
  AllocateStage,
  BudgetPlan,
  CollectStage,
  HistoryMessage,
  LevelsInput,
  LevelsStage,
  RenderFormat,
  ScoreResult,
  ScoreStage,
} from './stages.js';
import { planBudget } from './allocate/budget-plan.js';
import { createTokenizer, loadingTokenizer, type Tokenizer, type TokenizerOptions } from './tokenize/tokenizer.js';
import { openPieceCounts, pieceCountsPath, type PieceCounts } from './tokenize/piece-counts.js';
import { bpeTablePath, repositoryBpeTablePath } from './tokenize/bpe-table.js';
import type { BpeEncodingId } from './tokenize/bpe-encoding.js';
import { resolveCacheDir, resolveModelCacheBase } from './cache/cache-dir.js';
import { createCollectStage } from './collect/collect-files.js';
import { createSecretCache } from './security/secret-cache.js';
import { redactSecrets } from './security/redact-secrets.js';
import { createScoreStage } from './scoring/score-files.js';
import { createLevelsStage } from './summarize/levels-stage.js';
import { allocateContext } from './allocate/allocate-context.js';
import { buildRecord } from './record/build-record.js';
import type { BudgetRecord } from './record/record-schema.js';
import { silentReporter } from './util/reporter.js';
import { buildTaskFacts, candidatePathIndex, requireTask, type TaskFacts } from './scoring/task-facts.js';
import { assignTiers, tieredPaths, type Tiering } from './allocate/tiers.js';
import { ensureOwnDirs } from './cache/own-dirs.js';
import type { GitAhead } from './collect/git-ahead.js';
import { runBootFacts } from './assemble/run-boot-facts.js';

/** Ports and stages of one run. Tests override any of them. */
export interface PipelineDeps {
  collect: CollectStage;
  score: ScoreStage;
  levels: LevelsStage;
  allocate: AllocateStage;
  /** Injected clock, epoch ms. */
  now: () => number;
  createTokenizer: (id: Config['tokenizer'], options?: TokenizerOptions) => Promise<Tokenizer>;
  /** The piece counts a run's tokenizer remembers and saves (runPieceCounts; a long-lived process opens them once). */
  pieceCounts: (root: string, config: Config) => Promise<PieceCounts | undefined>;
  newRunId: () => string;
  /** Creates the tool's own directories under the root, each ignoring itself in git. */
  ensureOwnDirs: (root: string, config: Config) => Promise<void>;
}

export interface PipelineOptions {
  task: string;
  root: string;
  config: Config;
  history?: HistoryMessage[];
  format?: RenderFormat;
  reporter?: Reporter;
  /** Warnings from before the run (e.g. LoadedConfig.warnings: reserves scaled to a small budget); recorded first. */
  warnings?: string[];
  /** The budget of this run; `planBudget(config)` when absent. Callers with their own numbers pass `planBudget(config, { available })`. */
  plan?: BudgetPlan;
  /** The environment of the caller (the CLI passes process.env); the library reads no other. */
  env?: RuntimeEnv;
  /** git commands the caller started before the engine loaded (collect/git-ahead.ts; the CLI's). */
  gitAhead?: GitAhead;
  /** The run (session) id, e.g. one an orchestrator shares with handoff-context and assemble runs; `deps.newRunId()` when absent. */
  runId?: string;
  /** Where the caller writes the context (a path or `stdout`), for the boot header's Output sink row. */
  outputSink?: string;
}

export interface PipelineResult {
  record: BudgetRecord;
  /** The assembled context, ready for `--output`. */
  rendered: string;
  scored: ScoredFile[];
  /** Every candidate the collect stage read (path and content), e.g. for a token tree of what was considered. */
  candidates?: CollectResult['files'];
}

/** What the first half of a task-driven run knows: the candidates, the task read against them, scores and tiers. */
export interface ScoredTask {
  collected: CollectResult;
  facts: TaskFacts;
  scoring: ScoreResult;
  /** The one tier rule (src/allocate/tiers.ts) over `scoring.files`. */
  tiering: Tiering;
}

/** Times a step of a run (the pipeline records stage timings); the identity when nobody times. */
export type StepTimer = <T>(name: string, fn: () => Promise<T> | T) => Promise<T>;
const untimed: StepTimer = async (_name, fn) => fn();

/** How context-budget names a missing task: the one message of `requireTask`. */
export const CONTEXT_BUDGET_TASK = { what: 'a task', example: 'aiwg context-budget "fix the retry loop in the http client"' } as const;

/**
 * collect -> task facts -> score -> tiers: the first half of context-budget, and all of
 * context-score, so both see the same scores and the same tiers.
 */
export async function scoreTask(
  input: { task: string | Promise<string>; root: string },
  ctx: RunContext,
  deps: Pick<PipelineDeps, 'collect' | 'score'>,
  time: StepTimer = untimed,
): Promise<ScoredTask> {
  const collected = await time('collect', () => deps.collect({ root: input.root }, ctx));
  // collect needs no task: one still being made ready (its secret scan) is awaited only now
  const task = await input.task;
  const facts = buildTaskFacts(task, candidatePathIndex(collected.files));
  const scoring = await time('score', () => deps.score({ task, collected, facts }, ctx));
  return { collected, facts, scoring, tiering: assignTiers(scoring.files, ctx.config) };
}

/**
 * Build the default stages for a config: real fs, git, embedder and caches. `longLived`: the
 * stages serve many runs (the warm index), so the score stage loads the embedding model while idle
 * and neither stage makes a run wait for its index writes.
 */
export function defaultDeps(config: Config, root: string, options: { longLived?: boolean; gitAhead?: GitAhead } = {}): PipelineDeps {
  return {
    collect: createCollectStage({ secretCache: createSecretCache(root, config), ...(options.gitAhead ? { gitAhead: options.gitAhead } : {}) }),
    score: createScoreStage({ root, config, ...(options.longLived ? { longLived: true } : {}) }),
    levels: createLevelsStage({ root, config, ...(options.longLived ? { longLived: true } : {}) }),
    allocate: allocateContext,
    now: () => Date.now(),
    createTokenizer,
    pieceCounts: runPieceCounts,
    newRunId: () => randomUUID(),
    ensureOwnDirs,
  };
}

/**
 * The whole engine for one task: collect -> score -> summarize -> allocate + render -> record.
 * Returns the record and the rendered context; writing them is the caller's choice.
 */
export async function runContextBudget(options: PipelineOptions, overrides: Partial<PipelineDeps> = {}): Promise<PipelineResult> {
  const { root, config } = options;
  requireTask(options.task, CONTEXT_BUDGET_TASK);
  // The task is repeated in the header, the record and the log: a credential pasted into it is
  // redacted like a file's. The scan (the first one loads secretlint's rules) runs while collect
  // waits for git; nothing reads the task before it is done but the score stage's prepare, which
  // only looks its hash up among the stored task vectors (a task with a credential matches none).
  const redacting = config.collect.include_secrets ? Promise.resolve(options.task) : redactSecrets(options.task).then((redaction) => redaction.text);
  const deps: PipelineDeps = { ...defaultDeps(config, root, options.gitAhead ? { gitAhead: options.gitAhead } : {}), ...overrides };
  // the record lists the tokenizer first, as before it loaded beside the score stage
  const timings: Record<string, number> = { tokenizer: 0 };
  const time: StepTimer = async (name, fn) => {
    const started = performance.now();
    try {
      return await fn();
    } finally {
      timings[name] = Math.round((performance.now() - started) * 10) / 10;
    }
  };

  const startedAt = deps.now();
  const startedPerf = performance.now();
  // Score counts no tokens: the tokenizer is made while it runs, once collect is done (on two
  // cores a table loading beside git's listing slowed git down); with a cache its encoding loads
  // from the kept table on the first count. The piece counts of earlier runs spare a warm run
  // most of its counting.
  const pieceCounts = deps.pieceCounts(root, config);
  let loading: Promise<Tokenizer> | undefined;
  const startTokenizer = (): Promise<Tokenizer> => {
    if (loading === undefined) {
      loading = time('tokenizer', async () => {
        const remembered = await pieceCounts;
        const tableFile = keptBpeTable(root, config, options.env);
        return deps.createTokenizer(config.tokenizer, { ...(remembered ? { pieceCounts: remembered } : {}), ...(tableFile !== undefined ? { tableFile } : {}) });
      });
      loading.catch(() => undefined);
    }
    return loading;
  };
  // new content collect read, told to the levels stage once collect is done (not as it reads:
  // the outline thread it starts would compete with collect and the embedding thread for two cores)
  const newContent: CandidateFile[] = [];
  const collectThenTokenizer: CollectStage = async (input, c) => {
    try {
      return await deps.collect(input, c);
    } finally {
      startTokenizer().catch(() => undefined);
      for (const file of newContent.splice(0)) deps.levels.newContent?.(file);
    }
  };
  const ctx: RunContext = {
    config,
    tokenizer: loadingTokenizer(config.tokenizer),
    reporter: options.reporter ?? silentReporter(),
    nowMs: startedAt,
    warnings: [],
    ...(options.env ? { env: options.env } : {}),
  };
  const plan = options.plan ?? planBudget(config);
  const runId = options.runId ?? deps.newRunId();

  // the score stage loads its embedding model and embeds new files' chunks while collect reads
  ctx.onNewContent = (file) => {
    deps.score.newContent?.(file, ctx);
    if (deps.levels.newContent) newContent.push(file);
  };
  ctx.onNewContentAhead = () => deps.score.expectNewContent?.(ctx);
  deps.score.prepare?.(options.task, ctx).catch(() => undefined);
  await deps.ensureOwnDirs(root, config);
  const { collected, facts, scoring: scored, tiering } = await scoreTask({ task: redacting, root }, ctx, { ...deps, collect: collectThenTokenizer }, time);
  const task = await redacting;
  ctx.tokenizer = await startTokenizer();
  const wanted = tieredPaths(tiering);
  const lastModifiedMs = new Map(collected.files.map((f) => [f.path, collected.git.lastCommitMs.get(f.path) ?? f.mtimeMs]));
  // what the stages left under way (index writes) is done before the run ends, also when it fails
  const { levels, allocation } = await (async () => {
    try {
      const levels = await time('summarize', () =>
        deps.levels({ root, files: collected.files.filter((f) => wanted.has(f.path)), lastModifiedMs, focus: focusOf(tiering, facts) }, ctx),
      );
      const allocation = await time('allocate', () =>
        deps.allocate(
          {
            task,
            root,
            scored: scored.files,
            tiering,
            levels,
            history: options.history ?? [],
            plan,
            format: options.format ?? 'xml',
            boot: runBootFacts({ root, config, runId, ...(options.outputSink !== undefined ? { outputSink: options.outputSink } : {}) }),
          },
          ctx,
        ),
      );
      return { levels, allocation };
    } catch (error) {
      await Promise.all([deps.score.settle?.(), deps.levels.settle?.()]);
      throw error;
    }
  })();
  await Promise.all([savePieceCounts(await pieceCounts, ctx), deps.score.settle?.(), deps.levels.settle?.()]);
  timings.total = Math.round((performance.now() - startedPerf) * 10) / 10;

  const record = buildRecord({
    runId,
    timestampMs: startedAt,
    task,
    root,
    config,
    plan,
    collected,
    scoring: scored,
    allocation,
    warnings: [...(options.warnings ?? []), ...collected.warnings, ...ctx.warnings, ...allocation.warnings],
    timings,
  });
  return { record, rendered: allocation.rendered, scored: scored.files, candidates: collected.files };
}

/** The run's remembered piece counts: none for chars4 or with caching off; an unreadable file is an empty table. */
export function runPieceCounts(root: string, config: Config): Promise<PieceCounts | undefined> {
  const path = runPieceCountsPath(root, config);
  return path === undefined ? Promise.resolve(undefined) : openPieceCounts(path);
}

/** The file of a run's remembered piece counts (`<cache dir>/index/`); undefined for chars4 or with caching off. */
export function runPieceCountsPath(root: string, config: Config): string | undefined {
  const id = keptEncoding(config);
  return id === undefined ? undefined : pieceCountsPath(resolveCacheDir(root, config), id);
}

/**
 * Where the encoding's table is kept (bpe-table.ts): once per machine beside the models, or, when
 * that cannot be written, in the repository's cache; undefined for chars4 or with caching off.
 */
function keptBpeTable(root: string, config: Config, env: PipelineOptions['env']): string[] | undefined {
  const id = keptEncoding(config);
  return id === undefined ? undefined : [bpeTablePath(resolveModelCacheBase(root, config, env), id), repositoryBpeTablePath(resolveCacheDir(root, config), id)];
}

/** The BPE encoding whose piece counts and table a run keeps between runs: none for chars4 or with caching off. */
function keptEncoding(config: Config): BpeEncodingId | undefined {
  return config.tokenizer === 'chars4' || !config.summarization.caching.enabled ? undefined : config.tokenizer;
}

/**
 * Fewer new pieces than this are not worth rewriting the piece-count file for: a warm run learns
 * only the two or three pieces of its document header (its run id and time, never seen again), and
 * counting a few pieces again costs microseconds where the rewrite costs ~10 ms and would grow the
 * file by pieces nobody reads.
 */
const MIN_SAVED_PIECES = 16;

async function savePieceCounts(pieceCounts: PieceCounts | undefined, ctx: RunContext): Promise<void> {
  if (pieceCounts === undefined || pieceCounts.learnt < MIN_SAVED_PIECES) return;
  try {
    await pieceCounts.save();
  } catch (error) {
    ctx.warnings.push(`could not write the piece-count cache (${(error as NodeJS.ErrnoException).code ?? String(error)}): counts are exact but not remembered`);
  }
}

/** The query-aware detailed level's focus: the primary and supporting files, the task's code identifiers. */
function focusOf(tiering: Tiering, facts: TaskFacts): LevelsInput['focus'] {
  const paths = new Set([...tiering.tiers.primary, ...tiering.tiers.supporting].map((f) => f.file.path));
  return { paths, identifiers: facts.identifiers };
}
