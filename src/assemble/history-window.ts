import type { HistoryMessage, RenderFormat } from '../stages.js';
import type { Tokenizer } from '../tokenize/tokenizer.js';
import { capMessageText, messageCaps, toolCallLine } from '../conversation/message-caps.js';
import { prepareToolOutput } from '../conversation/tool-output.js';
import { DEFAULT_MAX_MESSAGES, recentWindowStart } from '../conversation/window.js';
import { blockCost, renderMessageBlock } from './render.js';

export { TOOL_OUTPUT_MAX_TOKENS } from '../conversation/message-caps.js';

/** A history message as the history tier keeps it. */
export interface HistoryItem {
  /** Position in the input history. */
  index: number;
  role: string;
  /** Displayed text: the content (capped) plus the tool calls it made. */
  content: string;
  contentTokens: number;
  block: string;
  /** Tokens of the block in a document (separator included). */
  cost: number;
  truncated: boolean;
  /** Messages of one group (an assistant tool call and its results) stay or go together. */
  group: number;
}

export interface HistoryWindow {
  /** Chronological. */
  kept: HistoryItem[];
  /** Cost of every valid message: what the tier would need to keep the whole conversation. */
  demand: number;
  /** Messages dropped because their tool-call ordering was invalid (dangling calls, orphan results). */
  invalid: number;
  /** Valid messages older than the window. */
  older: number;
  /** Kept messages whose content hit a per-message cap. */
  capped: number;
}

/**
 * The history tier (spec 002's recent-messages window), built on the same pieces as
 * `aiwg conversation build`: the newest whole groups that fit `budget` and the message-count
 * bound, oldest dropped first, contiguous. Tool-call ordering stays valid: an assistant message
 * with tool calls is kept only together with its tool results, and tool results never appear
 * without their call. Tool output is normalised (progress noise and repeated lines collapsed)
 * and capped keeping its end; other messages are capped keeping their beginning
 * (`messageCaps`). `capBudget` sets the caps (the tier's nominal budget) so the demand is
 * stable under flow.
 */
export function selectHistoryWindow(
  messages: HistoryMessage[],
  options: { budget: number; capBudget: number; format: RenderFormat; tokenizer: Tokenizer; maxMessages?: number },
): HistoryWindow {
  const { groups, invalid } = groupMessages(messages);
  const caps = messageCaps(options.capBudget);
  const items = groups.map((group, g) =>
    group.map((index) => toItem(index, messages[index]!, g, messages[index]!.role === 'tool' ? caps.tool : caps.message, options)),
  );
  const cost = (group: HistoryItem[]) => group.reduce((sum, item) => sum + item.cost, 0);
  const demand = items.reduce((sum, group) => sum + cost(group), 0);
  const start = recentWindowStart(
    items.map((group) => ({ cost: cost(group), size: group.length })),
    { tokens: options.budget, messages: options.maxMessages ?? DEFAULT_MAX_MESSAGES },
  );
  const flat = items.slice(start).flat();
  const older = items.slice(0, start).reduce((n, group) => n + group.length, 0);
  return { kept: flat, demand, invalid, older, capped: flat.filter((item) => item.truncated).length };
}

/**
 * Indices of valid messages, grouped. An assistant message followed by `tool` messages forms
 * one group; when the assistant lists tool_calls with ids, every id needs a result and results
 * answering other ids are dropped. Dangling calls and orphan results are invalid.
 */
export function groupMessages(messages: HistoryMessage[]): { groups: number[][]; invalid: number } {
  const groups: number[][] = [];
  let invalid = 0;
  let i = 0;
  while (i < messages.length) {
    const message = messages[i]!;
    if (message.role === 'tool') {
      invalid++;
      i++;
      continue;
    }
    const results: number[] = [];
    let j = i + 1;
    if (message.role === 'assistant') {
      while (j < messages.length && messages[j]!.role === 'tool') results.push(j++);
    }
    const calls = message.tool_calls ?? [];
    if (calls.length === 0) {
      groups.push([i, ...results]);
    } else {
      const ids = new Set(calls.map((c) => c.id).filter((id) => id !== ''));
      const answering = results.filter((r) => ids.size === 0 || ids.has(messages[r]!.tool_call_id ?? ''));
      const answered = new Set(answering.map((r) => messages[r]!.tool_call_id ?? ''));
      const complete = answering.length > 0 && [...ids].every((id) => answered.has(id));
      if (complete) {
        groups.push([i, ...answering]);
        invalid += results.length - answering.length;
      } else {
        invalid += 1 + results.length;
      }
    }
    i = j;
  }
  return { groups, invalid };
}

function toItem(
  index: number,
  message: HistoryMessage,
  group: number,
  cap: number,
  options: { format: RenderFormat; tokenizer: Tokenizer },
): HistoryItem {
  const { tokenizer, format } = options;
  const calls = (message.tool_calls ?? []).map(toolCallLine);
  const text = [message.content, ...calls].filter((part) => part !== '').join('\n');
  const capped =
    message.role === 'tool'
      ? prepareToolOutput(text, { cap, tokenizer, storeOutOfBand: false })
      : capMessageText(text, cap, tokenizer);
  const content = capped.text;
  const contentTokens = capped.tokens;
  const truncated = 'capped' in capped ? capped.changed : capped.truncated;
  const role = message.role;
  const block = renderMessageBlock(
    { index, role, content, tokens: contentTokens, ...(message.tool_call_id === undefined ? {} : { toolCallId: message.tool_call_id }), truncated },
    format,
  );
  return { index, role, content, contentTokens, block, cost: blockCost(block, format, tokenizer), truncated, group };
}
