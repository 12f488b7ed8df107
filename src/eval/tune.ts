import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parseDocument } from 'yaml';
import type { Config, ScoringMethod } from '../config/schema.js';
import type { FactorName, Reporter, ScoredFile } from '../types.js';
import { FACTOR_NAMES } from '../types.js';
import type { PipelineDeps } from '../pipeline.js';
import { compareScored, composite } from '../scoring/score-files.js';
import { createTokenizer, type Tokenizer, type TokenizerId } from '../tokenize/tokenizer.js';
import { silentReporter } from '../util/reporter.js';
import { ConfigError, UsageError } from '../errors.js';
import { ensureDir, writeFileAtomic } from '../util/atomic-write.js';
import { runGit, type GitRunner } from './git.js';
import { mineCommits, type EvalInstance } from './mine-commits.js';
import { loadTaskFile } from './load-tasks.js';
import { withWorktree } from './worktree.js';
import { runConfig } from './run-eval.js';

/**
 * `context-eval --tune`: fit the factor weights to a repository's own history. Each instance is
 * collected and scored once (the factors do not depend on the weights), then the weights are
 * searched coordinate by coordinate for the best MRR on the older instances and judged on the
 * newest ones, held back: what the fit would have gained on changes it had not seen.
 * Thresholds and budgets are not fitted: they act on the allocation, which MRR does not see.
 */

export type FactorWeights = Record<FactorName, number>;

export interface TuneOptions {
  root: string;
  /** Most recent qualifying commits (or tasks of `tasksFile`) to use, train and held-back together. */
  commits: number;
  method: ScoringMethod;
  config: Config;
  cacheDir: string;
  tasksFile?: string;
  /** Fraction of the instances, the newest, held back from the fit. */
  holdout?: number;
  reporter?: Reporter;
}

export interface TuneDeps {
  git: GitRunner;
  createStages: (config: Config, root: string) => Promise<Pick<PipelineDeps, 'collect' | 'score'>>;
  createTokenizer: (id: TokenizerId) => Promise<Tokenizer>;
}

/** One instance as the fit sees it: the gold files and every candidate's factors. */
export interface ScoredInstance {
  commit: string;
  gold: string[];
  files: ScoredFile[];
}

export interface TuneReport {
  root: string;
  method: ScoringMethod;
  train: number;
  heldBack: number;
  defaults: FactorWeights;
  tuned: FactorWeights;
  /** MRR of the default and the tuned weights on each split. */
  mrr: { train: { defaults: number; tuned: number }; heldBack: { defaults: number; tuned: number } };
}

export const DEFAULT_HOLDOUT = 1 / 3;
/** Values each weight is tried at (before the weights are normalised to sum to 1). */
export const WEIGHT_GRID = [0, 0.025, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1] as const;
const MAX_ROUNDS = 4;
/** A change of weights must gain at least this much training MRR: ties keep the defaults. */
const MIN_GAIN = 1e-4;

const DEFAULT_TUNE_DEPS: TuneDeps = {
  git: runGit,
  createStages: async (config, root) => (await import('../pipeline.js')).defaultDeps(config, root),
  createTokenizer,
};

export async function runTune(options: TuneOptions, overrides: Partial<TuneDeps> = {}): Promise<TuneReport> {
  const deps: TuneDeps = { ...DEFAULT_TUNE_DEPS, ...overrides };
  const holdout = options.holdout ?? DEFAULT_HOLDOUT;
  const instances = await scoreInstances(options, deps);
  // mined and loaded instances come newest first: the newest are held back
  const heldCount = Math.round(instances.length * holdout);
  if (instances.length - heldCount < 2 || heldCount < 1) {
    throw new UsageError(`--tune needs at least 3 scored instances with a held-back share (got ${instances.length}): raise --commits, e.g. --commits 30`);
  }
  const heldBack = instances.slice(0, heldCount);
  const train = instances.slice(heldCount);
  const defaults = weightsOf(options.config);
  const tuned = fitWeights(train, defaults);
  return {
    root: options.root,
    method: options.method,
    train: train.length,
    heldBack: heldBack.length,
    defaults,
    tuned,
    mrr: {
      train: { defaults: meanReciprocalRank(train, defaults), tuned: meanReciprocalRank(train, tuned) },
      heldBack: { defaults: meanReciprocalRank(heldBack, defaults), tuned: meanReciprocalRank(heldBack, tuned) },
    },
  };
}

/** Collect and score every instance once, at its parent commit, with the instance's own clock. */
export async function scoreInstances(options: TuneOptions, deps: TuneDeps): Promise<ScoredInstance[]> {
  const reporter = options.reporter ?? silentReporter();
  const mined: EvalInstance[] =
    options.tasksFile === undefined
      ? (await mineCommits({ root: options.root, commits: options.commits }, deps.git)).instances
      : (await loadTaskFile(options.tasksFile, options.root, deps.git)).instances.slice(0, options.commits);
  const config = runConfig(options, options.method);
  const tokenizer = await deps.createTokenizer(config.tokenizer);
  const { scoreTask } = await import('../pipeline.js');
  const out: ScoredInstance[] = [];
  for (const [i, instance] of mined.entries()) {
    reporter.progress('context-eval --tune', i, mined.length);
    const files = await withWorktree(
      options.root,
      instance.parent,
      async (dir) => {
        const stages = await deps.createStages(config, dir);
        const ctx = { config, tokenizer, reporter: silentReporter(), nowMs: instance.dateMs, warnings: [] };
        return (await scoreTask({ task: instance.task, root: dir }, ctx, stages)).scoring.files;
      },
      deps.git,
    );
    out.push({ commit: instance.commit, gold: instance.gold, files });
  }
  reporter.progress('context-eval --tune', mined.length, mined.length);
  return out;
}

