import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { allocateContext } from '../../src/allocate/allocate-context.js';
import { DEFAULT_MONOTONE_VALUES } from '../../src/allocate/monotone.js';
import { defaultConfig, TIER_NAMES } from '../../src/config/schema.js';
import { createChars4Tokenizer } from '../../src/tokenize/tokenizer.js';
import type { AllocateResult } from '../../src/stages.js';
import { testContext } from '../helpers/fakes.js';
import { allocateInput, levelsFor, planFor, scored, withBudget } from './fixtures.js';

const tokenizer = createChars4Tokenizer();

/** The monotone allocation's value: relevance x (rank + 1)^-decay x level value; rank runs over the whole ranking when budget flows, per tier when it does not. */
function value(result: AllocateResult, flow: boolean): number {
  const { level, rankDecay } = DEFAULT_MONOTONE_VALUES;
  let rank = 0;
  let total = 0;
  for (const t of TIER_NAMES.filter((name) => name !== 'history')) {
    if (!flow) rank = 0;
    for (const f of result.tiers[t].files) total += f.relevance_score * (rank++ + 1) ** -rankDecay * level[f.level];
  }
  return total;
}

describe('whole allocation: optimal is worth at least as much as greedy (summarize)', () => {
  it('holds on random repositories and budgets, with and without flow', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.double({ min: 0.3, max: 1, noNaN: true }), fc.integer({ min: 1, max: 120 })), { minLength: 1, maxLength: 25 }),
        fc.integer({ min: 200, max: 20000 }),
        fc.boolean(),
        (rows, budget, flow) => {
          const files = rows.map(([relevance, lines], i) => {
            const path = `src/f${String(i).padStart(2, '0')}.ts`;
            return { file: scored(path, relevance), levels: levelsFor(path, lines, tokenizer) };
          });
          const runWith = (strategy: 'optimal' | 'greedy') => {
            const config = withBudget(defaultConfig(), budget, { overflow_strategy: 'summarize', strategy, flow_unused: flow });
            return allocateContext(allocateInput(files, planFor(budget, config)), testContext({ config, tokenizer }));
          };
          expect(value(runWith('optimal'), flow)).toBeGreaterThanOrEqual(value(runWith('greedy'), flow) - 1e-9);
        },
      ),
      { numRuns: 150 },
    );
  });
});
