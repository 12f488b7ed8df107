import type { ContextMode } from './mode.js';

/** The default: the configured tier percentages unchanged. */
export const taskMode: ContextMode = {
  name: 'task',
  description: 'implement a change: the configured tiers as they are',
  adjust: (percentages) => ({ ...percentages }),
};
