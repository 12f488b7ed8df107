import type { HistoryMessage, RenderFormat } from '../stages.js';
import type { Tokenizer } from '../tokenize/tokenizer.js';
import { truncateWithStrategy } from '../tokenize/truncate.js';
import { blockCost, renderMessageBlock } from './render.js';

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

/** Tool output never takes more than this many tokens of the window (spec 002: cap tool results). */
export const TOOL_OUTPUT_MAX_TOKENS = 2000;
/** Smallest per-message cap, so a tiny budget still shows the head of a message. */
const MIN_MESSAGE_CAP_TOKENS = 16;

/**
 * The history tier (spec 002's recent-messages window): the newest messages that fit `budget`,
 * oldest dropped first, contiguous (a window never skips a message to fit an older one).
 * Tool-call ordering stays valid: an assistant message with tool calls is kept only together
 * with its tool results, and tool results never appear without their call. Tool output is
 * capped at a quarter of the budget (at most TOOL_OUTPUT_MAX_TOKENS), keeping its end as spec 001
 * advises for logs; any other message at half the budget, keeping its beginning.
 * `capBudget` sets the caps (the tier's nominal budget) so the demand is stable under flow.
 */
export function selectHistoryWindow(
  messages: HistoryMessage[],
  options: { budget: number; capBudget: number; format: RenderFormat; tokenizer: Tokenizer },
): HistoryWindow {
  const { groups, invalid } = groupMessages(messages);
  const toolCap = Math.max(MIN_MESSAGE_CAP_TOKENS, Math.min(TOOL_OUTPUT_MAX_TOKENS, Math.floor(options.capBudget / 4)));
  const messageCap = Math.max(MIN_MESSAGE_CAP_TOKENS, Math.floor(options.capBudget / 2));
  const items = groups.map((group, g) =>
    group.map((index) => toItem(index, messages[index]!, g, messages[index]!.role === 'tool' ? toolCap : messageCap, options)),
  );
  const cost = (group: HistoryItem[]) => group.reduce((sum, item) => sum + item.cost, 0);
  const demand = items.reduce((sum, group) => sum + cost(group), 0);

  const kept: HistoryItem[][] = [];
  let used = 0;
  for (let g = items.length - 1; g >= 0; g--) {
    const groupCost = cost(items[g]!);
    if (used + groupCost > options.budget) break;
    used += groupCost;
    kept.push(items[g]!);
  }
  kept.reverse();
  const flat = kept.flat();
  const older = items.slice(0, items.length - kept.length).reduce((n, group) => n + group.length, 0);
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
  const calls = (message.tool_calls ?? []).map((c) => `[tool call ${c.id}: ${c.name}(${c.arguments})]`);
  let content = [message.content, ...calls].filter((part) => part !== '').join('\n');
  let contentTokens = tokenizer.count(content);
  let truncated = false;
  if (contentTokens > cap) {
    const cut = truncateWithStrategy(content, { budget: cap, strategy: message.role === 'tool' ? 'start' : 'end', tokenizer });
    content = cut ? cut.text : `[${contentTokens} tokens omitted]`;
    contentTokens = cut ? cut.tokens : tokenizer.count(content);
    truncated = true;
  }
  const role = message.role;
  const block = renderMessageBlock(
    { index, role, content, tokens: contentTokens, ...(message.tool_call_id === undefined ? {} : { toolCallId: message.tool_call_id }), truncated },
    format,
  );
  return { index, role, content, contentTokens, block, cost: blockCost(block, format, tokenizer), truncated, group };
}
