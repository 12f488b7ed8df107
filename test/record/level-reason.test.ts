import { describe, expect, it } from 'vitest';
import { levelReason } from '../../src/record/level-reason.js';

describe('levelReason', () => {
  it.each([
    [{ tier: 'primary', level: 'full', overflow: null }, 'the primary tier starts files at full, and it fit'],
    [{ tier: 'supporting', level: 'full', overflow: null }, 'lifted from detailed to full: budget was left over after every tier was served'],
    [{ tier: 'primary', level: 'summary', overflow: null }, 'reduced from full to summary to fit the budget'],
    [{ tier: 'reference', level: 'stub', overflow: 'prioritize' }, 'reduced from summary to stub by the "prioritize" overflow strategy to fit the budget'],
    [{ tier: 'primary', level: 'full', overflow: 'truncate', truncated: true }, 'cut to fit by the "truncate" overflow strategy (primary tier, full)'],
    [{ tier: 'history', level: 'full', overflow: null }, 'conversation history: kept within the history tier budget'],
  ] as const)('%j: %s', (input, expected) => {
    expect(levelReason(input)).toBe(expected);
  });
});
