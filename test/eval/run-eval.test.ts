import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withWorktree } from '../../src/eval/worktree.js';
import { runGit } from '../../src/eval/git.js';
import { runEval, runConfig, evalPlan, type EvalDeps } from '../../src/eval/run-eval.js';
import { renderEvalReport } from '../../src/eval/render-eval.js';
import { defaultConfig } from '../../src/config/schema.js';
import { createChars4Tokenizer } from '../../src/tokenize/tokenizer.js';
import type { PipelineOptions } from '../../src/pipeline.js';
import { makeTempDir, type Fixture } from '../helpers/fixture-repo.js';
import { makeMiningRepo, recordWith } from './eval-fixtures.js';

function checkoutState(repo: Fixture) {
  return {
    head: repo.git('rev-parse', 'HEAD'),
    branch: repo.git('symbolic-ref', 'HEAD'),
    status: repo.git('status', '--porcelain', '--ignored'),
    worktrees: repo.git('worktree', 'list', '--porcelain'),
  };
}

describe('withWorktree', () => {
  let repo: Fixture;
  beforeAll(() => {
    repo = makeMiningRepo();
  });
  afterAll(() => repo.cleanup());

  it('shows the parent commit only, then removes the worktree and leaves the checkout untouched', async () => {
    const before = checkoutState(repo);
    const first = repo.git('rev-list', '--max-parents=0', 'HEAD').trim();
    let seen = '';
    const dir = await withWorktree(repo.root, first, async (wt) => {
      seen = readFileSync(join(wt, 'src/http.ts'), 'utf8');
      expect(existsSync(join(wt, 'src/export.ts'))).toBe(false);
      expect((await runGit(wt, ['log', '--format=%H'])).trim()).toBe(first);
      return wt;
    }, runGit);
    expect(seen).toContain('"v1"');
    expect(existsSync(dir)).toBe(false);
    expect(checkoutState(repo)).toEqual(before);
  });

  it('cleans up when the work throws', async () => {
    const before = checkoutState(repo);
    let dir = '';
    await expect(
      withWorktree(repo.root, 'HEAD~1', async (wt) => {
        dir = wt;
        throw new Error('boom');
      }, runGit),
    ).rejects.toThrow('boom');
    expect(existsSync(dir)).toBe(false);
    expect(checkoutState(repo)).toEqual(before);
  });
});

