import { describe, expect, it } from 'vitest';
import { assignTiers, startingLevels } from '../../src/allocate/tiers.js';
import { defaultConfig } from '../../src/config/schema.js';
import { buildCandidate, isCandidate } from '../../src/allocate/candidates.js';
import { createChars4Tokenizer } from '../../src/tokenize/tokenizer.js';
import { levelsFor, scored } from './fixtures.js';

const tokenizer = createChars4Tokenizer();

/** The spec's absolute thresholds alone (the rank-relative rule has its own tests below). */
const config = defaultConfig();
config.relevance_scoring.thresholds.relative.enabled = false;
const relativeConfig = defaultConfig();

describe('assignTiers', () => {
  it('tiers a monorepo of 200,000 files (no spread of every file into one call)', () => {
    const files = Array.from({ length: 200_000 }, (_, i) => scored(`pkg/${i}.ts`, i === 7 ? 0.9 : 0.1, { alignment: i === 7 ? 1 : 0.001 }));
    const tiering = assignTiers(files, relativeConfig);
    expect(tiering.tiers.primary.map((f) => f.file.path)).toEqual(['pkg/7.ts']);
    expect(tiering.excluded).toHaveLength(199_999 - tiering.tiers.reference.length - tiering.tiers.supporting.length);
  });

  it.each([
    [0.95, 'primary'],
    [0.7, 'primary'],
    [0.69, 'supporting'],
    [0.5, 'supporting'],
    [0.49, 'reference'],
    [0.3, 'reference'],
    [0.29, 'excluded'],
    [0, 'excluded'],
  ])('relevance %s goes to %s (thresholds 0.7 / 0.5 / 0.3)', (relevance, expected) => {
    // A primary file is present so the calibration guard stays out of the way.
    const tiering = assignTiers([scored('anchor.ts', 0.99), scored('f.ts', relevance, { alignment: 0 })], config);
    const where = (['primary', 'supporting', 'reference'] as const).find((t) => tiering.tiers[t].some((f) => f.file.path === 'f.ts')) ?? 'excluded';
    expect(where).toBe(expected);
  });

  it('records the reason for a file under include_minimum', () => {
    const { excluded } = assignTiers([scored('a.ts', 0.9), scored('low.ts', 0.21)], config);
    expect(excluded).toEqual([{ path: 'low.ts', relevance_score: 0.21, reason: 'relevance 0.21 below include_minimum 0.3' }]);
  });

  it('puts an @-mentioned file in primary whatever its score, weighted as at least primary_threshold', () => {
    const { tiers, excluded } = assignTiers([scored('a.ts', 0.9), scored('named.ts', 0.1, { mentioned: true })], config);
    expect(tiers.primary.map((f) => [f.file.path, f.weight])).toEqual([
      ['a.ts', 0.9],
      ['named.ts', 0.7],
    ]);
    expect(excluded).toEqual([]);
  });

  it('orders each tier by relevance descending, ties by path', () => {
    const { tiers } = assignTiers([scored('b.ts', 0.6), scored('c.ts', 0.65), scored('a.ts', 0.6), scored('top.ts', 0.8)], config);
    expect(tiers.supporting.map((f) => f.file.path)).toEqual(['c.ts', 'a.ts', 'b.ts']);
  });

  describe('calibration guard', () => {
    it('promotes the top file when primary is empty and it is clearly relevant', () => {
      const { tiers, notes } = assignTiers([scored('auth.ts', 0.62, { alignment: 0.9 }), scored('other.ts', 0.55, { alignment: 0.8 })], config);
      expect(tiers.primary.map((f) => f.file.path)).toEqual(['auth.ts']);
      expect(tiers.supporting.map((f) => f.file.path)).toEqual(['other.ts']);
      expect(notes[0]).toMatch(/promoted auth\.ts .* to primary/);
    });

    it.each([
      ['task_alignment too weak', scored('a.ts', 0.62, { alignment: 0.3 })],
      ['relevance under supporting_threshold', scored('a.ts', 0.45, { alignment: 0.9 })],
    ])('does not promote when %s', (_, file) => {
      const { tiers, notes } = assignTiers([file], config);
      expect(tiers.primary).toEqual([]);
      expect(notes).toEqual([]);
    });

    it('stays out of the way when a file is mentioned', () => {
      const { tiers } = assignTiers([scored('a.ts', 0.62, { alignment: 0.9 }), scored('m.ts', 0.2, { mentioned: true })], config);
      expect(tiers.primary.map((f) => f.file.path)).toEqual(['m.ts']);
    });
  });
});

