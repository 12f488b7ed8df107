import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { composite, compareScored, createScoreStage, NEUTRAL_FACTOR } from '../../src/scoring/score-files.js';
import type { CollectResult, FactorName, FactorScore, FactorScores, Signal } from '../../src/types.js';
import { FACTOR_NAMES } from '../../src/types.js';
import { join } from 'node:path';
import { ConfigSchema, defaultConfig } from '../../src/config/schema.js';
import type { Embedder } from '../../src/types.js';
import { makeTempDir } from '../helpers/fixture-repo.js';
import { testContext } from '../helpers/fakes.js';
import { candidates, gitFacts } from './helpers.js';

/** A signal returning fixed scores per path. */
function fixed(name: FactorName, scores: Record<string, number>): Signal {
  return {
    name,
    score: (input) => new Map(input.files.map((f) => [f.path, { raw: scores[f.path] ?? 0, score: scores[f.path] ?? 0 }])),
  };
}

function collected(files: Record<string, string>): CollectResult {
  return { root: '/repo', files: candidates(files), excluded: [], git: gitFacts(), warnings: [] };
}

const FILES = { 'b.ts': '', 'a.ts': '', 'c.md': '' };

describe('score stage', () => {
  it('relevance is the weighted sum of the factors with the configured weights', async () => {
    const signals = [
      fixed('task_alignment', { 'a.ts': 1, 'b.ts': 0.5, 'c.md': 0 }),
      fixed('recency', { 'a.ts': 0.5, 'b.ts': 1, 'c.md': 0 }),
      fixed('mention_density', { 'a.ts': 0, 'b.ts': 1, 'c.md': 0 }),
      fixed('dependency_depth', { 'a.ts': 1, 'b.ts': 0.25, 'c.md': 0 }),
      fixed('file_type', { 'a.ts': 1, 'b.ts': 1, 'c.md': 0.7 }),
    ];
    const result = await createScoreStage({ root: '/repo', config: defaultConfig() }, { signals })({ task: 't', collected: collected(FILES) }, testContext());
    expect(result.files.map((f) => [f.path, f.relevance])).toEqual([
      ['b.ts', 0.725], // .4*.5 + .2*1 + .2*1 + .1*.25 + .1*1
      ['a.ts', 0.7], // .4 + .1 + 0 + .1 + .1
      ['c.md', 0.07],
    ]);
    expect(result.files[0]?.category).toBe('source_code');
    expect(result.files[2]?.category).toBe('documentation');
  });

  it('sorts by relevance, ties by path', async () => {
    const signals = [fixed('task_alignment', { 'a.ts': 0.5, 'b.ts': 0.5, 'c.md': 0.9 })];
    const result = await createScoreStage({ root: '/repo', config: defaultConfig() }, { signals })({ task: 't', collected: collected(FILES) }, testContext());
    expect(result.files.map((f) => f.path)).toEqual(['c.md', 'a.ts', 'b.ts']);
  });

  it('later signals see the factors of earlier ones', async () => {
    const seen: number[] = [];
    const reader: Signal = {
      name: 'dependency_depth',
      score: (input) => {
        seen.push(input.prior.get('task_alignment')?.get('a.ts')?.score ?? -1);
        return new Map();
      },
    };
    await createScoreStage({ root: '/repo', config: defaultConfig() }, { signals: [fixed('task_alignment', { 'a.ts': 0.8 }), reader] })(
      { task: 't', collected: collected(FILES) },
      testContext(),
    );
    expect(seen).toEqual([0.8]);
  });

  it('a failing signal or an out-of-range score degrades to the neutral value with a warning', async () => {
    const broken: Signal = {
      name: 'recency',
      score: () => {
        throw new Error('git exploded');
      },
    };
    const wild: Signal = { name: 'task_alignment', score: () => new Map<string, FactorScore>([['a.ts', { raw: 1, score: Number.NaN }]]) };
    const ctx = testContext();
    const result = await createScoreStage({ root: '/repo', config: defaultConfig() }, { signals: [wild, broken] })({ task: 't', collected: collected(FILES) }, ctx);
    const a = result.files.find((f) => f.path === 'a.ts');
    expect(a?.factors.recency.score).toBe(NEUTRAL_FACTOR.recency);
    expect(a?.factors.task_alignment.score).toBe(NEUTRAL_FACTOR.task_alignment);
    expect(ctx.warnings).toEqual([expect.stringContaining('outside [0,1]'), expect.stringContaining('git exploded')]);
  });

  it('builds task-independent data once per collected file set, again when the set changes', async () => {
    const builds: string[] = [];
    const graphOf = (name: FactorName): Signal => ({
      name,
      score: (input) => {
        const graph = input.derived?.('graph', () => (builds.push(input.files.map((f) => f.path).join(',')), { edges: input.files.length }));
        return new Map(input.files.map((f) => [f.path, { raw: graph?.edges ?? -1, score: 0.5 }]));
      },
    });
    const stage = createScoreStage({ root: '/repo', config: defaultConfig() }, { signals: [graphOf('dependency_depth'), graphOf('mention_density')] });
    const first = collected(FILES);
    await stage({ task: 'one task', collected: first }, testContext());
    await stage({ task: 'another task', collected: { ...first, warnings: [] } }, testContext());
    expect(builds).toEqual(['a.ts,b.ts,c.md']);
    const result = await stage({ task: 'one task', collected: collected({ ...FILES, 'd.ts': '' }) }, testContext());
    expect(builds).toEqual(['a.ts,b.ts,c.md', 'a.ts,b.ts,c.md,d.ts']);
    expect(result.files.find((f) => f.path === 'd.ts')?.factors.dependency_depth.raw).toBe(4);
  });

  it('a long-lived stage keeps the classification while the paths stay the same, and classifies again when they change', async () => {
    const seen: Array<ReadonlyMap<string, unknown>> = [];
    const reader: Signal = {
      name: 'file_type',
      score: (input) => {
        seen.push(input.categories);
        return new Map();
      },
    };
    const stage = createScoreStage({ root: '/repo', config: defaultConfig(), longLived: true }, { signals: [reader] });
    await stage({ task: 't', collected: collected(FILES) }, testContext());
    await stage({ task: 't', collected: collected({ ...FILES, 'a.ts': 'edited' }) }, testContext());
    await stage({ task: 't', collected: collected({ ...FILES, 'd.ts': '' }) }, testContext());
    expect(seen[1]).toBe(seen[0]);
    expect(seen[2]).not.toBe(seen[0]);
    expect(seen[2]?.get('d.ts')).toBe('source_code');
  });

  it('flags files the task @-mentions', async () => {
    const result = await createScoreStage({ root: '/repo', config: defaultConfig() }, { signals: [] })(
      { task: 'see @a.ts and b.ts', collected: collected(FILES) },
      testContext(),
    );
    expect(result.files.filter((f) => f.mentionedInTask).map((f) => f.path)).toEqual(['a.ts']);
  });

  it('hybrid with no embedding model: keyword alignment, embeddingModel null, one warning', async () => {
    const ctx = testContext();
    const stage = createScoreStage({ root: '/repo', config: ctx.config }, { embedderFactory: async () => null });
    const result = await stage({ task: 'retry loop', collected: collected({ 'retry.ts': 'retryLoop()', 'other.ts': 'x' }) }, ctx);
    expect(result.method).toBe('hybrid');
    expect(result.embeddingModel).toBeNull();
    expect(result.files[0]?.path).toBe('retry.ts');
    expect(ctx.warnings.filter((w) => w.includes('keyword'))).toHaveLength(1);
  });

  it('an embedder factory that throws is a warning, not a crash', async () => {
    const ctx = testContext();
    const stage = createScoreStage(
      { root: '/repo', config: ctx.config },
      {
        embedderFactory: async () => {
          throw new Error('model directory missing');
        },
      },
    );
    const result = await stage({ task: 'retry', collected: collected({ 'retry.ts': 'retry' }) }, ctx);
    expect(result.embeddingModel).toBeNull();
    const aboutAlignment = ctx.warnings.filter((w) => w.startsWith('task_alignment'));
    expect(aboutAlignment).toEqual([expect.stringContaining('model directory missing')]);
  });

  it('a long-lived stage loads the embedding model after a run (the next new task does not wait for it); a one-shot stage never does', async () => {
    const tmp = makeTempDir('aiwg-score-warm-');
    try {
      for (const longLived of [true, false]) {
        let loads = 0;
        const embedder: Embedder = { id: 'fake@1', dimensions: 2, embed: async (texts) => texts.map(() => Float32Array.from([1, 0])), load: async () => void loads++ };
        const config = ConfigSchema.parse({ cache: { dir: join(tmp.root, String(longLived)) } });
        const stage = createScoreStage({ root: tmp.root, config, ...(longLived ? { longLived } : {}) }, { embedderFactory: async () => embedder });
        const result = await stage({ task: 'retry', collected: collected({ 'retry.ts': 'retry' }) }, testContext({ config }));
        expect(result.embeddingModel).toBe('fake@1');
        expect(loads).toBe(longLived ? 1 : 0);
      }
    } finally {
      tmp.cleanup();
    }
  });

  it('prepare loads the embedding model as a run starts only when the task has no stored vector, and never for keyword scoring', async () => {
    const tmp = makeTempDir('aiwg-score-prepare-');
    try {
      let loads = 0;
      const embedder: Embedder = { id: 'fake@1', dimensions: 2, embed: async (texts) => texts.map(() => Float32Array.from([1, 0])), load: async () => void loads++ };
      const config = ConfigSchema.parse({ cache: { dir: join(tmp.root, 'cache') } });
      const stage = createScoreStage({ root: tmp.root, config }, { embedderFactory: async () => embedder });
      await stage.prepare!('retry the request', testContext({ config }));
      expect(loads).toBe(1);
      // the run stores the task's vector: preparing the same task again loads nothing
      await stage({ task: 'retry the request', collected: collected({ 'retry.ts': 'retry' }) }, testContext({ config }));
      loads = 0;
      await stage.prepare!('retry the request', testContext({ config }));
      expect(loads).toBe(0);
      await stage.prepare!('another task', testContext({ config }));
      expect(loads).toBe(1);
      const keyword = ConfigSchema.parse({ cache: { dir: join(tmp.root, 'cache') }, relevance_scoring: { scoring_method: 'keyword' } });
      loads = 0;
      await createScoreStage({ root: tmp.root, config: keyword }, { embedderFactory: async () => embedder }).prepare!('a third task', testContext({ config: keyword }));
      expect(loads).toBe(0);
    } finally {
      tmp.cleanup();
    }
  });

  it('keyword method never builds an embedder', async () => {
    const ctx = testContext();
    ctx.config.relevance_scoring.scoring_method = 'keyword';
    let built = 0;
    const stage = createScoreStage({ root: '/repo', config: ctx.config }, { embedderFactory: async () => (built++, null) });
    const result = await stage({ task: 'retry', collected: collected({ 'retry.ts': 'retry' }) }, ctx);
    expect(built).toBe(0);
    expect(result.method).toBe('keyword');
  });
});