describe('runEval with a fake pipeline', () => {
  let repo: Fixture;
  beforeAll(() => {
    repo = makeMiningRepo();
  });
  afterAll(() => repo.cleanup());

  /** Puts src/http.ts in primary at full and src/parser.ts in reference as a stub; ranks by path. */
  const fakeDeps = (calls: PipelineOptions[]): Partial<EvalDeps> => ({
    createTokenizer: async () => createChars4Tokenizer(),
    createStages: async () => ({
      collect: async () => { throw new Error('not called by the fake pipeline'); },
      score: async () => { throw new Error('not called by the fake pipeline'); },
    }),
    runPipeline: async (options) => {
      calls.push(options);
      if (options.config.relevance_scoring.scoring_method === 'semantic') throw new Error('model missing');
      const record = recordWith(
        [
          { path: 'src/http.ts', tier: 'primary', level: 'full' },
          { path: 'src/parser.ts', tier: 'reference', level: 'stub' },
        ],
        { available: options.plan!.available, renderedTokens: 500 },
      );
      const scored = ['src/http.ts', 'src/parser.ts', 'src/util.ts'].map((path) => ({ path }) as never);
      return { record, rendered: '', scored };
    },
  });

  it('replays every instance at its parent for every method and budget, and tabulates the baseline beside ours', async () => {
    const before = checkoutState(repo);
    const calls: PipelineOptions[] = [];
    const report = await runEval(
      { root: repo.root, commits: 5, budgets: [32000, 400], methods: ['keyword', 'semantic'], config: defaultConfig(), cacheDir: '/tmp/aiwg-eval-test-cache' },
      fakeDeps(calls),
    );
    expect(checkoutState(repo)).toEqual(before);
    expect(calls).toHaveLength(3 * 2 * 2);
    expect(new Set(calls.map((c) => c.root)).size).toBe(3);
    expect(calls.every((c) => c.root !== repo.root && !existsSync(c.root))).toBe(true);
    expect(calls[0]!.task).toBe('parse chunked bodies in the parser');
    expect(calls[0]!.config.cache.dir).toBe('/tmp/aiwg-eval-test-cache');
    // the budget is the run's plan (400 tokens, no reserves); the config is not rewritten
    expect(calls[0]!.plan).toMatchObject({ total: 400, available: 400, reserved: { output: 0, system: 0 } });
    expect(calls[0]!.config.budget_config).toEqual(defaultConfig().budget_config);

    expect(report.methods).toEqual(['bm25', 'keyword', 'semantic']);
    expect(report.budgets).toEqual([400, 32000]);
    const big = report.tables[1]!;
    const keyword = big.rows.find((r) => r.method === 'keyword')!.summary;
    // gold: [parser, util] -> http full primary: 0 of 2 detailed, parser stub: 1 of 2 any; [http] x2 -> all hit
    expect(keyword).toMatchObject({ instances: 3, errors: 0, recallDetailed: 2 / 3, recallAny: (0.5 + 1 + 1) / 3, primaryHitRate: 2 / 3, adherence: 1 });
    expect(keyword.mrr).toBeCloseTo(((1 / 2 + 1 / 3) / 2 + 1 + 1) / 3);
    expect(big.rows.find((r) => r.method === 'semantic')!.summary).toMatchObject({ instances: 0, errors: 3 });
    const bm25 = big.rows.find((r) => r.method === 'bm25')!.summary;
    // src/util.ts shares no word with "parse chunked bodies in the parser": not a BM25 hit, never packed
    expect(bm25).toMatchObject({ instances: 3, errors: 0, primaryHitRate: null, adherence: 1, recallAny: 2.5 / 3, allIncluded: 2 / 3 });

    const text = renderEvalReport(report);
    expect(text).toContain('Budget 32,000 tokens');
    expect(text).toMatch(/\| bm25 +\| +3 \|/);
  });

  it('gives the same metrics on a second run', async () => {
    const strip = (r: Awaited<ReturnType<typeof runEval>>) => r.runs.map(({ metrics, ...rest }) => ({ ...rest, metrics: metrics && { ...metrics, ms: 0 } }));
    const options = { root: repo.root, commits: 2, budgets: [300], methods: ['keyword' as const], config: defaultConfig(), cacheDir: '/tmp/x' };
    expect(strip(await runEval(options, fakeDeps([])))).toEqual(strip(await runEval(options, fakeDeps([]))));
  });

  it('overrides method and cache dir and nothing else; the budget is a plan, not a config rewrite', () => {
    const base = defaultConfig();
    const config = runConfig({ config: base, cacheDir: '/c' }, 'semantic');
    expect(config.relevance_scoring.scoring_method).toBe('semantic');
    expect(config.budget_config).toEqual(base.budget_config);
    expect(evalPlan(base, 1234)).toMatchObject({ total: 1234, available: 1234, reserved: { output: 0, system: 0 } });
    expect({ ...config, budget_config: base.budget_config, relevance_scoring: base.relevance_scoring, cache: base.cache }).toEqual(base);
    expect(base.cache.dir).toBeUndefined();
  });
});

describe('runEval with the real pipeline (keyword scoring)', () => {
  let repo: Fixture;
  let cache: Fixture;
  beforeAll(() => {
    repo = makeMiningRepo();
    cache = makeTempDir('aiwg-eval-cache-');
  });
  afterAll(() => {
    repo.cleanup();
    cache.cleanup();
  });

  it('replays every instance within budget, writes caches only to the shared cache dir and nothing into the repository', async () => {
    const before = checkoutState(repo);
    const report = await runEval({ root: repo.root, commits: 3, budgets: [600], methods: ['keyword'], config: defaultConfig(), cacheDir: cache.root });
    expect(checkoutState(repo)).toEqual(before);
    expect(existsSync(join(repo.root, '.aiwg'))).toBe(false);
    const [table] = report.tables;
    for (const row of table!.rows) expect(row.summary).toMatchObject({ instances: 3, errors: 0, adherence: 1 });
    expect(readdirSync(cache.root).length).toBeGreaterThan(0);
  });
});
