import { describe, expect, it } from 'vitest';
import { degradeGreedy, prioritizeGreedy } from '../../src/allocate/degrade-greedy.js';
import type { Candidate } from '../../src/allocate/candidates.js';
import { fakeCandidate } from './fixtures.js';

const levelsOf = (cands: Candidate[], choice: Int32Array) => cands.map((c, i) => (choice[i]! < 0 ? 'dropped' : c.options[choice[i]!]!.level));

describe('degradeGreedy', () => {
  const cands = [
    fakeCandidate('a.ts', 0.9, { full: 100, detailed: 50, summary: 20, stub: 5 }),
    fakeCandidate('b.ts', 0.8, { full: 100, detailed: 50, summary: 20, stub: 5 }),
    fakeCandidate('c.ts', 0.7, { full: 100, detailed: 50, summary: 20, stub: 5 }),
  ];

  it.each([
    [300, ['full', 'full', 'full']],
    [250, ['full', 'full', 'detailed']],
    [200, ['full', 'detailed', 'detailed']],
    [150, ['detailed', 'detailed', 'detailed']],
    [120, ['detailed', 'detailed', 'summary']],
    [60, ['summary', 'summary', 'summary']],
    [45, ['summary', 'summary', 'stub']],
    [15, ['stub', 'stub', 'stub']],
    [10, ['stub', 'stub', 'dropped']],
    [0, ['dropped', 'dropped', 'dropped']],
  ])('at budget %i degrades lowest relevance first, level by level: %j', (budget, expected) => {
    expect(levelsOf(cands, degradeGreedy(cands, budget))).toEqual(expected);
  });

  it('jumps over a missing level', () => {
    const c = [fakeCandidate('a.ts', 0.9, { full: 100, summary: 20, stub: 5 })];
    expect(levelsOf(c, degradeGreedy(c, 50))).toEqual(['summary']);
  });

  it('breaks relevance ties by degrading the later path first', () => {
    const c = [fakeCandidate('a.ts', 0.5, { full: 10, stub: 1 }), fakeCandidate('b.ts', 0.5, { full: 10, stub: 1 })];
    expect(levelsOf(c, degradeGreedy(c, 11))).toEqual(['full', 'stub']);
  });
});

describe('prioritizeGreedy', () => {
  it('keeps files by relevance at their starting level and skips what does not fit', () => {
    const c = [fakeCandidate('a.ts', 0.9, { full: 60, stub: 1 }), fakeCandidate('b.ts', 0.8, { full: 60, stub: 1 }), fakeCandidate('c.ts', 0.7, { full: 30, stub: 1 })];
    expect(levelsOf(c, prioritizeGreedy(c, 100))).toEqual(['full', 'dropped', 'full']);
  });
});
