import { escapeAttribute, neutraliseTags } from '../../assemble/formats/escape.js';
import { toolCallLine } from '../message-caps.js';
import type { ConversationFormat } from './format.js';
import { contextText, summaryText, type ConversationParts } from './parts.js';

/**
 * A readable transcript with spec 001's role formatting (`<system>`, `<user>`, ...), for
 * models without a chat API and for people. Message text is data: tags that could close a
 * wrapper or pose as a role are neutralised.
 */
export const textFormat: ConversationFormat<string> = {
  name: 'text',
  render(parts: ConversationParts) {
    const blocks: string[] = [];
    const block = (tag: string, attrs: Record<string, string>, body: string) => {
      const attributes = Object.entries(attrs).map(([k, v]) => ` ${k}="${escapeAttribute(v)}"`).join('');
      blocks.push(`<${tag}${attributes}>\n${neutraliseTags(body)}\n</${tag}>`);
    };
    if (parts.system !== '') block('system', {}, parts.system);
    if (parts.summary) block('system', { source: 'engine', kind: 'summary' }, summaryText(parts.summary));
    // Context blocks are already rendered and neutralised.
    if (parts.context) blocks.push(`<user source="engine" kind="context">\n${contextText(parts.context)}\n</user>`);
    for (const m of parts.window) {
      const attrs: Record<string, string> = { index: String(m.index + 1) };
      if (m.toolCallId !== undefined) attrs.tool_call_id = m.toolCallId;
      const body = [m.content, ...(m.toolCalls ?? []).map(toolCallLine)].filter((s) => s !== '').join('\n');
      block(m.role, attrs, body);
    }
    if (parts.directive) block('system', { source: 'engine', kind: 'directive' }, parts.directive);
    return blocks.join('\n') + (blocks.length > 0 ? '\n' : '');
  },
  serialize: (payload) => payload,
};
