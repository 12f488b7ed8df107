import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command, OptionValues } from '../command.js';
import { DEFAULT_CONFIG_FILE } from '../../config/load.js';
import { SCORING_METHODS, type ScoringMethod } from '../../config/schema.js';
import { resolveCacheDir } from '../../cache/cache-dir.js';
import { runEval } from '../../eval/run-eval.js';
import { renderEvalReport } from '../../eval/render-eval.js';
import { renderTuneReport, runTune, writeTunedWeights } from '../../eval/tune.js';
import { createStderrReporter } from '../../util/reporter.js';
import { UsageError } from '../../errors.js';
import { loadCommandConfig } from '../command-config.js';
import { resolveFromCwd } from '../resolve-root.js';

const DEFAULT_COMMITS = 20;
const DEFAULT_BUDGETS = [8000, 32000];
const MAX_COMMITS = 10_000;

/** `aiwg context-eval`: how well would the engine have served this repository's own past changes? */
export const contextEvalCommand: Command = {
  name: 'context-eval',
  usage: 'aiwg context-eval [--root DIR] [--commits N] [--budgets 8000,32000] [--methods keyword,semantic,hybrid] [--tasks FILE] [--tune [--write]] [--json]',
  options: {
    root: { type: 'string' },
    config: { type: 'string' },
    commits: { type: 'string' },
    budgets: { type: 'string' },
    methods: { type: 'string' },
    'cache-dir': { type: 'string' },
    tasks: { type: 'string' },
    json: { type: 'boolean' },
    tune: { type: 'boolean' },
    write: { type: 'boolean' },
    verbose: { type: 'boolean' },
  },
  help: {
    '--root DIR': 'git repository to evaluate (default: the current directory); its checkout is never touched',
    '--config FILE': 'config file (default: <root>/.aiwg/rag/config.yaml)',
    '--commits N': `most recent qualifying commits to replay (default ${DEFAULT_COMMITS})`,
    '--budgets LIST': `comma-separated context budgets in tokens, no reserves (default ${DEFAULT_BUDGETS.join(',')})`,
    '--methods LIST': `scoring methods to compare with the BM25 baseline (default ${SCORING_METHODS.join(',')})`,
    '--tasks FILE': 'replay the tasks of a JSONL file ({"id","task","commit","answer":[paths]} per line: the task text at the parent of commit, answer = files the fix changed) instead of commit messages; --commits caps how many',
    '--cache-dir DIR': 'shared cache for all replays (default: cache.dir if set, else a per-repository temp dir)',
    '--tune': 'fit the factor weights to this history instead: train on the older two thirds, report MRR before/after on the newest third (held back); uses the first of --methods',
    '--write': 'with --tune: write the fitted weights to the config file (only when they do not lose on the held-back third)',
    '--json': 'print one JSON object (tables and every run) on stdout',
    '--verbose': 'debug logs on stderr',
  },
  async run({ values }, io) {
    const commits = parseCommits(values.commits);
    const budgets = parseBudgets(values.budgets);
    const methods = parseMethods(values.methods);
    const { root, config } = await loadCommandConfig(values, io);
    const cacheDir = resolveEvalCacheDir(values, root, config, io.cwd);
    const reporter = createStderrReporter({ write: io.stderr, isTTY: io.isTTY, verbose: values.verbose === true });
    const tasksFile = typeof values.tasks === 'string' ? resolveFromCwd(values.tasks, io.cwd) : undefined;
    if (values.write === true && values.tune !== true) throw new UsageError('--write only goes with --tune: run `aiwg context-eval --tune --write`');
    if (values.tune === true) {
      const method = methods[0] as ScoringMethod;
      const tuned = await runTune({ root, commits, method, config, cacheDir, reporter, ...(tasksFile === undefined ? {} : { tasksFile }) });
      let written: string | undefined;
      if (values.write === true) written = await writeTunedWeights(tuned, typeof values.config === 'string' ? resolveFromCwd(values.config, io.cwd) : join(root, DEFAULT_CONFIG_FILE));
      io.stdout(values.json === true ? `${JSON.stringify({ ...tuned, written: written ?? null }, null, 2)}\n` : renderTuneReport(tuned, written, values.write === true));
      return 0;
    }
    const report = await runEval({ root, commits, budgets, methods, config, cacheDir, reporter, ...(tasksFile === undefined ? {} : { tasksFile }) });
    io.stdout(values.json === true ? `${JSON.stringify(report, null, 2)}\n` : renderEvalReport(report));
    return 0;
  },
};

export function parseCommits(value: unknown): number {
  if (value === undefined) return DEFAULT_COMMITS;
  const text = String(value);
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > MAX_COMMITS) {
    throw new UsageError(`--commits "${text}" is not a number of commits: pass a whole number from 1 to ${MAX_COMMITS}, e.g. --commits 20`);
  }
  return Number(text);
}

export function parseBudgets(value: unknown): number[] {
  if (value === undefined) return DEFAULT_BUDGETS;
  const parts = String(value).split(',').map((p) => p.trim().replace(/_/g, ''));
  const budgets = parts.map((p) => (/^\d+$/.test(p) ? Number(p) : Number.NaN));
  if (parts.length === 0 || budgets.some((b) => !Number.isInteger(b) || b <= 0)) {
    throw new UsageError(`--budgets "${String(value)}" is not a list of token budgets: pass positive whole numbers separated by commas, e.g. --budgets 8000,32000`);
  }
  return budgets;
}

export function parseMethods(value: unknown): ScoringMethod[] {
  if (value === undefined) return [...SCORING_METHODS];
  const parts = String(value).split(',').map((p) => p.trim()).filter((p) => p !== '');
  const bad = parts.filter((p) => !(SCORING_METHODS as readonly string[]).includes(p));
  if (parts.length === 0 || bad.length > 0) {
    throw new UsageError(`--methods "${String(value)}": ${bad.length > 0 ? `unknown method ${bad.map((b) => `"${b}"`).join(', ')}` : 'no method given'}; use a comma-separated subset of ${SCORING_METHODS.join(',')} (the bm25 baseline always runs)`);
  }
  return [...new Set(parts)] as ScoringMethod[];
}

/**
 * Replays share one cache so summaries and embeddings are computed once across worktrees. A
 * configured cache.dir is already shared; otherwise a temp dir per repository keeps the user's
 * checkout free of new files.
 */
function resolveEvalCacheDir(values: OptionValues, root: string, config: Parameters<typeof resolveCacheDir>[1], cwd: string): string {
  if (typeof values['cache-dir'] === 'string') return resolveFromCwd(values['cache-dir'], cwd);
  if (config.cache.dir !== undefined) return resolveCacheDir(root, config);
  return join(tmpdir(), `aiwg-eval-cache-${createHash('sha1').update(root).digest('hex').slice(0, 12)}`);
}
