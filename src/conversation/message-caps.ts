import type { Tokenizer } from '../tokenize/tokenizer.js';
import { truncateWithStrategy } from '../tokenize/truncate.js';
import { formatCount } from '../util/format.js';

/**
 * Spec 002 B, per-message caps, shared by the history tier and `aiwg conversation build`:
 * tool output never takes more than a quarter of the window's budget (at most
 * TOOL_OUTPUT_MAX_TOKENS), any other message at most half of it.
 */

/** Tool output never takes more than this many tokens of the window (spec 002: cap tool results). */
export const TOOL_OUTPUT_MAX_TOKENS = 2000;
/** Smallest per-message cap, so a tiny budget still shows the head of a message. */
export const MIN_MESSAGE_CAP_TOKENS = 16;

export function messageCaps(windowBudget: number): { tool: number; message: number } {
  return {
    tool: Math.max(MIN_MESSAGE_CAP_TOKENS, Math.min(TOOL_OUTPUT_MAX_TOKENS, Math.floor(windowBudget / 4))),
    message: Math.max(MIN_MESSAGE_CAP_TOKENS, Math.floor(windowBudget / 2)),
  };
}

/** Cap a non-tool message, keeping its beginning (a request or an answer reads top-down). */
export function capMessageText(text: string, cap: number, tokenizer: Tokenizer): { text: string; tokens: number; truncated: boolean } {
  const tokens = tokenizer.count(text);
  if (tokens <= cap) return { text, tokens, truncated: false };
  const cut = truncateWithStrategy(text, { budget: cap, strategy: 'end', tokenizer });
  const kept = cut ? cut.text : `[${formatCount(tokens)} tokens omitted]`;
  return { text: kept, tokens: cut ? cut.tokens : tokenizer.count(kept), truncated: true };
}

/** How a tool call shows in text renderings: `[tool call c1: read_file({"path":"a.ts"})]`. */
export function toolCallLine(call: { id: string; name: string; arguments: string }): string {
  return `[tool call ${call.id}: ${call.name}(${call.arguments})]`;
}