describe('bad input degrades, never crashes', () => {
  it('binary content with a source extension, a huge minified line, invalid JSON config and an empty file all score', async () => {
    const ctx = testContext();
    ctx.config.relevance_scoring.scoring_method = 'keyword';
    const files = {
      'src/blob.ts': '\u0000\u0001\u0002\uFFFD'.repeat(5000),
      'dist/app.min.js': `${'function a(b){return b+1}var c=require("./x");'.repeat(20_000)}`,
      'tsconfig.json': '{ "compilerOptions": { "paths": ',
      'src/empty.py': '',
      'src/retry.ts': "import { x } from 'lib/x';\nexport function retryLoop() {}",
    };
    const result = await createScoreStage({ root: '/repo', config: ctx.config })({ task: 'retry loop', collected: collected(files) }, ctx);
    expect(result.files).toHaveLength(5);
    for (const f of result.files) {
      expect(f.relevance).toBeGreaterThanOrEqual(0);
      expect(f.relevance).toBeLessThanOrEqual(1);
      for (const name of FACTOR_NAMES) expect(Number.isFinite(f.factors[name].score)).toBe(true);
    }
    expect(result.files[0]?.path).toBe('src/retry.ts');
    expect(ctx.warnings).toContainEqual(expect.stringContaining('tsconfig.json is not valid JSON'));
  });
});

