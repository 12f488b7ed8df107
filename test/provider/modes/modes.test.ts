import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultConfig, tierPercentages, TIER_NAMES } from '../../../src/config/schema.js';
import { UsageError } from '../../../src/errors.js';
import { applyMode, CONTEXT_MODES, DEFAULT_CONTEXT_MODE, resolveMode, shiftPercentages, type TierPercentages } from '../../../src/provider/modes/index.js';

const DEFAULTS: TierPercentages = { primary: 50, supporting: 30, reference: 15, history: 5 };
const sum = (p: TierPercentages) => TIER_NAMES.reduce((s, t) => s + p[t], 0);

describe('mode registry', () => {
  it('holds task (the default), review and chat', () => {
    expect(CONTEXT_MODES.map((m) => m.name)).toEqual(['task', 'review', 'chat']);
    expect(DEFAULT_CONTEXT_MODE).toBe('task');
  });

  it.each([
    ['task', DEFAULTS, DEFAULTS],
    ['review', DEFAULTS, { primary: 35, supporting: 45, reference: 15, history: 5 }],
    ['chat', DEFAULTS, { primary: 39.473684, supporting: 23.684211, reference: 11.842105, history: 25 }],
    ['chat', { primary: 30, supporting: 20, reference: 10, history: 40 }, { primary: 30, supporting: 20, reference: 10, history: 40 }],
    ['review', { primary: 10, supporting: 60, reference: 20, history: 10 }, { primary: 0, supporting: 70, reference: 20, history: 10 }],
  ])('%s adjusts %o to %o', (name, from, to) => {
    expect(resolveMode(name).adjust(from)).toEqual(to);
  });

  it('names the known modes when one is unknown', () => {
    expect(() => resolveMode('heartbeat')).toThrow(UsageError);
    expect(() => resolveMode('heartbeat')).toThrow('unknown context mode "heartbeat": use one of chat, review, task');
  });

  it('accepts a caller registry (a new mode is a new module, not a switch case)', () => {
    const verifier = { name: 'verifier', description: 'check a result', adjust: (p: TierPercentages) => shiftPercentages(p, ['primary'], 'reference', 10) };
    expect(resolveMode('verifier', [...CONTEXT_MODES, verifier])).toBe(verifier);
    expect(() => resolveMode('verifier')).toThrow(UsageError);
  });

  it('applyMode changes only the tier percentages of a copy', () => {
    const config = defaultConfig();
    const adjusted = applyMode(config, resolveMode('review'));
    expect(tierPercentages(adjusted)).toEqual({ primary: 35, supporting: 45, reference: 15, history: 5 });
    expect(tierPercentages(config)).toEqual(DEFAULTS);
    expect(adjusted.budget_config.allocation.primary_context.description).toBe(config.budget_config.allocation.primary_context.description);
    expect({ ...adjusted, budget_config: config.budget_config }).toEqual(config);
  });

  it('every mode keeps the sum and never makes a tier negative', () => {
    const pct = fc.integer({ min: 0, max: 100 });
    fc.assert(
      fc.property(pct, pct, pct, pct, (primary, supporting, reference, history) => {
        const from = { primary, supporting, reference, history };
        for (const mode of CONTEXT_MODES) {
          const to = mode.adjust(from);
          expect(Math.abs(sum(to) - sum(from))).toBeLessThan(1e-4);
          for (const tier of TIER_NAMES) expect(to[tier]).toBeGreaterThanOrEqual(0);
        }
      }),
    );
  });
});
