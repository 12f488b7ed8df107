import { z } from 'zod';

/**
 * The message shapes and ordering rules of the two chat APIs, written from their public
 * documentation, so a test fails when the builder emits something an API would refuse.
 */

const openAiToolCall = z.strictObject({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.strictObject({ name: z.string().min(1), arguments: z.string().refine(isJsonObjectText, 'arguments must be JSON text of an object') }),
});

export const OpenAiMessageSchema = z.discriminatedUnion('role', [
  z.strictObject({ role: z.literal('system'), content: z.string(), name: z.string().optional() }),
  z.strictObject({ role: z.literal('developer'), content: z.string(), name: z.string().optional() }),
  z.strictObject({ role: z.literal('user'), content: z.string(), name: z.string().optional() }),
  z.strictObject({
    role: z.literal('assistant'),
    content: z.string().nullable(),
    tool_calls: z.array(openAiToolCall).min(1).optional(),
    name: z.string().optional(),
  }),
  z.strictObject({ role: z.literal('tool'), tool_call_id: z.string().min(1), content: z.string() }),
]);

/**
 * OpenAI Chat Completions: every assistant `tool_calls` message is followed directly by one
 * `tool` message per call id (any order, no other message between); a `tool` message answers a
 * call of the assistant message just before its run; tool-call ids are unique.
 */
export const OpenAiPayloadSchema = z.strictObject({ messages: z.array(OpenAiMessageSchema).min(1) }).superRefine(({ messages }, ctx) => {
  const seen = new Set<string>();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'tool') {
      ctx.addIssue({ code: 'custom', path: ['messages', i], message: 'a tool message not directly after its assistant tool_calls message' });
      continue;
    }
    if (m.role !== 'assistant' || !m.tool_calls) continue;
    const ids = m.tool_calls.map((c) => c.id);
    for (const id of ids) {
      if (seen.has(id)) ctx.addIssue({ code: 'custom', path: ['messages', i], message: `tool call id ${id} used twice` });
      seen.add(id);
    }
    const answered = new Set<string>();
    let j = i + 1;
    for (; j < messages.length && messages[j]!.role === 'tool'; j++) {
      const id = (messages[j] as { tool_call_id: string }).tool_call_id;
      if (!ids.includes(id) || answered.has(id)) ctx.addIssue({ code: 'custom', path: ['messages', j], message: `tool message answers ${id}, not an open call` });
      answered.add(id);
    }
    if (answered.size !== ids.length) ctx.addIssue({ code: 'custom', path: ['messages', i], message: `${ids.length - answered.size} tool calls without a tool message` });
    i = j - 1;
  }
});

const textBlock = z.strictObject({ type: z.literal('text'), text: z.string().min(1) });
const toolUseBlock = z.strictObject({
  type: z.literal('tool_use'),
  id: z.string().regex(/^[a-zA-Z0-9_-]+$/),
  name: z.string().min(1).max(200),
  input: z.record(z.string(), z.unknown()),
});
const toolResultBlock = z.strictObject({ type: z.literal('tool_result'), tool_use_id: z.string().min(1), content: z.string() });

export const AnthropicMessageSchema = z.discriminatedUnion('role', [
  z.strictObject({ role: z.literal('user'), content: z.union([z.string().min(1), z.array(z.union([textBlock, toolResultBlock])).min(1)]) }),
  z.strictObject({ role: z.literal('assistant'), content: z.union([z.string().min(1), z.array(z.union([textBlock, toolUseBlock])).min(1)]) }),
]);

/**
 * Anthropic Messages: turns alternate user/assistant starting with user; every tool_use is
 * answered by a tool_result in the very next (user) turn, whose tool_result blocks come before
 * any text; a tool_result answers a tool_use of the turn just before.
 */
export const AnthropicPayloadSchema = z
  .strictObject({ system: z.string(), messages: z.array(AnthropicMessageSchema).min(1) })
  .superRefine(({ messages }, ctx) => {
    const blocks = (m: (typeof messages)[number]) => (typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content);
    if (messages[0]!.role !== 'user') ctx.addIssue({ code: 'custom', path: ['messages', 0], message: 'the first message must be a user turn' });
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i]!;
      if (i > 0 && messages[i - 1]!.role === m.role) ctx.addIssue({ code: 'custom', path: ['messages', i], message: 'two turns of one role in a row' });
      const here = blocks(m);
      const previous = i > 0 ? blocks(messages[i - 1]!) : [];
      const openUses = previous.filter((b) => b.type === 'tool_use').map((b) => (b as { id: string }).id);
      const results = here.filter((b) => b.type === 'tool_result').map((b) => (b as { tool_use_id: string }).tool_use_id);
      const firstText = here.findIndex((b) => b.type === 'text');
      const lastResult = here.map((b) => b.type).lastIndexOf('tool_result');
      if (firstText !== -1 && lastResult > firstText) ctx.addIssue({ code: 'custom', path: ['messages', i], message: 'tool_result blocks must come before text' });
      for (const id of results) if (!openUses.includes(id)) ctx.addIssue({ code: 'custom', path: ['messages', i], message: `tool_result for ${id} answers no tool_use of the previous turn` });
      for (const id of openUses) if (!results.includes(id)) ctx.addIssue({ code: 'custom', path: ['messages', i], message: `tool_use ${id} has no tool_result in the next turn` });
    }
    const last = messages[messages.length - 1]!;
    const dangling = blocks(last).filter((b) => b.type === 'tool_use');
    if (dangling.length > 0) ctx.addIssue({ code: 'custom', path: ['messages', messages.length - 1], message: 'the last turn has tool_use blocks without results' });
  });

function isJsonObjectText(text: string): boolean {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  } catch {
    return false;
  }
}
