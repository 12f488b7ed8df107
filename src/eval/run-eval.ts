import { performance } from 'node:perf_hooks';
import type { Config, ScoringMethod } from '../config/schema.js';
import type { Reporter, RunContext } from '../types.js';
import type { PipelineDeps, PipelineOptions, PipelineResult } from '../pipeline.js';
import type { BudgetPlan } from '../stages.js';
import { planBudget } from '../allocate/budget-plan.js';
import { createTokenizer, type Tokenizer, type TokenizerId } from '../tokenize/tokenizer.js';
import { silentReporter } from '../util/reporter.js';
import { InputError, UsageError } from '../errors.js';
import { runGit, type GitRunner } from './git.js';
import { mineCommits, type EvalInstance, type MineResult } from './mine-commits.js';
import { withWorktree } from './worktree.js';
import { loadTaskFile } from './load-tasks.js';
import { createBaselineCache, loadBaselineDocs, runBaseline, type BaselineCache } from './bm25-baseline.js';
import { instanceMetrics, placementsFromRecord, summarize, type InstanceMetrics, type MethodSummary } from './metrics.js';

/** The built-in baseline's name in reports. */
export const BASELINE_METHOD = 'bm25';
export type EvalMethod = typeof BASELINE_METHOD | ScoringMethod;

export interface EvalOptions {
  /** Repository to evaluate (a git work tree). */
  root: string;
  /** Most recent qualifying commits to replay. */
  commits: number;
  /** Tokens available to the context per run (reserves are set to 0 so a budget is comparable to a retrieval limit). */
  budgets: number[];
  /** Scoring methods of ours to compare; the BM25 baseline always runs. */
  methods: ScoringMethod[];
  /** The resolved config every run starts from (method and cache dir are overridden; the budget is each run's plan). */
  config: Config;
  /** Shared cache directory for all worktrees (summaries, token counts, embeddings). */
  cacheDir: string;
  /** A JSONL task file (see load-tasks.ts) to replay instead of mining commit messages. */
  tasksFile?: string;
  reporter?: Reporter;
}

/** Ports of the evaluation; tests swap the pipeline or git. */
export interface EvalDeps {
  git: GitRunner;
  runPipeline: (options: PipelineOptions, overrides: Partial<PipelineDeps>) => Promise<PipelineResult>;
  createStages: (config: Config, root: string) => Promise<Pick<PipelineDeps, 'collect' | 'score'>>;
  createTokenizer: (id: TokenizerId) => Promise<Tokenizer>;
}

export interface EvalRun {
  commit: string;
  method: EvalMethod;
  budget: number;
  metrics?: InstanceMetrics;
  error?: string;
}

export interface EvalReport {
  root: string;
  head: string;
  tokenizer: TokenizerId;
  budgets: number[];
  methods: EvalMethod[];
  mining: { requested: number; scanned: number; qualified: number; skipped: MineResult['skipped']; tasksFile?: string };
  instances: Array<Pick<EvalInstance, 'commit' | 'parent' | 'subject' | 'gold' | 'sources'>>;
  /** One table per budget: a row per method, baseline first. */
  tables: Array<{ budget: number; rows: Array<{ method: EvalMethod; summary: MethodSummary }> }>;
  runs: EvalRun[];
}

/** The pipeline is imported when first used: it pulls in every stage and its dependencies. */
const DEFAULT_EVAL_DEPS: EvalDeps = {
  git: runGit,
  runPipeline: async (options, overrides) => (await import('../pipeline.js')).runContextBudget(options, overrides),
  createStages: async (config, root) => (await import('../pipeline.js')).defaultDeps(config, root),
  createTokenizer,
};

/**
 * Replay the repository's own history: for each mined commit, check out its parent in a
 * temporary worktree and ask every method for a context with the commit message as the task.
 * The metrics are deterministic for a repository and options; only the times vary.
 */