/** The factor weights of a config. */
export function weightsOf(config: Config): FactorWeights {
  const factors = config.relevance_scoring.factors;
  return Object.fromEntries(FACTOR_NAMES.map((name) => [name, factors[name].weight])) as FactorWeights;
}

/**
 * Mean over instances of the mean over gold files of 1 / rank, ranking by the composite under
 * `weights` exactly as the score stage does (composite, then compareScored).
 */
export function meanReciprocalRank(instances: readonly ScoredInstance[], weights: FactorWeights): number {
  if (instances.length === 0) return 0;
  const config = configWith(weights);
  let total = 0;
  for (const instance of instances) {
    const rescored = instance.files.map((f) => ({ ...f, relevance: composite(f.factors, config) }));
    const byPath = new Map(rescored.map((f) => [f.path, f]));
    let sum = 0;
    for (const path of instance.gold) {
      const gold = byPath.get(path);
      if (gold === undefined) continue;
      let rank = 1;
      for (const other of rescored) if (other !== gold && compareScored(other, gold) < 0) rank++;
      sum += 1 / rank;
    }
    total += sum / instance.gold.length;
  }
  return total / instances.length;
}

/** Coordinate search over WEIGHT_GRID from `start`, weights normalised to sum to 1. Deterministic. */
export function fitWeights(instances: readonly ScoredInstance[], start: FactorWeights): FactorWeights {
  let best = normalise(start) ?? start;
  let bestMrr = meanReciprocalRank(instances, best);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    let improved = false;
    for (const name of FACTOR_NAMES) {
      for (const value of WEIGHT_GRID) {
        const candidate = normalise({ ...best, [name]: value });
        if (candidate === null) continue;
        const mrr = meanReciprocalRank(instances, candidate);
        if (mrr > bestMrr + MIN_GAIN) {
          best = candidate;
          bestMrr = mrr;
          improved = true;
        }
      }
    }
    if (!improved) break;
  }
  return best;
}

function normalise(weights: FactorWeights): FactorWeights | null {
  const sum = FACTOR_NAMES.reduce((s, name) => s + weights[name], 0);
  if (sum <= 0) return null;
  return Object.fromEntries(FACTOR_NAMES.map((name) => [name, Math.round((weights[name] / sum) * 1000) / 1000])) as FactorWeights;
}

function configWith(weights: FactorWeights): Config {
  // composite() reads only the weights; the rest of the config is irrelevant to it
  const factors = Object.fromEntries(FACTOR_NAMES.map((name) => [name, { weight: weights[name] }]));
  return { relevance_scoring: { factors } } as unknown as Config;
}

/**
 * Write the fitted weights into a config file (comments and other keys kept), only when they do
 * not lose on the held-back split. Returns the path written, or undefined when nothing was.
 */
export async function writeTunedWeights(report: TuneReport, configPath: string): Promise<string | undefined> {
  if (report.mrr.heldBack.tuned < report.mrr.heldBack.defaults) return undefined;
  let text = '';
  try {
    text = await readFile(configPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw new ConfigError('', `not valid YAML (${doc.errors[0]?.message ?? 'parse error'}); fix it before --tune --write`, { file: configPath });
  for (const name of FACTOR_NAMES) doc.setIn(['relevance_scoring', 'factors', name, 'weight'], report.tuned[name]);
  ensureDir(dirname(configPath));
  await writeFileAtomic(configPath, doc.toString());
  return configPath;
}

/** The human report of a fit: weights before and after, MRR on both splits. */
export function renderTuneReport(report: TuneReport, written: string | undefined, wantedWrite: boolean): string {
  const lines = [
    `Repository: ${report.root}; method ${report.method}; fitted on the ${report.train} older instances, judged on the ${report.heldBack} newest (held back)`,
    '',
    '| factor | default weight | fitted weight |',
    '|---|--:|--:|',
    ...FACTOR_NAMES.map((name) => `| ${name} | ${report.defaults[name].toFixed(3)} | ${report.tuned[name].toFixed(3)} |`),
    '',
    '| split | MRR default | MRR fitted | gain |',
    '|---|--:|--:|--:|',
    `| train (${report.train}) | ${report.mrr.train.defaults.toFixed(3)} | ${report.mrr.train.tuned.toFixed(3)} | ${signed(report.mrr.train.tuned - report.mrr.train.defaults)} |`,
    `| held back (${report.heldBack}) | ${report.mrr.heldBack.defaults.toFixed(3)} | ${report.mrr.heldBack.tuned.toFixed(3)} | ${signed(report.mrr.heldBack.tuned - report.mrr.heldBack.defaults)} |`,
    '',
  ];
  if (written !== undefined) lines.push(`Wrote the fitted weights to ${written}.`);
  else if (wantedWrite) lines.push('Not written: the fitted weights lose on the held-back instances; the defaults stay.');
  else lines.push('Nothing written: add --write to put the fitted weights into the config file.');
  return `${lines.join('\n')}\n`;
}

function signed(value: number): string {
  return `${value >= 0 ? '+' : ''}${value.toFixed(3)}`;
}
