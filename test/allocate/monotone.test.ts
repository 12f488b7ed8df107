import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { allocateMonotone, degradeMonotone, isMonotone, monotoneValue, slotOption } from '../../src/allocate/monotone.js';
import { allocateFileTier } from '../../src/allocate/overflow.js';
import { allocateContext } from '../../src/allocate/allocate-context.js';
import type { Candidate } from '../../src/allocate/candidates.js';
import { defaultConfig, LEVELS, TIER_NAMES, type OverflowStrategy } from '../../src/config/schema.js';
import { createChars4Tokenizer, createTokenizer, type Tokenizer } from '../../src/tokenize/tokenizer.js';
import { testContext } from '../helpers/fakes.js';
import { allocateInput, fakeCandidate, levelsFor, planFor, scored, withBudget } from './fixtures.js';

/** Ranked candidates (array order = rank) with random level costs; some lack detailed or summary. */
const rankedArb = fc
  .array(
    fc.tuple(
      fc.double({ min: 0.01, max: 1, noNaN: true }),
      fc.integer({ min: 20, max: 4000 }),
      fc.double({ min: 0.05, max: 0.9, noNaN: true }),
      fc.double({ min: 0.05, max: 0.9, noNaN: true }),
      fc.integer({ min: 3, max: 25 }),
      fc.constantFrom('all', 'no-detailed', 'no-summary'),
    ),
    { minLength: 1, maxLength: 25 },
  )
  .map((rows) =>
    rows
      .sort((a, b) => b[0] - a[0])
      .map(([w, full, d, s, stub, shape], i): Candidate => {
        const detailed = Math.max(stub + 2, Math.floor(full * d));
        const summary = Math.max(stub + 1, Math.floor(detailed * s));
        const costs = { full, detailed, summary, stub };
        if (shape === 'no-detailed') delete (costs as Partial<typeof costs>).detailed;
        if (shape === 'no-summary') delete (costs as Partial<typeof costs>).summary;
        return fakeCandidate(`f${String(i).padStart(3, '0')}.ts`, w, costs);
      }),
  );

/** Tokens of a choice, summed independently of the allocator's own bookkeeping. */
const costOf = (c: readonly Candidate[], choice: Int32Array) => c.reduce((n, cand, i) => n + (choice[i]! >= 0 ? cand.options[choice[i]!]!.cost : 0), 0);

