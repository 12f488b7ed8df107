import type { Level, TierName } from '../config/schema.js';

/**
 * ANSI colour for the human reports, where it helps reading: tier titles and levels. Off with
 * NO_COLOR (https://no-color.org) and whenever stdout is not a terminal (pipes, files, tests);
 * FORCE_COLOR=1 turns it on regardless. Pure: the caller passes env and the TTY fact.
 */
export interface Colors {
  tier(tier: TierName, text: string): string;
  level(level: Level, text: string): string;
  bold(text: string): string;
  dim(text: string): string;
  warn(text: string): string;
}

export function shouldColor(env: Record<string, string | undefined>, stdoutIsTTY: boolean): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true;
  return stdoutIsTTY && env.TERM !== 'dumb';
}

const TIER_CODES: Record<TierName, number> = { primary: 32, supporting: 36, reference: 34, history: 35 };
/** Full detail reads green, fading through cyan and yellow to a stub's dim grey. */
const LEVEL_CODES: Record<Level, number> = { full: 32, detailed: 36, summary: 33, stub: 90 };

export function createColors(enabled: boolean): Colors {
  const wrap = (code: number, text: string) => (enabled && text !== '' ? `\x1b[${code}m${text}\x1b[0m` : text);
  return {
    tier: (tier, text) => (enabled ? `\x1b[1m${wrap(TIER_CODES[tier], text)}` : text),
    level: (level, text) => wrap(LEVEL_CODES[level], text),
    bold: (text) => wrap(1, text),
    dim: (text) => wrap(2, text),
    warn: (text) => wrap(33, text),
  };
}

export const NO_COLORS: Colors = createColors(false);
