import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { allocateContext } from '../../src/allocate/allocate-context.js';
import { LEVEL_USEFULNESS } from '../../src/allocate/candidates.js';
import { defaultConfig, TIER_NAMES } from '../../src/config/schema.js';
import { createChars4Tokenizer } from '../../src/tokenize/tokenizer.js';
import type { AllocateResult } from '../../src/stages.js';
import { testContext } from '../helpers/fakes.js';
import { allocateInput, levelsFor, planFor, scored, withBudget } from './fixtures.js';

const tokenizer = createChars4Tokenizer();

function value(result: AllocateResult): number {
  return TIER_NAMES.filter((t) => t !== 'history').reduce((n, t) => n + result.tiers[t].files.reduce((s, f) => s + f.relevance_score * LEVEL_USEFULNESS[f.level], 0), 0);
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
          expect(value(runWith('optimal'))).toBeGreaterThanOrEqual(value(runWith('greedy')) - 1e-9);
        },
      ),
      { numRuns: 150 },
    );
  });
});