export async function runEval(options: EvalOptions, overrides: Partial<EvalDeps> = {}): Promise<EvalReport> {
  const deps: EvalDeps = { ...DEFAULT_EVAL_DEPS, ...overrides };
  const reporter = options.reporter ?? silentReporter();
  const budgets = [...new Set(options.budgets)].sort((a, b) => a - b);
  if (budgets.length === 0 || budgets.some((b) => !Number.isInteger(b) || b <= 0)) {
    throw new UsageError(`--budgets ${options.budgets.join(',')}: pass positive whole token counts, e.g. --budgets 8000,32000`);
  }
  const methods: EvalMethod[] = [BASELINE_METHOD, ...new Set(options.methods)];
  const head = await deps.git(options.root, ['rev-parse', '--verify', 'HEAD']).then(
    (out) => out.trim(),
    (error: unknown) => {
      throw new InputError(`${options.root}: cannot read the git history: not a git repository with at least one commit (context-eval replays past commits; pass --root <a git checkout>)`, { cause: error });
    },
  );
  const mined = options.tasksFile === undefined ? await mineCommits({ root: options.root, commits: options.commits }, deps.git) : await loadTasks(options, deps.git, reporter);
  reporter.info(
    `context-eval: ${mined.instances.length} of ${options.commits} requested ${options.tasksFile === undefined ? 'commits qualify' : 'tasks'} (${mined.scanned} scanned); methods ${methods.join(', ')}; budgets ${budgets.join(', ')}`,
  );
  const tokenizer = await deps.createTokenizer(options.config.tokenizer);
  const baselineCache = createBaselineCache();
  const runs: EvalRun[] = [];
  for (const [i, instance] of mined.instances.entries()) {
    reporter.info(`[${i + 1}/${mined.instances.length}] ${instance.commit.slice(0, 10)} ${instance.subject.slice(0, 70)} (gold: ${instance.gold.join(', ')})`);
    reporter.progress('context-eval', i, mined.instances.length);
    try {
      const instanceRuns = await withWorktree(
        options.root,
        instance.parent,
        (dir) => replayInstance({ instance, dir, budgets, options, tokenizer, baselineCache }, deps),
        deps.git,
      );
      runs.push(...instanceRuns);
    } catch (error) {
      const message = errorMessage(error);
      reporter.warn(`${instance.commit.slice(0, 10)}: replay failed: ${message}`);
      for (const method of methods) for (const budget of budgets) runs.push({ commit: instance.commit, method, budget, error: message });
    }
  }
  reporter.progress('context-eval', mined.instances.length, mined.instances.length);

  return {
    root: options.root,
    head,
    tokenizer: options.config.tokenizer,
    budgets,
    methods,
    mining: {
      requested: options.commits,
      scanned: mined.scanned,
      qualified: mined.instances.length,
      skipped: mined.skipped,
      ...(options.tasksFile === undefined ? {} : { tasksFile: options.tasksFile }),
    },
    instances: mined.instances.map(({ commit, parent, subject, gold, sources }) => ({ commit, parent, subject, gold, sources })),
    tables: budgets.map((budget) => ({
      budget,
      rows: methods.map((method) => {
        const cell = runs.filter((r) => r.budget === budget && r.method === method);
        const ok = cell.flatMap((r) => (r.metrics ? [r.metrics] : []));
        return { method, summary: summarize(ok, cell.length - ok.length) };
      }),
    })),
    runs,
  };
}

/** Tasks from a JSONL file, the first `commits` of them in file order. */
async function loadTasks(options: EvalOptions, git: GitRunner, reporter: Reporter): Promise<MineResult> {
  const loaded = await loadTaskFile(options.tasksFile as string, options.root, git);
  if (loaded.missingCommits.length > 0) {
    reporter.warn(`--tasks ${options.tasksFile}: ${loaded.missingCommits.length} tasks name commits not in ${options.root}, skipped (${loaded.missingCommits.slice(0, 3).join(', ')})`);
  }
  return { ...loaded, instances: loaded.instances.slice(0, options.commits) };
}

