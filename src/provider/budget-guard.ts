import { BudgetExceededError, UsageError } from '../errors.js';
import { createTokenizer, type Tokenizer, type TokenizerId } from '../tokenize/tokenizer.js';
import type { AgentContext, ContextProvider, ContextRequest } from './ports.js';
import { checkMaxTokens } from './request.js';
import { formatCount } from '../util/format.js';

export interface BudgetGuardOptions {
  /** Hard ceiling on the tokens of any returned context. */
  maxTokens: number;
  /** Tokenizer the guard counts with; o200k when absent. Match the wrapped adapter's. */
  tokenizer?: TokenizerId;
}

/**
 * Budget enforcement as a decorator (spec 004, PRD-105 note): the ceiling is applied before the
 * call (a request never asks the wrapped provider for more than `maxTokens`) and verified after
 * it by counting the returned context; a context over the ceiling is a BudgetExceededError.
 */
export function withBudgetGuard(provider: ContextProvider, options: BudgetGuardOptions): ContextProvider {
  const ceiling = checkMaxTokens(options.maxTokens, 'withBudgetGuard: maxTokens');
  if (ceiling === undefined) throw new UsageError('withBudgetGuard: maxTokens is required: the ceiling in tokens, e.g. { maxTokens: 8000 }');
  const tokenizerId = options.tokenizer ?? 'o200k';
  let tokenizer: Promise<Tokenizer> | undefined;
  return {
    async buildContext(request: ContextRequest): Promise<AgentContext> {
      const maxTokens = Math.min(request.maxTokens ?? ceiling, ceiling);
      const result = await provider.buildContext({ ...request, maxTokens });
      tokenizer ??= createTokenizer(tokenizerId);
      const used = (await tokenizer).count(result.context);
      if (used > ceiling) {
        throw new BudgetExceededError(
          `the ${result.mode} context holds ${formatCount(used)} tokens (${tokenizerId}) but the guard allows ${formatCount(ceiling)}: ` +
            'raise the guard maxTokens or make the provider count with the same tokenizer',
        );
      }
      return result;
    },
  };
}
