import { beforeAll, describe, expect, it } from 'vitest';
import { allocateContext } from '../../src/allocate/allocate-context.js';
import { defaultConfig, LEVELS, TIER_NAMES, type Level } from '../../src/config/schema.js';
import { createTokenizer, type Tokenizer } from '../../src/tokenize/tokenizer.js';
import type { AllocateResult } from '../../src/stages.js';
import { testContext } from '../helpers/fakes.js';
import { allocateInput, levelsFor, planFor, scored, withBudget } from './fixtures.js';

let o200k: Tokenizer;
beforeAll(async () => {
  o200k = await createTokenizer('o200k');
});

const FILES = [
  { path: 'src/a.ts', relevance: 0.9 },
  { path: 'src/b.ts', relevance: 0.6 },
  { path: 'src/c.ts', relevance: 0.55 },
  { path: 'docs/d.md', relevance: 0.45 },
  { path: 'docs/e.md', relevance: 0.35 },
];

function run(maxTokens: number, upgrade: boolean): AllocateResult {
  const config = withBudget(defaultConfig(), maxTokens, { upgrade_spare: upgrade });
  const files = FILES.map((f) => ({ file: scored(f.path, f.relevance), levels: levelsFor(f.path, 60, o200k) }));
  return allocateContext(allocateInput(files, planFor(maxTokens, config)), testContext({ config, tokenizer: o200k }));
}

const levelOf = (r: AllocateResult) => Object.fromEntries(TIER_NAMES.flatMap((t) => r.tiers[t].files.map((f) => [f.path, f.level])));
const fileTokens = (r: AllocateResult) => TIER_NAMES.reduce((n, t) => n + r.tiers[t].total_tokens, 0);

describe('spare budget lifts files above their starting level', () => {
  it('lifts supporting and reference files to full when the budget is ample', () => {
    const off = run(50_000, false);
    const on = run(50_000, true);
    expect(levelOf(off)).toEqual({ 'src/a.ts': 'full', 'src/b.ts': 'detailed', 'src/c.ts': 'detailed', 'docs/d.md': 'summary', 'docs/e.md': 'summary' });
    expect(levelOf(on)).toEqual({ 'src/a.ts': 'full', 'src/b.ts': 'full', 'src/c.ts': 'full', 'docs/d.md': 'full', 'docs/e.md': 'full' });
    expect(fileTokens(on)).toBeGreaterThan(fileTokens(off));
    // An upgrade is not an overflow: nothing was degraded.
    expect(on.overflow).toEqual({ occurred: false, strategy_applied: null, files_affected: [] });
    expect(on.renderedTokens).toBeLessThanOrEqual(50_000);
    for (const t of TIER_NAMES) expect(on.tiers[t].total_tokens).toBeLessThanOrEqual(on.tiers[t].budget);
  });

  it('spends a small surplus without lifting a file above one ranked higher, and never exceeds the budget', () => {
    const base = run(100_000, false);
    const fullB = levelsFor('src/b.ts', 60, o200k)[0]!.tokens;
    const detailedB = levelsFor('src/b.ts', 60, o200k)[1]!.tokens;
    // Room for b at full (plus slack) but not for everything else.
    const budget = base.renderedTokens + (fullB - detailedB) + 60;
    const r = run(budget, true);
    expect(fileTokens(r)).toBeGreaterThan(fileTokens(base));
    expect(levelOf(r)['src/a.ts']).toBe('full');
    const order = ['src/a.ts', 'src/b.ts', 'src/c.ts', 'docs/d.md', 'docs/e.md'].map((p) => LEVELS.indexOf(levelOf(r)[p] as Level));
    expect(order).toEqual([...order].sort((x, y) => x - y));
    expect(levelOf(r)['docs/e.md']).not.toBe('full');
    expect(o200k.count(r.rendered)).toBe(r.renderedTokens);
    expect(r.renderedTokens).toBeLessThanOrEqual(budget);
  });

  it.each([800, 1500, 3000, 6000, 12000])('keeps the rendered guarantee at %i tokens', (budget) => {
    const r = run(budget, true);
    expect(o200k.count(r.rendered)).toBe(r.renderedTokens);
    expect(r.renderedTokens).toBeLessThanOrEqual(budget);
    expect(fileTokens(r)).toBeLessThanOrEqual(budget);
  });
});

describe('requested tokens with upgrades', () => {
  it.each([true, false])('equal the files\' tokens when nothing overflowed (upgrade %s)', (upgrade) => {
    const r = run(50_000, upgrade);
    expect(r.overflow.occurred).toBe(false);
    expect(r.requestedTokens).toBe(r.tiers.primary.total_tokens + r.tiers.supporting.total_tokens + r.tiers.reference.total_tokens);
  });
});
