import { shiftPercentages, type ContextMode } from './mode.js';

/** The history tier's share in chat mode, in percent of the available budget. */
const CHAT_HISTORY_PERCENT = 25;

export const chatMode: ContextMode = {
  name: 'chat',
  description: `converse about the code: a bigger history tier (at least ${CHAT_HISTORY_PERCENT}%)`,
  adjust: (percentages) =>
    shiftPercentages(percentages, ['primary', 'supporting', 'reference'], 'history', CHAT_HISTORY_PERCENT - percentages.history),
};
