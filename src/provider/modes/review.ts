import { shiftPercentages, type ContextMode } from './mode.js';

/** Points moved from primary to supporting: a reviewer reads callers and tests around the change. */
const REVIEW_SUPPORTING_POINTS = 15;

export const reviewMode: ContextMode = {
  name: 'review',
  description: 'review a change: more supporting context (callers, tests, dependencies)',
  adjust: (percentages) => shiftPercentages(percentages, ['primary'], 'supporting', REVIEW_SUPPORTING_POINTS),
};
