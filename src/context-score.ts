import { realpath } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { Config, Reporter, RunContext, RuntimeEnv } from './types.js';
import { InputError } from './errors.js';
import { createChars4Tokenizer } from './tokenize/tokenizer.js';
import { silentReporter } from './util/reporter.js';
import { requireTask } from './scoring/task-facts.js';
import { tierOf } from './allocate/tiers.js';
import { explainScore, toRootRelative, type ScoreExplanation } from './scoring/explain.js';
import { defaultDeps, scoreTask, type PipelineDeps } from './pipeline.js';

export interface ScoreOneFileOptions {
  /** Real path of the repository root. */
  root: string;
  task: string;
  /** Root-relative, or absolute inside the root. */
  file: string;
  config: Config;
  reporter?: Reporter;
  /** The caller's environment (the CLI passes process.env); see RunContext.env. */
  env?: RuntimeEnv;
}

export interface ScoreOneFileResult {
  explanation: ScoreExplanation;
  warnings: string[];
}

/** How context-score names a missing task: the one message of `requireTask`. */
export const CONTEXT_SCORE_TASK = { what: '--task', example: 'aiwg context-score src/auth/login.ts --task "fix the login redirect"' } as const;

/**
 * The context-score front end: the first half of context-budget (`scoreTask`: collect, task
 * facts, score, the one tier rule) over the whole root, since relevance is relative to the
 * run, then the explanation of the one file asked for. A file outside the root, missing, or
 * excluded by collect is an InputError naming why.
 */
export async function scoreOneFile(options: ScoreOneFileOptions, overrides: Partial<Pick<PipelineDeps, 'collect' | 'score' | 'now'>> = {}): Promise<ScoreOneFileResult> {
  const { root, config } = options;
  const task = requireTask(options.task, CONTEXT_SCORE_TASK);
  const path = await rootRelativePath(options.file, root);
  const deps = { ...defaultDeps(config, root), ...overrides };
  const ctx: RunContext = {
    config,
    // scoring counts no tokens; the cheap counter keeps context-score from loading BPE tables
    tokenizer: createChars4Tokenizer(),
    reporter: options.reporter ?? silentReporter(),
    nowMs: deps.now(),
    warnings: [],
    ...(options.env ? { env: options.env } : {}),
  };
  const { collected, scoring, tiering } = await scoreTask({ task, root }, ctx, deps);
  if (!collected.files.some((f) => f.path === path)) {
    const excluded = collected.excluded.find((e) => e.path === path || path.startsWith(`${e.path.replace(/\/$/, '')}/`));
    if (excluded) throw new InputError(`${path}: not a candidate file (${excluded.reason}); scoring only covers files the collect stage accepts`);
    throw new InputError(`${path}: no such file under ${root}; give a path relative to the root (or --root the repository holding it)`);
  }
  const verdict = tierOf(tiering, path);
  const explanation = verdict && explainScore(path, scoring, config, verdict);
  if (!explanation) throw new InputError(`${path}: the score stage returned no score for it`);
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
