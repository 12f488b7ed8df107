import { UsageError } from '../../errors.js';
import type { Config } from '../../config/schema.js';
import { tierPercentages } from '../../config/schema.js';
import type { ContextMode, TierPercentages } from './mode.js';
import { taskMode } from './task.js';
import { reviewMode } from './review.js';
import { chatMode } from './chat.js';

export { shiftPercentages, type ContextMode, type TierPercentages } from './mode.js';

/** The built-in modes, by name. `task` is the default. */
export const CONTEXT_MODES: readonly ContextMode[] = [taskMode, reviewMode, chatMode];

export const DEFAULT_CONTEXT_MODE = taskMode.name;

/** Look a mode up by name; an unknown name is a UsageError listing the known ones. */
export function resolveMode(name: string, modes: readonly ContextMode[] = CONTEXT_MODES): ContextMode {
  const mode = modes.find((m) => m.name === name);
  if (mode) return mode;
  const known = modes.map((m) => m.name).sort().join(', ');
  throw new UsageError(`unknown context mode "${name}": use one of ${known}`);
}

/** A copy of `config` whose tier percentages are the mode's adjustment of the configured ones. */
export function applyMode(config: Config, mode: ContextMode): Config {
  const p: TierPercentages = mode.adjust(tierPercentages(config));
  const a = config.budget_config.allocation;
  return {
    ...config,
    budget_config: {
      ...config.budget_config,
      allocation: {
        primary_context: { ...a.primary_context, percentage: p.primary },
        supporting_context: { ...a.supporting_context, percentage: p.supporting },
        reference_context: { ...a.reference_context, percentage: p.reference },
        history_context: { ...a.history_context, percentage: p.history },
      },
    },
  };
}
