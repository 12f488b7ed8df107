import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { fitWeights, meanReciprocalRank, renderTuneReport, weightsOf, type FactorWeights, type ScoredInstance } from '../../src/eval/tune.js';
import { defaultConfig } from '../../src/config/schema.js';
import { FACTOR_NAMES, type FactorScores, type ScoredFile } from '../../src/types.js';
import { makeTempDir, type Fixture } from '../helpers/fixture-repo.js';
import { runCli } from '../helpers/fakes.js';
import { makeMiningRepo } from './eval-fixtures.js';

function file(path: string, alignment: number, recency: number): ScoredFile {
  const factors = Object.fromEntries(FACTOR_NAMES.map((name) => [name, { raw: 0, score: 0 }])) as unknown as FactorScores;
  factors.task_alignment = { raw: alignment, score: alignment };
  factors.recency = { raw: recency, score: recency };
  return { path, category: 'source_code', factors, relevance: 0, mentionedInTask: false };
}

/** Gold files that match the task well but are old, beside recent files that match it less. */
const INSTANCES: ScoredInstance[] = [
  { commit: 'a', gold: ['gold.ts'], files: [file('gold.ts', 0.9, 0.1), file('recent.ts', 0.5, 1), file('other.ts', 0.2, 0.5)] },
  { commit: 'b', gold: ['gold.ts', 'also.ts'], files: [file('gold.ts', 0.8, 0), file('also.ts', 0.7, 0.2), file('recent.ts', 0.3, 1)] },
];

const ONLY_RECENCY: FactorWeights = { task_alignment: 0, recency: 1, mention_density: 0, dependency_depth: 0, file_type: 0 };

describe('meanReciprocalRank and fitWeights', () => {
  it.each([
    [{ ...ONLY_RECENCY }, (1 / 3 + (1 / 3 + 1 / 2) / 2) / 2],
    // the second instance's two gold files take ranks 1 and 2: its best is (1 + 1/2) / 2
    [{ ...ONLY_RECENCY, task_alignment: 1, recency: 0 }, (1 + 0.75) / 2],
  ])('ranks by the composite under %j', (weights, expected) => {
    expect(meanReciprocalRank(INSTANCES, weights)).toBeCloseTo(expected, 9);
  });
  it('fits weights that put the gold files first, normalised to sum to 1', () => {
    const fitted = fitWeights(INSTANCES, ONLY_RECENCY);
    expect(meanReciprocalRank(INSTANCES, fitted)).toBeCloseTo((1 + 0.75) / 2, 9);
    expect(FACTOR_NAMES.reduce((s, n) => s + fitted[n], 0)).toBeCloseTo(1, 2);
  });
  it('keeps the start when nothing gains', () => {
    const best = { ...ONLY_RECENCY, task_alignment: 1, recency: 0 };
    expect(fitWeights(INSTANCES, best)).toEqual(best);
  });
  it('reads the default weights from the config', () => {
    expect(weightsOf(defaultConfig())).toEqual({ task_alignment: 0.4, recency: 0.2, mention_density: 0.2, dependency_depth: 0.1, file_type: 0.1 });
  });
  it('renders both splits and says nothing was written without --write', () => {
    const text = renderTuneReport(
      { root: '/r', method: 'keyword', train: 2, heldBack: 1, defaults: ONLY_RECENCY, tuned: { ...ONLY_RECENCY, task_alignment: 0.5, recency: 0.5 }, mrr: { train: { defaults: 0.4, tuned: 0.6 }, heldBack: { defaults: 0.5, tuned: 0.45 } } },
      undefined,
      false,
    );
    expect(text).toContain('| train (2) | 0.400 | 0.600 | +0.200 |');
    expect(text).toContain('| held back (1) | 0.500 | 0.450 | -0.050 |');
    expect(text).toContain('Nothing written');
  });
});

describe('aiwg context-eval --tune', () => {
  let repo: Fixture;
  let cache: Fixture;
  beforeAll(() => {
    repo = makeMiningRepo();
    cache = makeTempDir();
  });
  afterAll(() => {
    repo.cleanup();
    cache.cleanup();
  });

  it('fits on the older commits, judges on the newest, and writes only with --write when it does not lose', async () => {
    const configPath = join(cache.root, 'config.yaml');
    writeFileSync(configPath, '# my settings\ntokenizer: chars4\n');
    const before = repo.git('status', '--porcelain');
    const { code, stdout, stderr } = await runCli(
      ['context-eval', '--tune', '--write', '--json', '--methods', 'keyword', '--commits', '3', '--root', repo.root, '--cache-dir', join(cache.root, 'c'), '--config', configPath],
      repo.root,
    );
    expect(stderr).not.toContain('Error');
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect([report.train, report.heldBack]).toEqual([2, 1]);
    expect(report.defaults).toEqual(weightsOf(defaultConfig()));
    const text = readFileSync(configPath, 'utf8');
    expect(text).toContain('# my settings');
    expect(parse(text).tokenizer).toBe('chars4');
    const written = parse(text).relevance_scoring?.factors;
    if (report.mrr.heldBack.tuned >= report.mrr.heldBack.defaults) {
      expect(report.written).toBe(configPath);
      for (const name of FACTOR_NAMES) expect(written[name].weight).toBe(report.tuned[name]);
    } else {
      expect(report.written).toBeNull();
      expect(written).toBeUndefined();
    }
    expect(repo.git('status', '--porcelain')).toBe(before);
  });

  it('refuses --write without --tune', async () => {
    const { code, stderr } = await runCli(['context-eval', '--write', '--root', repo.root], repo.root);
    expect(code).toBe(2);
    expect(stderr).toContain('--write only goes with --tune');
  });
});
