import type { ConfigInput } from '../config/schema.js';
import { OVERFLOW_STRATEGIES, SCORING_METHODS } from '../config/schema.js';
import { TOKENIZER_IDS } from '../tokenize/tokenizer.js';
import type { OptionSpec, OptionValues } from './command.js';
import type { RenderFormat } from '../stages.js';
import { UsageError } from '../errors.js';

/** Flags shared by every command that runs the budget pipeline. */
export const BUDGET_FLAG_OPTIONS: OptionSpec = {
  root: { type: 'string' },
  config: { type: 'string' },
  'max-tokens': { type: 'string' },
  'reserve-output': { type: 'string' },
  'reserve-system': { type: 'string' },
  tokenizer: { type: 'string' },
  overflow: { type: 'string' },
  scoring: { type: 'string' },
  strategy: { type: 'string' },
};

export const BUDGET_FLAG_HELP: Record<string, string> = {
  '--root DIR': 'repository root to read (default: the current directory)',
  '--config FILE': 'config file (default: <root>/.aiwg/rag/config.yaml)',
  '--max-tokens N': 'total context budget in tokens (default 100000)',
  '--reserve-output N': 'tokens reserved for the model output (default 8000; unset reserves shrink to at most half of a budget under 20000)',
  '--reserve-system N': 'tokens reserved for system prompts (default 2000; shrinks with a small budget like --reserve-output)',
  '--tokenizer T': `token counter: ${TOKENIZER_IDS.join(', ')} (default o200k)`,
  '--overflow S': `when files do not fit: ${OVERFLOW_STRATEGIES.join(', ')} (default prioritize)`,
  '--scoring M': `task alignment: ${SCORING_METHODS.join(', ')} (default hybrid)`,
  '--strategy S': 'level chooser: optimal (knapsack, default) or greedy (spec degrade loop)',
};

/**
 * CLI flags as a config layer (highest precedence). Values are checked here only for shape
 * (numbers, enums) so the message can name the flag; the config schema checks the rest.
 */
export function budgetFlags(values: OptionValues): ConfigInput {
  const total: Record<string, number> = {};
  const maxTokens = intFlag(values, 'max-tokens');
  const reserveOutput = intFlag(values, 'reserve-output');
  const reserveSystem = intFlag(values, 'reserve-system');
  if (maxTokens !== undefined) total.max_tokens = maxTokens;
  if (reserveOutput !== undefined) total.reserve_for_output = reserveOutput;
  if (reserveSystem !== undefined) total.reserve_for_system = reserveSystem;

  const flags: ConfigInput = {};
  const budget: NonNullable<ConfigInput['budget_config']> = {};
  if (Object.keys(total).length > 0) budget.total_budget = total;
  const overflow = enumFlag(values, 'overflow', OVERFLOW_STRATEGIES);
  if (overflow) budget.overflow_strategy = overflow;
  const strategy = enumFlag(values, 'strategy', ['optimal', 'greedy'] as const);
  if (strategy) budget.strategy = strategy;
  if (Object.keys(budget).length > 0) flags.budget_config = budget;
  const tokenizer = enumFlag(values, 'tokenizer', TOKENIZER_IDS);
  if (tokenizer) flags.tokenizer = tokenizer;
  const scoring = enumFlag(values, 'scoring', SCORING_METHODS);
  if (scoring) flags.relevance_scoring = { scoring_method: scoring };
  return flags;
}

export function parseFormat(value: unknown): RenderFormat {
  if (value === undefined) return 'xml';
  if (value === 'xml' || value === 'markdown' || value === 'json') return value;
  throw new UsageError(`--format "${String(value)}" is not a format: use xml, markdown or json`);
}

/** A whole-number flag (`_` and `,` allowed as digit separators), or undefined when absent. */
export function intFlag(values: OptionValues, name: string, what: { unit: string; example: string } = { unit: 'tokens', example: '32000' }): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const text = String(raw).replace(/[_,]/g, '');
  if (/^-\d/.test(text.trim())) throw new UsageError(`--${name} ${String(raw)}: must not be negative; pass a whole number of ${what.unit}, e.g. --${name} ${what.example}`);
  if (!/^\d+$/.test(text)) throw new UsageError(`--${name} "${String(raw)}" is not a whole number of ${what.unit}: pass e.g. --${name} ${what.example}`);
  return Number(text);
}

function enumFlag<T extends string>(values: OptionValues, name: string, allowed: readonly T[]): T | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  if ((allowed as readonly string[]).includes(String(raw))) return raw as T;
  throw new UsageError(`--${name} "${String(raw)}" is not valid: use one of ${allowed.join(', ')}`);
}
