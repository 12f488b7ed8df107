import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { applyContextBudget, ELLIPSIS, estimateTokens, truncateToTokenBudget } from '../../src/tokenize/budget.js';
import { createChars4Tokenizer, createTokenizer, TOKENIZER_IDS, type Tokenizer, type TokenizerId } from '../../src/tokenize/tokenizer.js';
import { anyText, graphemeBoundaries, nonAsciiText, RUNS, TEXT_KINDS } from './arbitraries.js';

const tokenizers = new Map<TokenizerId, Tokenizer>();
beforeAll(async () => {
  for (const id of TOKENIZER_IDS) tokenizers.set(id, await createTokenizer(id));
});
const get = (id: TokenizerId): Tokenizer => tokenizers.get(id) ?? createChars4Tokenizer();
const budgetArb = fc.integer({ min: 1, max: 120 });

describe('estimateTokens', () => {
  it.each(TOKENIZER_IDS)('returns 0 for "" (%s)', (id) => {
    expect(estimateTokens('', get(id))).toBe(0);
  });

  it('defaults to chars/4 rounded up', () => {
    fc.assert(fc.property(anyText, (text) => estimateTokens(text) === Math.ceil(text.length / 4)), RUNS);
  });

  it.each(['o200k', 'cl100k'] as const)('counts special-token strings as plain text, never throwing (%s)', (id) => {
    const tk = get(id);
    // As a special token <|endoftext|> would be 1 token; as text it is several.
    expect(tk.count('<|endoftext|>')).toBeGreaterThan(1);
    const text = 'before <|endoftext|> middle <|im_start|>user\n<|fim_prefix|> after. '.repeat(20);
    expect(tk.count(text)).toBeGreaterThan(100);
    expect(tk.count(truncateToTokenBudget(text, 50, tk))).toBeLessThanOrEqual(50);
  });
});

describe.each(TOKENIZER_IDS)('spec 000 invariants with %s', (id) => {
  it.each(TEXT_KINDS)('budget <= 0 means unlimited (%s)', (_kind, text) => {
    fc.assert(
      fc.property(text, fc.integer({ min: -5, max: 0 }), (t, budget) => truncateToTokenBudget(t, budget, get(id)) === t),
      RUNS,
    );
  });

  it.each(TEXT_KINDS)('truncation fits the budget, never lengthens, keeps a prefix (%s)', (_kind, text) => {
    fc.assert(
      fc.property(text, budgetArb, (t, budget) => {
        const tk = get(id);
        const out = truncateToTokenBudget(t, budget, tk);
        expect(out.length).toBeLessThanOrEqual(t.length);
        if (tk.count(t) <= budget) return out === t;
        expect(tk.count(out)).toBeLessThanOrEqual(budget);
        if (out === '') return true;
        expect(out.endsWith(ELLIPSIS)).toBe(true);
        return t.startsWith(out.slice(0, -ELLIPSIS.length));
      }),
      RUNS,
    );
  });

  it.each(TEXT_KINDS)('applyContextBudget reports consistent metrics (%s)', (_kind, text) => {
    fc.assert(
      fc.property(text, fc.integer({ min: -3, max: 120 }), (t, maxTokens) => {
        const tk = get(id);
        const { text: out, result } = applyContextBudget(t, maxTokens, tk);
        expect(result.original_tokens).toBe(estimateTokens(t, tk));
        expect(result.budget_tokens).toBe(maxTokens);
        expect(result.was_truncated).toBe(out !== t);
        expect(result.truncated_tokens).toBe(estimateTokens(out, tk));
        if (result.was_truncated) expect(result.truncated_tokens).toBeLessThanOrEqual(result.budget_tokens);
        else expect(result.truncated_tokens).toBe(result.original_tokens);
        if (maxTokens <= 0) expect(result.was_truncated).toBe(false);
        expect(out.length).toBeLessThanOrEqual(t.length);
      }),
      RUNS,
    );
  });

  it('never splits a grapheme cluster (emoji sequences, combining marks, surrogate pairs)', () => {
    fc.assert(
      fc.property(nonAsciiText, budgetArb, (t, budget) => {
        const out = truncateToTokenBudget(t, budget, get(id));
        if (out === t || out === '') return true;
        return graphemeBoundaries(t).has(out.length - ELLIPSIS.length);
      }),
      RUNS,
    );
  });
});

describe('truncateToTokenBudget boundaries (chars4)', () => {
  it.each([
    // fits: unchanged
    ['Short text.', 3, 'Short text.'],
    // sentence boundary ". " wins over a later word boundary; the ellipsis replaces the full stop
    ['First sentence. Second sentence goes on and on', 8, 'First sentence...'],
    // sentence boundary ".\n"
    ['One line.\nAnother line that is long', 5, 'One line...'],
    // no sentence boundary within budget: last word boundary
    ['alpha beta gamma delta epsilon', 4, 'alpha beta...'],
    // no boundary at all: hard cut
    ['abcdefghijklmnopqrstuvwxyz', 3, 'abcdefghi...'],
    // one character and the ellipsis fill a 1-token (4-character) budget
    ['abcdefgh', 1, 'a...'],
  ])('%j with budget %d -> %j', (text, budget, expected) => {
    expect(truncateToTokenBudget(text, budget)).toBe(expected);
  });

  it('returns "" when even "..." would be longer than the input', () => {
    const tiny: Tokenizer = { id: 'chars4', count: (t) => t.length };
    expect(truncateToTokenBudget('ab', 1, tiny)).toBe('');
  });

  it('cuts a large text with few count() calls', async () => {
    const tk = await createTokenizer('o200k');
    let calls = 0;
    const counting: Tokenizer = { id: tk.id, count: (t) => (calls++, tk.count(t)) };
    const text = 'const value = compute(input); // a line of code\n'.repeat(20_000);
    const out = truncateToTokenBudget(text, 5000, counting);
    expect(tk.count(out)).toBeLessThanOrEqual(5000);
    expect(tk.count(out)).toBeGreaterThan(4900);
    expect(calls).toBeLessThan(40);
  });
});
