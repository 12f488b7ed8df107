import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../src/config/schema.js';
import { planBudget } from '../src/allocate/budget-plan.js';
import { validateConfig } from '../src/config/validate.js';

describe('planBudget', () => {
  it('splits available by the tier percentages', () => {
    const plan = planBudget(ConfigSchema.parse({ budget_config: { total_budget: { max_tokens: 20000, reserve_for_output: 1000, reserve_for_system: 1000 } } }));
    expect(plan.available).toBe(18000);
    expect(plan.tiers).toEqual({ primary: 9000, supporting: 5400, reference: 2700, history: 900 });
  });

  it('makes one pool, held by the first tier in flow order, when budget_config.enabled is false', () => {
    const plan = planBudget(
      ConfigSchema.parse({ budget_config: { enabled: false, flow_order: ['supporting', 'primary', 'reference', 'history'], total_budget: { max_tokens: 10000, reserve_for_output: 0, reserve_for_system: 0 } } }),
    );
    expect(plan.tiers).toEqual({ primary: 0, supporting: 10000, reference: 0, history: 0 });
  });
});

describe('relevance_scoring.enabled', () => {
  it('false is refused with the key and the alternative', () => {
    expect(() => validateConfig({ relevance_scoring: { enabled: false } }, 'config.yaml')).toThrow(/relevance_scoring\.enabled.*scoring_method: keyword/);
  });
});
