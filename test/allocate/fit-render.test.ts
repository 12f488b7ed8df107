import { describe, expect, it } from 'vitest';
import { fitRender, type Placement } from '../../src/allocate/fit-render.js';
import { levelOption, type Candidate } from '../../src/allocate/candidates.js';
import { createChars4Tokenizer } from '../../src/tokenize/tokenizer.js';
import { BudgetExceededError } from '../../src/errors.js';
import type { Level } from '../../src/types.js';

const tokenizer = createChars4Tokenizer();

/** A candidate whose option costs are 3 tokens under the truth, as a BPE boundary surprise would make them. */
function underCosted(path: string, weight: number): Candidate {
  const options = (['full', 'stub'] as Level[]).map((level) => {
    const option = levelOption(path, level, level === 'full' ? 'x'.repeat(400) : 'stub', 100, { format: 'xml', tokenizer });
    return { ...option, cost: option.cost - 3 };
  });
  return { path, tier: 'primary', relevance: weight, weight, category: 'source_code', factors: { task_alignment: 0, recency: 0, mention_density: 0, dependency_depth: 0, file_type: 0 }, options };
}

const placements = () => [{ candidate: underCosted('a.ts', 0.9), choice: 0 }, { candidate: underCosted('b.ts', 0.5), choice: 0 }] as Placement[];
/** What both files rendered whole really take, minus 2: the allocation thought they fit. */
const available = (() => {
  const whole = fitRender({ placements: { primary: placements(), supporting: [], reference: [] }, history: [], header: { root: '/r', task: 't', available: 10_000, excludedBefore: 0 }, headerMode: 'full', format: 'xml', tokenizer, available: 10_000, mode: 'fail' });
  return whole.tokens - 2;
})();

const input = (mode: 'degrade' | 'drop' | 'fail') => ({
  placements: { primary: placements(), supporting: [], reference: [] },
  history: [],
  header: { root: '/r', task: 't', available, excludedBefore: 0 },
  headerMode: 'full' as const,
  format: 'xml' as const,
  tokenizer,
  available,
  mode,
});

describe('fitRender', () => {
  it('steps the lowest-value file down until the rendered text fits', () => {
    const result = fitRender(input('degrade'));
    expect(tokenizer.count(result.rendered)).toBeLessThanOrEqual(available);
    expect(result.placements.primary.map((p) => p.choice)).toEqual([0, 1]);
    expect(result.repaired).toEqual(['b.ts']);
  });

  it('drops instead of degrading for prioritize', () => {
    const result = fitRender(input('drop'));
    expect(result.placements.primary.map((p) => p.choice)).toEqual([0, -1]);
    expect(result.rendered).toContain('Excluded: 1 file');
  });

  it('refuses for the error strategy', () => {
    expect(() => fitRender(input('fail'))).toThrow(BudgetExceededError);
  });
});