describe('assignTiers, rank-relative (the default)', () => {
  it('puts the best-ranked files in primary when no file reaches the absolute threshold', () => {
    const files = [scored('a.ts', 0.52), scored('b.ts', 0.45), scored('c.ts', 0.1), scored('d.ts', 0.44), scored('e.ts', 0.41)];
    const { tiers, excluded } = assignTiers(files, relativeConfig);
    // primary: within 0.75 of the best (0.39) among the first 3; supporting: within 0.6 (0.312) among the first 10.
    expect(tiers.primary.map((f) => f.file.path)).toEqual(['a.ts', 'b.ts', 'd.ts']);
    expect(tiers.supporting.map((f) => f.file.path)).toEqual(['e.ts']);
    expect(tiers.reference.map((f) => f.file.path)).toEqual([]);
    expect(excluded.map((e) => e.path)).toEqual(['c.ts']);
  });

  it('does not exclude a strongly ranked neighbour just under include_minimum', () => {
    // The case: ranked 2nd of 12 at relevance 0.297, include_minimum 0.3.
    const files = [scored('mentioned.ts', 0.2, { mentioned: true }), scored('top.ts', 0.5), scored('neighbour.ts', 0.297), ...Array.from({ length: 10 }, (_, i) => scored(`z${i}.ts`, 0.05))];
    const { tiers, excluded } = assignTiers(files, relativeConfig);
    expect([...tiers.primary, ...tiers.supporting, ...tiers.reference].map((f) => f.file.path)).toContain('neighbour.ts');
    expect(excluded.map((e) => e.path)).not.toContain('neighbour.ts');
    expect(excluded).toHaveLength(10);
  });

  it('keeps the absolute thresholds as a floor', () => {
    const files = Array.from({ length: 6 }, (_, i) => scored(`f${i}.ts`, 0.95 - i * 0.01));
    const { tiers } = assignTiers(files, relativeConfig);
    expect(tiers.primary).toHaveLength(6);
  });

  it('puts nothing in primary for a task nothing matches', () => {
    const { tiers } = assignTiers([scored('a.ts', 0), scored('b.ts', 0)], relativeConfig);
    expect(tiers.primary).toEqual([]);
  });
});

describe('startingLevels', () => {
  it('reads the spec use_when texts: primary full, supporting detailed, reference summary', () => {
    expect(startingLevels(config)).toEqual({ primary: 'full', supporting: 'detailed', reference: 'summary' });
  });

  it('follows a configured use_when', () => {
    const custom = structuredClone(config);
    custom.summarization.levels.detailed.use_when = 'Primary context when the budget is tight';
    custom.summarization.levels.full.use_when = 'Only when asked';
    expect(startingLevels(custom).primary).toBe('detailed');
  });
});

describe('buildCandidate', () => {
  it.each([
    ['supporting', 'detailed', ['full', 'detailed', 'summary', 'stub'], [], ['detailed', 'summary', 'stub']],
    ['supporting', 'detailed', ['full', 'summary', 'stub'], ['detailed'], ['full', 'summary', 'stub']],
    ['reference', 'summary', ['full', 'stub'], ['detailed', 'summary'], ['full', 'stub']],
    ['primary', 'full', ['full', 'detailed', 'summary', 'stub'], [], ['full', 'detailed', 'summary', 'stub']],
  ] as const)('%s file starting at %s with levels %j (omitted %j) gets options %j', (tier, start, _present, omit, expected) => {
    const levels = levelsFor('src/a.ts', 30, tokenizer, [...omit]);
    const built = buildCandidate({ file: scored('src/a.ts', 0.6), tier, weight: 0.6 }, levels, start, { format: 'xml', tokenizer });
    expect(isCandidate(built) && built.options.map((o) => o.level)).toEqual(expected);
  });

  it('treats a level repeating the one above as that level (labelled truthfully)', () => {
    const levels = levelsFor('src/a.ts', 3, tokenizer);
    levels[1] = { ...levels[0]!, level: 'detailed' };
    const built = buildCandidate({ file: scored('src/a.ts', 0.6), tier: 'supporting', weight: 0.6 }, levels, 'detailed', { format: 'xml', tokenizer });
    expect(isCandidate(built) && built.options.map((o) => o.level)).toEqual(['full', 'summary', 'stub']);
  });

  it('excludes a file without levels, with the reason', () => {
    expect(buildCandidate({ file: scored('gone.ts', 0.9), tier: 'primary', weight: 0.9 }, undefined, 'full', { format: 'xml', tokenizer })).toEqual({
      path: 'gone.ts',
      relevance_score: 0.9,
      reason: 'no content levels were produced for this file',
    });
  });

  it('costs each option as its rendered block plus separator', () => {
    const built = buildCandidate({ file: scored('src/a.ts', 0.6), tier: 'primary', weight: 0.6 }, levelsFor('src/a.ts', 5, tokenizer), 'full', { format: 'xml', tokenizer });
    for (const option of isCandidate(built) ? built.options : []) expect(option.cost).toBe(tokenizer.count(`${option.block}\n`));
  });
});
