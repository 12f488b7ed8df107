import { describe, expect, it } from 'vitest';
import { planTierBudgets } from '../../src/allocate/budgets.js';
import { TIER_NAMES, type TierName } from '../../src/config/schema.js';

const nominal = { primary: 500, supporting: 300, reference: 150, history: 50 };
const order: TierName[] = ['primary', 'supporting', 'reference', 'history'];

describe('planTierBudgets', () => {
  it('leaves every tier its own budget when all fit', () => {
    const b = planTierBudgets({ nominal, demand: { primary: 100, supporting: 100, reference: 100, history: 10 }, available: 1000, reserve: 20, flowUnused: true, flowOrder: order });
    expect(b.own).toEqual(nominal);
    expect(b.constrained).toEqual([]);
    expect(b.pool).toBe(400 + 200 + 50 + 40 - 20);
  });

  it('pays the reserve from unused budget, then pools the rest for constrained tiers in flow order', () => {
    const b = planTierBudgets({ nominal, demand: { primary: 900, supporting: 400, reference: 0, history: 0 }, available: 1000, reserve: 30, flowUnused: true, flowOrder: ['supporting', 'primary', 'reference', 'history'] });
    expect(b.satisfied).toEqual(['reference', 'history']);
    expect(b.constrained).toEqual(['supporting', 'primary']);
    expect(b.pool).toBe(150 + 50 - 30);
  });

  it('pools nothing when flow is off (the reserve is still paid from unused budget)', () => {
    const b = planTierBudgets({ nominal, demand: { primary: 900, supporting: 0, reference: 0, history: 0 }, available: 1000, reserve: 30, flowUnused: false, flowOrder: order });
    expect(b.pool).toBe(0);
    expect(b.own.primary).toBe(500);
  });

  it('scales tier capacities down when unused budget cannot pay the reserve', () => {
    const demand = { primary: 900, supporting: 900, reference: 900, history: 900 };
    const b = planTierBudgets({ nominal, demand, available: 1000, reserve: 100, flowUnused: true, flowOrder: order });
    const total = TIER_NAMES.reduce((n, t) => n + b.own[t], 0);
    expect(total).toBeLessThanOrEqual(900);
    expect(b.own.primary).toBe(450);
    expect(b.constrained).toEqual(order);
  });

  it('gives every tier 0 when the reserve takes everything', () => {
    const b = planTierBudgets({ nominal, demand: { primary: 10, supporting: 10, reference: 10, history: 10 }, available: 1000, reserve: 1000, flowUnused: true, flowOrder: order });
    expect(b.own).toEqual({ primary: 0, supporting: 0, reference: 0, history: 0 });
    expect(b.pool).toBe(0);
  });
});