describe('composite (property)', () => {
  const unit = fc.double({ min: 0, max: 1, noNaN: true });
  it('stays in [0,1] for weights summing to 1 and is monotone in every factor', () => {
    fc.assert(
      fc.property(fc.array(unit, { minLength: 5, maxLength: 5 }), fc.array(unit, { minLength: 5, maxLength: 5 }), fc.integer({ min: 0, max: 4 }), (rawWeights, scores, bump) => {
        const config = defaultConfig();
        const sum = rawWeights.reduce((a, b) => a + b, 0) || 1;
        FACTOR_NAMES.forEach((name, i) => (config.relevance_scoring.factors[name].weight = (rawWeights[i] as number) / sum));
        const factors = Object.fromEntries(FACTOR_NAMES.map((n, i) => [n, { raw: 0, score: scores[i] as number }])) as FactorScores;
        const r = composite(factors, config);
        expect(r).toBeGreaterThanOrEqual(0);
        expect(r).toBeLessThanOrEqual(1);
        const name = FACTOR_NAMES[bump] as FactorName;
        const higher = { ...factors, [name]: { raw: 0, score: 1 } };
        expect(composite(higher, config)).toBeGreaterThanOrEqual(r);
      }),
    );
  });

  it('compareScored is a total order: relevance desc, then alignment, then raw alignment, then path asc', () => {
    const item = fc.record({ path: fc.string({ maxLength: 4 }), relevance: fc.constantFrom(0.2, 0.5), factors: fc.record({ task_alignment: fc.record({ score: fc.constantFrom(0, 0.5, 1), raw: fc.constantFrom(0, 3) }) }) });
    fc.assert(
      fc.property(fc.array(item, { maxLength: 30 }), (items) => {
        const sorted = [...items].sort(compareScored);
        for (let i = 1; i < sorted.length; i++) {
          const a = sorted[i - 1] as (typeof items)[number];
          const b = sorted[i] as (typeof items)[number];
          const key = (x: typeof a) => [-x.relevance, -x.factors.task_alignment.score, -x.factors.task_alignment.raw];
          const [ka, kb] = [key(a), key(b)];
          const cmp = ka.findIndex((v, j) => v !== kb[j]);
          if (cmp === -1) expect(a.path <= b.path).toBe(true);
          else expect((ka[cmp] as number) < (kb[cmp] as number)).toBe(true);
        }
      }),
    );
  });
});
