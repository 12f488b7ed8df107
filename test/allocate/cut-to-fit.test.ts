import { describe, expect, it } from 'vitest';
import { cutToFit, isSignificantCut, type TruncatePort } from '../../src/allocate/cut-to-fit.js';
import { createChars4Tokenizer } from '../../src/tokenize/tokenizer.js';

/** The engine's one truncation choice (--overflow truncate, working sets, conversations, shared entries). */
describe('cutToFit', () => {
  const tokenizer = createChars4Tokenizer();
  const text = 'x'.repeat(400);
  /** Keeps `budget * 4` characters: chars/4 counts it as exactly `budget` tokens. */
  const keep: TruncatePort = (content, { budget }) => {
    const cut = content.slice(0, Math.max(0, budget * 4));
    return { text: cut, tokens: tokenizer.count(cut), originalTokens: tokenizer.count(content), truncated: cut !== content };
  };

  it('cuts again by the overshoot when the wrapped cut costs more than the room', () => {
    const budgets: number[] = [];
    const cut = cutToFit({
      content: text,
      strategy: 'end',
      tokenizer,
      remaining: 50,
      contentBudget: 50,
      truncate: (content, options) => (budgets.push(options.budget), keep(content, options)),
      // A wrapper of 7 tokens the first content budget did not leave room for.
      price: ({ text: kept }) => ({ kept, cost: tokenizer.count(kept) + 7 }),
    });
    expect(budgets).toEqual([50, 43]);
    expect(cut).toEqual({ kept: 'x'.repeat(172), cost: 50 });
  });

  it.each([
    ['the content budget is under the minimum', { contentBudget: 10, minContentTokens: 24 }],
    ['the cut is empty', { contentBudget: 0, minContentTokens: 0 }],
    ['no cut fits in four tries', { contentBudget: 50, price: () => ({ cost: 51 }) }],
  ])('gives up (null) when %s', (_name, overrides) => {
    expect(cutToFit({ content: text, strategy: 'end', tokenizer, remaining: 50, truncate: keep, price: ({ tokens }) => ({ cost: tokens }), contentBudget: 50, ...overrides })).toBeNull();
  });
});

describe('isSignificantCut (spec 001 section 9: under half the tokens kept)', () => {
  it.each([
    [49, 100, true],
    [50, 100, false],
    [100, 100, false],
    [0, 0, false],
  ])('%i of %i tokens kept -> %s', (kept, original, expected) => {
    expect(isSignificantCut(kept, original)).toBe(expected);
  });
});
