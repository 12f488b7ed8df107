import type { LevelContent } from '../../types.js';
import type { Tokenizer } from '../../tokenize/tokenizer.js';
import type { RenderBlock, WorkingSetFormat } from './formats.js';
import type { TruncateStrategy, WorkingSetRole } from './schema.js';

/** Spec 001 section 4 truncation, as implemented in src/tokenize/truncate.ts. */
export type TruncatePort = (
  text: string,
  options: { budget: number; strategy: TruncateStrategy; tokenizer: Tokenizer; maxLines?: number },
) => { text: string; tokens: number; originalTokens: number; truncated: boolean } | null;

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
  | { kind: 'fit'; block: string; cost: number; contentTokens: number; level: RenderBlock['level']; truncated: boolean }
  | { kind: 'none'; reason: string };

export interface FitDeps {
  format: WorkingSetFormat;
  tokenizer: Tokenizer;
  truncate: TruncatePort;
  levels?: LevelsPort;
}

/** Fallback levels, best first: a summary of a code file beats an arbitrary cut of it. */
const FALLBACK_LEVELS = ['detailed', 'summary'] as const;
/** Re-tries when wrapping or escaping a truncated text made it cost more than planned. */
const MAX_SHRINK_ATTEMPTS = 4;

/**
 * Fit one file into `remaining` tokens: whole; else (context files cut at start/end/middle
 * only) its detailed or summary level; else truncated by its strategy; `never` means whole
 * or nothing. Costs are exact counts of the rendered block plus its separator.
 */
export async function fitFile(request: FitRequest, deps: FitDeps): Promise<FitResult> {
  const { format, tokenizer } = deps;
  const price = (content: string, level: RenderBlock['level'], truncated: boolean) => {
    const block = format.block({ path: request.path, role: request.role, content, level, truncated });
    return { block, cost: tokenizer.count(format.separator + block) };
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
  let budget = request.remaining - wrapperCost;
  for (let attempt = 0; attempt < MAX_SHRINK_ATTEMPTS && budget > 0; attempt += 1) {
    const cut = deps.truncate(request.content, { budget, strategy: request.strategy, tokenizer });
    if (!cut || cut.text.length === 0) break;
    const priced = price(cut.text, 'full', true);
    if (priced.cost <= request.remaining) {
      return { kind: 'fit', ...priced, contentTokens: tokenizer.count(cut.text), level: 'full', truncated: true };
    }
    budget -= Math.max(1, priced.cost - request.remaining);
  }
  return {
    kind: 'none',
    reason: `over budget: needs ${whole.cost} tokens, ${request.remaining} remain, and no ${request.strategy}-truncation fits`,
  };
}
