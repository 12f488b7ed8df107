import type { ConversationFormat } from './format.js';
import { CONTINUATION_NOTE, contextText, summaryText, type ConversationParts } from './parts.js';

export type AnthropicBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: string };

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: string | AnthropicBlock[];
}

/** Shown in a tool_result whose output was empty (Anthropic refuses empty text). */
const EMPTY_OUTPUT = '(no output)';

/**
 * Anthropic Messages: `{system, messages}`. Engine-authored parts go into `system` (the only
 * channel above the user); turns alternate user/assistant, starting with a user turn; each
 * assistant tool_use is answered by tool_result blocks at the start of the next user turn.
 */
export const anthropicFormat: ConversationFormat<{ system: string; messages: AnthropicMessage[] }> = {
  name: 'anthropic',
  render(parts: ConversationParts) {
    const system = [parts.system, parts.summary ? summaryText(parts.summary) : '', parts.directive ?? ''].filter((s) => s !== '').join('\n\n');
    const turns: Array<{ role: 'user' | 'assistant'; blocks: AnthropicBlock[] }> = [];
    const push = (role: 'user' | 'assistant', blocks: AnthropicBlock[]) => {
      if (blocks.length === 0) return;
      const last = turns[turns.length - 1];
      if (last && last.role === role) last.blocks.push(...blocks);
      else turns.push({ role, blocks: [...blocks] });
    };
    if (parts.context) push('user', [{ type: 'text', text: contextText(parts.context) }]);
    for (const m of parts.window) {
      if (m.role === 'tool') push('user', [{ type: 'tool_result', tool_use_id: m.toolCallId!, content: m.content === '' ? EMPTY_OUTPUT : m.content }]);
      else if (m.role === 'assistant') {
        const blocks: AnthropicBlock[] = m.content.trim() === '' ? [] : [{ type: 'text', text: m.content }];
        for (const c of m.toolCalls ?? []) blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: toolInput(c.arguments) });
        push('assistant', blocks);
      } else if (m.content.trim() !== '') {
        push('user', [{ type: 'text', text: m.role === 'system' ? `(system note) ${m.content}` : m.content }]);
      }
    }
    if (turns[0]?.role !== 'user') turns.unshift({ role: 'user', blocks: [{ type: 'text', text: CONTINUATION_NOTE }] });
    const messages = turns.map(({ role, blocks }) => ({
      role,
      content: blocks.length === 1 && blocks[0]!.type === 'text' ? blocks[0]!.text : blocks,
    }));
    return { ...(system !== '' ? { system } : { system: '' }), messages };
  },
  serialize: (payload) => JSON.stringify(payload),
};

/** The arguments are JSON text of an object already (ordering.ts `objectArguments`). */
function toolInput(args: string): Record<string, unknown> {
  return JSON.parse(args) as Record<string, unknown>;
}
