import { describe, expect, it } from 'vitest';
import { fitWhole, shrinkRanked, type Repairable } from '../../src/allocate/fit-render.js';
import { assembleWorkingSet } from '../../src/manifest/working-set/assemble.js';
import { validateWorkingSet } from '../../src/manifest/working-set/schema.js';
import type { Tokenizer } from '../../src/tokenize/tokenizer.js';
import { BudgetExceededError } from '../../src/errors.js';

/**
 * The engine's guarantee loop (fitWhole + shrinkRanked), which context-budget, working sets
 * and phase handoffs all fit through: the whole is counted, and what gives way goes in rank
 * order from the end until the whole fits.
 */
describe('fitWhole', () => {
  /** Items of the given costs, all kept; the text is their names, one token each plus the costs. */
  function pieces(costs: number[]): Repairable[] {
    return costs.map((cost, i) => ({ candidate: { path: `f${i}`, options: [{ cost }, { cost: 1 }] }, choice: 0 }));
  }
  const total = (ranked: Repairable[]) => ranked.reduce((sum, p) => sum + (p.choice < 0 ? 0 : p.candidate.options[p.choice]!.cost), 0);

  it.each([
    ['drop', 25, ['f2', 'f3'], [0, 0, -1, -1]],
    ['degrade', 25, ['f2', 'f3'], [0, 0, 1, 1]],
    ['drop', 100, [], [0, 0, 0, 0]],
  ] as const)('mode %s, %i available: gives way from the last-ranked (%j) and ends within the budget', (mode, available, repairedPaths, choices) => {
    const ranked = pieces([10, 10, 10, 10]);
    const repaired = new Set<string>();
    const fitted = fitWhole({
      render: () => ({ text: String(total(ranked)), tokens: total(ranked) }),
      available,
      giveWay: (excess) => shrinkRanked(ranked, excess, mode, repaired) > 0,
      overBudget: () => new BudgetExceededError('over'),
    });
    expect(fitted.tokens).toBeLessThanOrEqual(available);
    expect([...repaired].sort()).toEqual(repairedPaths);
    expect(ranked.map((p) => p.choice)).toEqual(choices);
  });

  it('throws the front end error when nothing is left to give way, and at once with failFast', () => {
    const render = () => ({ text: 'x', tokens: 9 });
    expect(() => fitWhole({ render, available: 5, giveWay: () => false, overBudget: (t) => new BudgetExceededError(`needs ${t}`) })).toThrow('needs 9');
    let asked = 0;
    const giveWay = () => ++asked > 0;
    expect(() => fitWhole({ render, available: 5, giveWay, failFast: true, overBudget: (t) => new BudgetExceededError(`needs ${t}`) })).toThrow(BudgetExceededError);
    expect(asked).toBe(0);
  });
});

describe('working sets fit through the guarantee', () => {
  it('drops the lowest-priority blocks when the whole counts more than the sum of the blocks', async () => {
    // chars/4, plus 40 tokens whenever two context blocks follow each other: a per-block price
    // never sees that, only the count of the whole does.
    const tokenizer: Tokenizer = {
      id: 'chars4',
      count: (text) => Math.ceil(text.length / 4) + 40 * (text.split('</context>\n\n<context').length - 1),
    } as Tokenizer;
    const body = (name: string) => `${name}\n`.repeat(20);
    const manifest = validateWorkingSet(
      {
        protocol: 'CONTEXT-ASSEMBLY/0.1',
        budget: { max_tokens: 250, reserved_for_response: 0 },
        files: [
          { path: 'a.ts', priority: 0.9 },
          { path: 'b.ts', priority: 0.8 },
          { path: 'c.ts', priority: 0.7 },
        ],
      },
      'ws.yml',
    );
    const files: Record<string, string> = { 'a.ts': body('alpha'), 'b.ts': body('bravo'), 'c.ts': body('charlie') };
    const result = await assembleWorkingSet(
      manifest,
      { root: '/repo', manifestPath: 'ws.yml', tokenizer, format: 'xml' },
      { readFile: async (path) => ({ kind: 'ok', content: files[path] ?? '' }) },
    );
    expect(tokenizer.count(result.context)).toBeLessThanOrEqual(250);
    expect(result.report.budget.used).toBe(tokenizer.count(result.context));
    expect(result.report.included.map((f) => f.path)).toEqual(['a.ts', 'b.ts']);
    expect(result.report.excluded).toEqual([{ path: 'c.ts', reason: 'over budget once the whole context was counted' }]);
  });
});