describe('monotone allocation (property)', () => {
  it('never gives a higher-ranked file less than a lower-ranked one, never drops it while a lower one is in, and keeps the budget', () => {
    const tokenizer = createChars4Tokenizer();
    fc.assert(
      fc.property(rankedArb, fc.integer({ min: 0, max: 30000 }), fc.constantFrom<OverflowStrategy>('summarize', 'prioritize', 'truncate'), fc.constantFrom<'optimal' | 'greedy'>('optimal', 'greedy'), (ranked, budget, strategy, algorithm) => {
        const { candidates, choice } = allocateFileTier({ tier: 'primary', candidates: ranked, budget, strategy, algorithm, format: 'xml', tokenizer, ordered: true });
        expect(costOf(candidates, choice)).toBeLessThanOrEqual(budget);
        const kept = Array.from(choice, (o) => o >= 0);
        const lastKept = kept.lastIndexOf(true);
        expect(kept.slice(0, lastKept + 1).every(Boolean)).toBe(true);
        if (strategy !== 'truncate') expect(isMonotone(candidates, choice)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('is worth at least every monotone allocation that fits with its costs rounded up to the program\'s buckets (exhaustive, small rankings)', () => {
    // the program's own grid: budget / 1200 tokens a bucket, each file's cost rounded up
    const BUCKETS = 1200;
    fc.assert(
      fc.property(rankedArb.map((r) => r.slice(0, 5)), fc.integer({ min: 1, max: 12000 }), (ranked, budget) => {
        const q = Math.max(1, budget / BUCKETS);
        const buckets = Math.floor(budget / q);
        let best = 0;
        // every non-decreasing sequence of slots (0 full .. 3 stub, 4 dropped), best first
        const visit = (i: number, floor: number, used: number, choice: Int32Array) => {
          if (i === ranked.length) {
            best = Math.max(best, monotoneValue(ranked, choice));
            return;
          }
          for (let slot = floor; slot <= LEVELS.length; slot++) {
            if (slot === LEVELS.length) {
              choice.fill(-1, i);
              best = Math.max(best, monotoneValue(ranked, choice));
              continue;
            }
            const option = slotOption(ranked[i]!, slot);
            const rounded = Math.ceil(ranked[i]!.options[option]!.cost / q - 1e-9);
            if (used + rounded > buckets) continue;
            choice[i] = option;
            visit(i + 1, slot, used + rounded, choice);
          }
        };
        visit(0, 0, 0, new Int32Array(ranked.length).fill(-1));
        expect(monotoneValue(ranked, allocateMonotone(ranked, budget))).toBeGreaterThanOrEqual(best - 1e-9);
      }),
      { numRuns: 200 },
    );
  });

  it('the optimiser is worth at least as much as the degrade loop, by its own value', () => {
    fc.assert(
      fc.property(rankedArb, fc.integer({ min: 0, max: 30000 }), (ranked, budget) => {
        const optimal = allocateMonotone(ranked, budget);
        expect(monotoneValue(ranked, optimal)).toBeGreaterThanOrEqual(monotoneValue(ranked, degradeMonotone(ranked, budget)) - 1e-12);
        expect(costOf(ranked, optimal)).toBeLessThanOrEqual(budget);
      }),
      { numRuns: 200 },
    );
  });
});

describe('monotone allocation (cases)', () => {
  it('degrades the best file instead of dropping it while smaller files get detailed levels', () => {
    // The case: a 5,900-token top file over its tier's share, ranks 2 to 6 small.
    const ranked = [
      fakeCandidate('big.ts', 0.72, { full: 5900, detailed: 1400, summary: 120, stub: 15 }),
      ...Array.from({ length: 5 }, (_, i) => fakeCandidate(`s${i}.ts`, 0.6 - i * 0.02, { full: 900, detailed: 300, summary: 60, stub: 12 })),
    ];
    const choice = allocateMonotone(ranked, 4000);
    expect(choice[0]).toBeGreaterThanOrEqual(0);
    expect(['full', 'detailed']).toContain(ranked[0]!.options[choice[0]!]!.level);
    expect(isMonotone(ranked, choice)).toBe(true);
    expect(costOf(ranked, choice)).toBeLessThanOrEqual(4000);
  });

  it('prefers a strong file at detailed over many summaries of weak files', () => {
    const ranked = [
      fakeCandidate('strong.ts', 0.9, { full: 6000, detailed: 2500, summary: 100, stub: 10 }),
      ...Array.from({ length: 30 }, (_, i) => fakeCandidate(`weak${String(i).padStart(2, '0')}.ts`, 0.35, { full: 3000, detailed: 1000, summary: 90, stub: 10 })),
    ];
    const choice = allocateMonotone(ranked, 3000);
    expect(ranked[0]!.options[choice[0]!]!.level).toBe('detailed');
    const summaries = ranked.filter((c, i) => choice[i]! >= 0 && c.options[choice[i]!]!.level === 'summary').length;
    expect(summaries).toBeLessThan(10);
  });
});

describe('allocateContext keeps the ranking monotone (property)', () => {
  let o200k: Tokenizer;
  let independent: Tokenizer;
  beforeAll(async () => {
    o200k = await createTokenizer('o200k');
    independent = await createTokenizer('o200k');
  });

  it.each<OverflowStrategy>(['summarize', 'prioritize', 'truncate'])('%s: a file is never dropped or lower than a file ranked below it; the budget holds by an independent count', (strategy) => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ name: fc.stringMatching(/^[a-z]{1,6}\.ts$/), relevance: fc.double({ min: 0, max: 1, noNaN: true }), lines: fc.integer({ min: 6, max: 160 }) }), { minLength: 1, maxLength: 10, selector: (f) => f.name }),
        fc.integer({ min: 150, max: 9000 }),
        (files, budget) => {
          const config = withBudget(defaultConfig(), budget, { overflow_strategy: strategy, upgrade_spare: true });
          const input = allocateInput(
            files.map((f) => ({ file: scored(f.name, f.relevance), levels: levelsFor(f.name, f.lines, o200k) })),
            planFor(budget, config),
          );
          const r = allocateContext(input, testContext({ config, tokenizer: o200k }));
          expect(independent.count(r.rendered)).toBeLessThanOrEqual(budget);
          const placed = new Map(TIER_NAMES.flatMap((t) => r.tiers[t].files.map((f) => [f.path, f] as const)));
          const byThreshold = new Set(r.excluded.filter((e) => e.reason.startsWith('relevance')).map((e) => e.path));
          const ranked = [...files].filter((f) => !byThreshold.has(f.name)).sort((a, b) => b.relevance - a.relevance || (a.name < b.name ? -1 : 1));
          let floor = 0;
          let seenDropped = false;
          for (const f of ranked) {
            const p = placed.get(f.name);
            if (p === undefined) {
              seenDropped = true;
              continue;
            }
            expect(seenDropped).toBe(false);
            const slot = p.truncated ? floor : LEVELS.indexOf(p.level);
            expect(slot).toBeGreaterThanOrEqual(floor);
            floor = slot;
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
