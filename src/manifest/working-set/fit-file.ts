import type { Level, LevelContent } from '../../types.js';
import type { Tokenizer } from '../../tokenize/tokenizer.js';
import type { OutputFormat } from '../../assemble/formats/index.js';
import { cutToFit, type TruncatePort } from '../../allocate/cut-to-fit.js';
import type { TruncateStrategy, WorkingSetRole } from './schema.js';

export type { TruncatePort };

/**
 * Lower fidelity levels of one file (detailed, summary, ...) from the summarizer. Optional:
 * without it a file that does not fit whole goes straight to truncation.
 */
export type LevelsPort = (file: { path: string; content: string }) => Promise<LevelContent[]>;

export interface FitRequest {
  path: string;
  role: WorkingSetRole;
  strategy: TruncateStrategy;
  /** Content after max_lines. */
  content: string;
  /** The whole file: lower levels summarise all of it, not the max_lines excerpt. */
  original: string;
  /** True when max_lines already cut the content. */
  cutByMaxLines: boolean;
  /** Tokens the block may cost, separator included. */
  remaining: number;
}

export type FitResult =
  | { kind: 'fit'; block: string; cost: number; contentTokens: number; level: Level; truncated: boolean }
  | { kind: 'none'; reason: string };

export interface FitDeps {
  format: OutputFormat;
  tokenizer: Tokenizer;
  truncate: TruncatePort;
  levels?: LevelsPort;
}

/** Fallback levels, best first: a summary of a code file beats an arbitrary cut of it. */
const FALLBACK_LEVELS = ['detailed', 'summary'] as const;

/**
 * Fit one file into `remaining` tokens: whole; else (context files cut at start/end/middle
 * only) its detailed or summary level; else truncated by its strategy; `never` means whole
 * or nothing. Costs are exact counts of the rendered block plus its separator.
 */
export async function fitFile(request: FitRequest, deps: FitDeps): Promise<FitResult> {
  const { tokenizer } = deps;
  const shape = deps.format.workingSet;
  const price = (content: string, level: Level, truncated: boolean) => {
    const block = shape.block({ path: request.path, role: request.role, content, level, truncated });
    return { block, cost: tokenizer.count(shape.separator + block) };
  };
  const whole = price(request.content, 'full', request.cutByMaxLines);
  if (whole.cost <= request.remaining) {
    return { kind: 'fit', ...whole, contentTokens: tokenizer.count(request.content), level: 'full', truncated: request.cutByMaxLines };
  }
  if (request.strategy === 'never') {
    return { kind: 'none', reason: `over budget: needs ${whole.cost} tokens whole, ${request.remaining} remain, and truncate_strategy is never` };
  }
  const wrapperCost = price('', 'full', true).cost;
  // Below the bare wrapper nothing can fit: do not make the summarizer work for nothing.
  if (request.remaining <= wrapperCost) {
    return { kind: 'none', reason: `over budget: needs ${whole.cost} tokens, ${request.remaining} remain` };
  }
  if (deps.levels && request.role === 'context' && request.strategy !== 'start') {
    const levels = await deps.levels({ path: request.path, content: request.original });
    for (const name of FALLBACK_LEVELS) {
      const level = levels.find((candidate) => candidate.level === name);
      if (!level) continue;
      const priced = price(level.content, name, false);
      if (priced.cost <= request.remaining) {
        return { kind: 'fit', ...priced, contentTokens: tokenizer.count(level.content), level: name, truncated: false };
      }
    }
  }
  const cut = cutToFit({
    content: request.content,
    strategy: request.strategy,
    tokenizer,
    remaining: request.remaining,
    contentBudget: request.remaining - wrapperCost,
    truncate: deps.truncate,
    price: ({ text }) => ({ ...price(text, 'full', true), text }),
  });
  if (cut) return { kind: 'fit', block: cut.block, cost: cut.cost, contentTokens: tokenizer.count(cut.text), level: 'full', truncated: true };
  return {
    kind: 'none',
    reason: `over budget: needs ${whole.cost} tokens, ${request.remaining} remain, and no ${request.strategy}-truncation fits`,
  };
}
