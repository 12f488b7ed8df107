import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { choiceCost, choiceValue, solveMultipleChoiceKnapsack, upperHull, type KnapsackItem } from '../../src/allocate/optimise.js';
import { degradeGreedy } from '../../src/allocate/degrade-greedy.js';
import { allocateFileTier, solveKnapsack, totalValue } from '../../src/allocate/overflow.js';
import { LEVEL_USEFULNESS, type Candidate } from '../../src/allocate/candidates.js';
import { isMonotone, monotoneValue } from '../../src/allocate/monotone.js';
import { createChars4Tokenizer } from '../../src/tokenize/tokenizer.js';
import { fakeCandidate } from './fixtures.js';

/** Exhaustive optimum for tiny instances. */
function bruteForce(items: KnapsackItem[], budget: number): number {
  let best = 0;
  const walk = (i: number, cost: number, value: number) => {
    if (cost > budget) return;
    if (i === items.length) {
      best = Math.max(best, value);
      return;
    }
    walk(i + 1, cost, value);
    for (const o of items[i]!.options) walk(i + 1, cost + o.cost, value + o.value);
  };
  walk(0, 0, 0);
  return best;
}

const levelCosts = fc.tuple(fc.integer({ min: 20, max: 3000 }), fc.double({ min: 0.1, max: 0.7, noNaN: true }), fc.double({ min: 0.1, max: 0.6, noNaN: true }), fc.integer({ min: 3, max: 30 }));
const candidatesArb = fc.array(fc.tuple(fc.double({ min: 0.3, max: 1, noNaN: true }), levelCosts), { minLength: 1, maxLength: 30 }).map((rows) =>
  rows.map(([w, [full, d, s, stub]], i): Candidate => {
    const detailed = Math.max(stub + 2, Math.floor(full * d));
    const summary = Math.max(stub + 1, Math.floor(detailed * s));
    return fakeCandidate(`f${String(i).padStart(3, '0')}.ts`, w, { full, detailed, summary, stub });
  }),
);

describe('upperHull', () => {
  it('drops dominated and under-hull options', () => {
    // (10,1) is under the segment (0,0)-(20,3); (30,2.5) is dominated by (20,3).
    expect(upperHull([{ cost: 10, value: 1 }, { cost: 20, value: 3 }, { cost: 30, value: 2.5 }, { cost: 40, value: 4 }])).toEqual([1, 3]);
  });
});

describe('solveMultipleChoiceKnapsack', () => {
  it('never exceeds the budget and is within one item of the optimum on small instances', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.record({ cost: fc.integer({ min: 1, max: 50 }), value: fc.double({ min: 0, max: 1, noNaN: true }) }), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 7 }),
        fc.integer({ min: 0, max: 120 }),
        (raw, budget) => {
          const items = raw.map((options) => ({ options }));
          const choice = solveMultipleChoiceKnapsack(items, budget);
          expect(choiceCost(items, choice)).toBeLessThanOrEqual(budget);
          const maxValue = Math.max(...raw.flat().map((o) => o.value));
          expect(choiceValue(items, choice)).toBeGreaterThanOrEqual(bruteForce(items, budget) - maxValue - 1e-9);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('beats the greedy degrade loop on a case where spreading fidelity pays', () => {
    // Greedy degrades both files level by level; the optimiser keeps the top one whole.
    const c = [fakeCandidate('a.ts', 1, { full: 100, detailed: 90, summary: 10, stub: 2 }), fakeCandidate('b.ts', 0.5, { full: 100, detailed: 90, summary: 10, stub: 2 })];
    const greedy = totalValue(c, degradeGreedy(c, 115));
    const optimal = totalValue(c, solveKnapsack(c, 115));
    expect(optimal).toBeGreaterThan(greedy);
    expect(optimal).toBeCloseTo(1 + 0.5 * LEVEL_USEFULNESS.summary);
  });
});