interface ReplayInput {
  instance: EvalInstance;
  dir: string;
  budgets: number[];
  options: EvalOptions;
  tokenizer: Tokenizer;
  baselineCache: BaselineCache;
}

async function replayInstance(input: ReplayInput, deps: EvalDeps): Promise<EvalRun[]> {
  const { instance, dir, budgets, options } = input;
  const runs: EvalRun[] = [];
  const started = performance.now();
  const docs = await loadBaselineDocs(dir, deps.git);
  const baseline = runBaseline({ task: instance.task, docs, budgets, tokenizer: input.tokenizer }, input.baselineCache);
  const baselineMs = performance.now() - started;
  for (const budget of budgets) {
    const pack = baseline.packs.get(budget);
    if (!pack) continue;
    runs.push({
      commit: instance.commit,
      method: BASELINE_METHOD,
      budget,
      metrics: instanceMetrics({ gold: instance.gold, placements: pack.placements, ranking: baseline.ranking, tiered: false, renderedTokens: pack.renderedTokens, available: budget, ms: baselineMs }),
    });
  }

  // Collect and score do not depend on the budget: run them once per instance (and method)
  // and charge their cost to every budget's time, so "ms/run" is what one real run costs.
  const collect = once((await deps.createStages(runConfig(options, 'keyword'), dir)).collect);
  for (const method of options.methods) {
    const score = once((await deps.createStages(runConfig(options, method), dir)).score);
    for (const budget of budgets) {
      const run: EvalRun = { commit: instance.commit, method, budget };
      try {
        const t0 = performance.now();
        const result = await deps.runPipeline(
          { task: instance.task, root: dir, config: runConfig(options, method), plan: evalPlan(options.config, budget) },
          { collect: collect.stage, score: score.stage, now: () => instance.dateMs },
        );
        const wall = performance.now() - t0;
        const timings = result.record.timings_ms;
        const ms = wall - (timings.collect ?? 0) - (timings.score ?? 0) + collect.realMs() + score.realMs();
        run.metrics = instanceMetrics({
          gold: instance.gold,
          placements: placementsFromRecord(result.record),
          ranking: result.scored.map((f) => f.path),
          tiered: true,
          renderedTokens: result.record.metrics.rendered_tokens,
          available: result.record.available,
          ms,
        });
      } catch (error) {
        run.error = errorMessage(error);
        options.reporter?.warn(`${instance.commit.slice(0, 10)} ${method} @${budget}: ${run.error}`);
      }
      runs.push(run);
    }
  }
  return runs;
}

/** The config of one replay: the user's config with this method and the shared cache (the budget is the plan's). */
export function runConfig(options: Pick<EvalOptions, 'config' | 'cacheDir'>, method: ScoringMethod): Config {
  const config = structuredClone(options.config);
  config.relevance_scoring.scoring_method = method;
  config.cache = { ...config.cache, dir: options.cacheDir };
  return config;
}

/** A replay's budget: `budget` tokens for the context itself, no reserves, so it compares to a retrieval limit. */
export function evalPlan(config: Config, budget: number): BudgetPlan {
  return planBudget(config, { available: budget, reserved: { output: 0, system: 0 } });
}

/** Run a stage once and hand every later caller the same result; remembers what the real call cost. */
function once<I, R>(stage: (input: I, ctx: RunContext) => Promise<R>): { stage: (input: I, ctx: RunContext) => Promise<R>; realMs: () => number } {
  let result: Promise<R> | undefined;
  let realMs = 0;
  const wrapped = (input: I, ctx: RunContext): Promise<R> => {
    if (result === undefined) {
      const t0 = performance.now();
      result = stage(input, ctx);
      const settle = () => void (realMs = performance.now() - t0);
      result.then(settle, settle);
    }
    return result;
  };
  return { stage: wrapped, realMs: () => realMs };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
