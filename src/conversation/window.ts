/**
 * Spec 002 B, the recent-messages window: the newest whole groups (a turn, or an assistant
 * tool call with its results) while both bounds hold, a message count and a token budget.
 * Contiguous: the window never skips a group to fit an older one. The history tier of
 * context-budget and `aiwg conversation build` both choose their window here.
 */
export interface WindowBounds {
  /** Tokens the window may cost. */
  tokens: number;
  /** Messages the window may hold (Infinity: no count bound). */
  messages: number;
  /** Groups before this index are never in the window (already folded into the summary). */
  from?: number;
}

/** Spec 002 suggests keeping the last 20-60 messages; the middle of that range. */
export const DEFAULT_MAX_MESSAGES = 40;

/**
 * Index of the first group in the window (`groups.length` when none fits). `groups[g]` gives
 * the group's cost and its message count.
 */
export function recentWindowStart(groups: ReadonlyArray<{ cost: number; size: number }>, bounds: WindowBounds): number {
  const from = bounds.from ?? 0;
  let used = 0;
  let count = 0;
  let start = groups.length;
  for (let g = groups.length - 1; g >= from; g--) {
    const { cost, size } = groups[g]!;
    if (used + cost > bounds.tokens || count + size > bounds.messages) break;
    used += cost;
    count += size;
    start = g;
  }
  return start;
}