describe('optimiser vs greedy (summarize)', () => {
  const tokenizer = createChars4Tokenizer();
  const run = (candidates: Candidate[], budget: number, algorithm: 'optimal' | 'greedy') =>
    allocateFileTier({ tier: 'primary', candidates, budget, strategy: 'summarize', algorithm, format: 'xml', tokenizer });

  it('is never worth less than the greedy loop (by the monotone value), monotone, and never over budget (property)', () => {
    fc.assert(
      fc.property(candidatesArb, fc.integer({ min: 0, max: 20000 }), (candidates, budget) => {
        const optimal = run(candidates, budget, 'optimal');
        const greedy = run(candidates, budget, 'greedy');
        expect(monotoneValue(candidates, optimal.choice)).toBeGreaterThanOrEqual(monotoneValue(candidates, greedy.choice) - 1e-12);
        expect(isMonotone(candidates, optimal.choice)).toBe(true);
        expect(choiceCost(candidates.map((c) => ({ options: c.options.map((o) => ({ cost: o.cost, value: 0 })) })), optimal.choice)).toBeLessThanOrEqual(Math.max(0, budget));
      }),
      { numRuns: 300 },
    );
  });

  it('wins on its own (without the greedy fallback) on the fixed fixtures', () => {
    const fixtures: [Candidate[], number][] = [
      [[fakeCandidate('a', 0.9, { full: 1000, detailed: 400, summary: 100, stub: 10 }), fakeCandidate('b', 0.8, { full: 800, detailed: 300, summary: 80, stub: 10 }), fakeCandidate('c', 0.6, { full: 500, detailed: 200, summary: 50, stub: 10 })], 1200],
      [[fakeCandidate('a', 0.95, { full: 3000, detailed: 900, summary: 300, stub: 20 }), fakeCandidate('b', 0.9, { full: 200, detailed: 120, summary: 40, stub: 20 }), fakeCandidate('c', 0.72, { full: 2500, detailed: 700, summary: 200, stub: 20 })], 3500],
      [Array.from({ length: 20 }, (_, i) => fakeCandidate(`f${i}`, 1 - i * 0.03, { full: 200 + 37 * i, detailed: 80 + 11 * i, summary: 30, stub: 6 })), 2500],
    ];
    for (const [candidates, budget] of fixtures) {
      const raw = totalValue(candidates, solveKnapsack(candidates, budget));
      expect(raw).toBeGreaterThanOrEqual(totalValue(candidates, degradeGreedy(candidates, budget)));
    }
  });
});

describe('prioritize with the optimiser', () => {
  const tokenizer = createChars4Tokenizer();
  const run = (candidates: Candidate[], budget: number, algorithm: 'optimal' | 'greedy') =>
    allocateFileTier({ tier: 'primary', candidates, budget, strategy: 'prioritize', algorithm, format: 'xml', tokenizer }).choice;

  it('keeps the most relevant file even when smaller ones together are worth more', () => {
    const c = [fakeCandidate('big.ts', 0.95, { full: 420 }), fakeCandidate('b.ts', 0.8, { full: 100 }), fakeCandidate('c.ts', 0.8, { full: 100 }), fakeCandidate('d.ts', 0.8, { full: 100 })];
    expect(Array.from(run(c, 450, 'optimal'))).toEqual([0, -1, -1, -1]);
  });

  it('never keeps a file ranked below one it had to drop', () => {
    // a.ts fits, b.ts does not: the 100 tokens left are not given to x, y or z, ranked below b.
    const c = [fakeCandidate('a.ts', 0.9, { full: 300 }), fakeCandidate('b.ts', 0.75, { full: 150 }), fakeCandidate('x.ts', 0.7, { full: 60 }), fakeCandidate('y.ts', 0.6, { full: 50 }), fakeCandidate('z.ts', 0.6, { full: 50 })];
    expect(Array.from(run(c, 400, 'greedy'))).toEqual([0, -1, -1, -1, -1]);
    expect(Array.from(run(c, 400, 'optimal'))).toEqual([0, -1, -1, -1, -1]);
  });

  it('is never worth less than the degrade loop (property)', () => {
    fc.assert(
      fc.property(candidatesArb, fc.integer({ min: 0, max: 20000 }), (candidates, budget) => {
        expect(monotoneValue(candidates, run(candidates, budget, 'optimal'))).toBeGreaterThanOrEqual(monotoneValue(candidates, run(candidates, budget, 'greedy')) - 1e-12);
      }),
      { numRuns: 200 },
    );
  });
});
