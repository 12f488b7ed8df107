import { realpath } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { CollectStage, ScoreStage } from '../stages.js';
import type { Config, Reporter, RunContext } from '../types.js';
import { InputError } from '../errors.js';
import { createCollectStage } from '../collect/collect-files.js';
import { createChars4Tokenizer } from '../tokenize/tokenizer.js';
import { silentReporter } from '../util/reporter.js';
import { createScoreStage } from './score-files.js';
import { explainScore, toRootRelative, type ScoreExplanation } from './explain.js';

export interface ScoreOneFileOptions {
  /** Real path of the repository root. */
  root: string;
  task: string;
  /** Root-relative, or absolute inside the root. */
  file: string;
  config: Config;
  reporter?: Reporter;
}

export interface ScoreOneFileDeps {
  collect?: CollectStage;
  score?: ScoreStage;
  now?: () => number;
}

export interface ScoreOneFileResult {
  explanation: ScoreExplanation;
  warnings: string[];
}

/**
 * What `aiwg context-score` does: collect the root, score every candidate (relevance is
 * relative to the run, so one file cannot be scored alone), and explain the one asked for.
 * A file outside the root, missing, or excluded by collect is an InputError naming why.
 */
export async function scoreOneFile(options: ScoreOneFileOptions, deps: ScoreOneFileDeps = {}): Promise<ScoreOneFileResult> {
  const { root, task, config } = options;
  const path = await rootRelativePath(options.file, root);
  const ctx: RunContext = {
    config,
    // scoring counts no tokens; the cheap counter keeps context-score from loading BPE tables
    tokenizer: createChars4Tokenizer(),
    reporter: options.reporter ?? silentReporter(),
    nowMs: (deps.now ?? Date.now)(),
    warnings: [],
  };
  const collected = await (deps.collect ?? createCollectStage())({ root }, ctx);
  if (!collected.files.some((f) => f.path === path)) {
    const excluded = collected.excluded.find((e) => e.path === path || path.startsWith(`${e.path.replace(/\/$/, '')}/`));
    if (excluded) throw new InputError(`${path}: not a candidate file (${excluded.reason}); scoring only covers files the collect stage accepts`);
    throw new InputError(`${path}: no such file under ${root}; give a path relative to the root (or --root the repository holding it)`);
  }
  const result = await (deps.score ?? createScoreStage({ root, config }))({ task, collected }, ctx);
  const explanation = explainScore(path, result, config);
  if (explanation === null) throw new InputError(`${path}: the score stage returned no score for it`);
  return { explanation, warnings: [...collected.warnings, ...ctx.warnings] };
}

async function rootRelativePath(file: string, root: string): Promise<string> {
  const outside = () => new InputError(`${file}: outside the root ${root}; pass a path inside it, or point --root at the repository holding it`);
  if (!isAbsolute(file)) {
    const rel = toRootRelative(file, root, false);
    if (rel === null) throw outside();
    return rel;
  }
  // resolve symlinks of an absolute path so a link pointing out of the root is refused
  const real = await realpath(file).catch(() => resolve(file));
  const rel = toRootRelative(real, root, true);
  if (rel === null) throw outside();
  return rel;
}
