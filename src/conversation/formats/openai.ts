import type { ConversationFormat } from './format.js';
import { CONTINUATION_NOTE, contextText, summaryText, type ConversationParts } from './parts.js';

/** An OpenAI Chat Completions message, as this builder emits it. */
export type OpenAiMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string; name?: string }
  | { role: 'assistant'; content: string | null; tool_calls?: OpenAiToolCall[]; name?: string }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface OpenAiToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/**
 * OpenAI Chat Completions: `{messages}`. Engine-authored parts (summary, directive) are system
 * messages; retrieved context is a user message marked as data; each assistant `tool_calls`
 * message is followed directly by one `tool` message per call.
 */
export const openAiFormat: ConversationFormat<{ messages: OpenAiMessage[] }> = {
  name: 'openai',
  render(parts: ConversationParts) {
    const messages: OpenAiMessage[] = [];
    if (parts.system !== '') messages.push({ role: 'system', content: parts.system });
    if (parts.summary) messages.push({ role: 'system', content: summaryText(parts.summary) });
    if (parts.context) messages.push({ role: 'user', content: contextText(parts.context) });
    for (const m of parts.window) {
      if (m.role === 'tool') messages.push({ role: 'tool', tool_call_id: m.toolCallId!, content: m.content });
      else if (m.role === 'assistant') {
        const calls = (m.toolCalls ?? []).map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } }));
        messages.push({
          role: 'assistant',
          content: m.content === '' && calls.length > 0 ? null : m.content,
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
          ...(m.name !== undefined ? { name: m.name } : {}),
        });
      } else if (m.role === 'user') messages.push({ role: 'user', content: m.content, ...(m.name !== undefined ? { name: m.name } : {}) });
      else messages.push({ role: 'system', content: m.content });
    }
    if (parts.directive) messages.push({ role: 'system', content: parts.directive });
    // The API takes no empty conversation.
    if (messages.length === 0) messages.push({ role: 'user', content: CONTINUATION_NOTE });
    return { messages };
  },
  serialize: (payload) => JSON.stringify(payload),
};
