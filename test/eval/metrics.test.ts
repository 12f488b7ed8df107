import { describe, expect, it } from 'vitest';
import { instanceMetrics, placementsFromRecord, summarize, type InstanceMetrics, type RunOutcome } from '../../src/eval/metrics.js';
import { recordWith } from './eval-fixtures.js';

const outcome = (over: Partial<RunOutcome>): RunOutcome => ({
  gold: ['a.ts', 'b.ts'],
  placements: new Map(),
  ranking: [],
  tiered: true,
  renderedTokens: 100,
  available: 8000,
  ms: 5,
  ...over,
});

describe('instanceMetrics on hand-built records', () => {
  it('separates full/detailed from any level and finds the primary tier', () => {
    const record = recordWith([
      { path: 'a.ts', tier: 'primary', level: 'full' },
      { path: 'b.ts', tier: 'reference', level: 'summary' },
      { path: 'c.ts', tier: 'supporting', level: 'detailed' },
    ]);
    const m = instanceMetrics(outcome({ placements: placementsFromRecord(record), ranking: ['c.ts', 'a.ts', 'b.ts'] }));
    expect(m).toEqual({
      recallDetailed: 0.5,
      recallAny: 1,
      allIncluded: true,
      oneIncluded: true,
      primaryHit: true,
      reciprocalRank: (1 / 2 + 1 / 3) / 2,
      adherent: true,
      ms: 5,
    });
  });

  it.each([
    ['detailed counts as detailed', [{ path: 'a.ts', tier: 'supporting', level: 'detailed' }], { recallDetailed: 0.5, recallAny: 0.5, primaryHit: false, allIncluded: false, oneIncluded: true }],
    ['stub counts only at any level', [{ path: 'b.ts', tier: 'primary', level: 'stub' }], { recallDetailed: 0, recallAny: 0.5, primaryHit: true, allIncluded: false, oneIncluded: true }],
    ['nothing included', [{ path: 'z.ts', tier: 'primary', level: 'full' }], { recallDetailed: 0, recallAny: 0, primaryHit: false, allIncluded: false, oneIncluded: false }],
  ] as const)('%s', (_name, files, expected) => {
    const m = instanceMetrics(outcome({ placements: placementsFromRecord(recordWith([...files])) }));
    expect(m).toMatchObject(expected);
  });

  it('gives 0 reciprocal rank to unranked gold files', () => {
    expect(instanceMetrics(outcome({ ranking: ['x.ts', 'b.ts'] })).reciprocalRank).toBe(0.25);
    expect(instanceMetrics(outcome({ ranking: [] })).reciprocalRank).toBe(0);
  });

  it.each([
    [7999, true],
    [8000, true],
    [8001, false],
  ])('adherence with %i rendered tokens of 8000 is %s', (renderedTokens, adherent) => {
    expect(instanceMetrics(outcome({ renderedTokens })).adherent).toBe(adherent);
  });

  it('reports no primary hit for a method without tiers', () => {
    const placements = new Map([['a.ts', { tier: null, level: 'full' as const }]]);
    expect(instanceMetrics(outcome({ placements, tiered: false })).primaryHit).toBeNull();
  });
});

describe('summarize', () => {
  const run = (over: Partial<InstanceMetrics>): InstanceMetrics => ({
    recallDetailed: 0, recallAny: 0, allIncluded: false, oneIncluded: false, primaryHit: false, reciprocalRank: 0, adherent: true, ms: 10, ...over,
  });

  it('averages rates and counts errors apart', () => {
    const s = summarize([run({ recallDetailed: 1, recallAny: 1, allIncluded: true, oneIncluded: true, primaryHit: true, reciprocalRank: 1, ms: 30 }), run({ recallAny: 0.5, oneIncluded: true, adherent: false })], 1);
    expect(s).toEqual({ instances: 2, errors: 1, recallDetailed: 0.5, recallAny: 0.75, allIncluded: 0.5, oneIncluded: 1, primaryHitRate: 0.5, mrr: 0.5, adherence: 0.5, msPerRun: 20 });
  });

  it('has n/a primary hit rate for the baseline and zeros for no runs', () => {
    expect(summarize([run({ primaryHit: null })]).primaryHitRate).toBeNull();
    expect(summarize([], 3)).toMatchObject({ instances: 0, errors: 3, recallAny: 0, mrr: 0 });
  });
});
