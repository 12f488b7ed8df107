import { describe, expect, it } from 'vitest';
import { BudgetExceededError, UsageError } from '../../src/errors.js';
import { createTokenizer } from '../../src/tokenize/tokenizer.js';
import { withBudgetGuard } from '../../src/provider/budget-guard.js';
import { createInMemoryContextProvider } from '../../src/provider/memory-provider.js';
import type { ContextProvider, ContextRequest } from '../../src/provider/ports.js';

/** A provider that ignores maxTokens and records what it was asked. */
function fixedProvider(context: string): ContextProvider & { requests: ContextRequest[] } {
  const requests: ContextRequest[] = [];
  return {
    requests,
    buildContext: async (request) => {
      requests.push(request);
      return {
        mode: request.mode,
        context,
        metadata: { context_tokens_used: 0, sections_trimmed: 0, files_included: 1, available_tokens: 0, run_id: 'r', scoring_method: 'none', embedding_model: '' },
      };
    },
  };
}

describe('withBudgetGuard', () => {
  it('passes the smaller of the request and the guard ceiling down', async () => {
    const inner = fixedProvider('ok');
    const guarded = withBudgetGuard(inner, { maxTokens: 100 });
    await guarded.buildContext({ mode: 'task', task: 't' });
    await guarded.buildContext({ mode: 'task', task: 't', maxTokens: 40 });
    await guarded.buildContext({ mode: 'task', task: 't', maxTokens: 500 });
    expect(inner.requests.map((r) => r.maxTokens)).toEqual([100, 40, 100]);
  });

  it('throws BudgetExceededError with the numbers when the returned context is over the ceiling', async () => {
    const context = 'word '.repeat(50);
    const tokens = (await createTokenizer('o200k')).count(context);
    const guarded = withBudgetGuard(fixedProvider(context), { maxTokens: 10 });
    const error = await guarded.buildContext({ mode: 'review', task: 't' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect((error as BudgetExceededError).exitCode).toBe(1);
    expect((error as Error).message).toMatch(new RegExp(`^the review context holds ${tokens} tokens \\(o200k\\) but the guard allows 10: raise`));
  });

  it('lets a well-behaved provider through unchanged', async () => {
    const inner = createInMemoryContextProvider({ sections: [{ name: 'a', content: 'short' }, { name: 'b', content: 'long '.repeat(100) }] });
    const result = await withBudgetGuard(inner, { maxTokens: 20 }).buildContext({ mode: 'task', task: 't' });
    expect(result.context).toBe('## a\n\nshort');
    expect(result.metadata.available_tokens).toBe(20);
  });

  it('rejects a ceiling that is not a positive integer', () => {
    expect(() => withBudgetGuard(fixedProvider(''), { maxTokens: 0 })).toThrow(UsageError);
    // A JavaScript caller can omit the option the type requires.
    expect(() => withBudgetGuard(fixedProvider(''), {} as { maxTokens: number })).toThrow('withBudgetGuard: maxTokens is required');
  });
});
