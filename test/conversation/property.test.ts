import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildConversation } from '../../src/conversation/build.js';
import type { ConversationFormatName } from '../../src/conversation/formats/index.js';
import { sha256Hex } from '../../src/util/hash.js';
import { createChars4Tokenizer, createTokenizer, type Tokenizer } from '../../src/tokenize/tokenizer.js';
import { AnthropicPayloadSchema, OpenAiPayloadSchema } from './api-schemas.js';
import { sessionArb } from './arbitraries.js';
import type { Session } from '../../src/conversation/session.js';

const FORMATS: ConversationFormatName[] = ['openai', 'anthropic', 'text'];

async function check(tokenizer: Tokenizer, session: Session, maxTokens: number, maxMessages: number, format: ConversationFormatName) {
  const built = await buildConversation(session, { maxTokens, maxMessages, format, tokenizer, nowIso: '2026-01-15T00:00:00.000Z' });
  // Budget: the payload as a client sends it, counted whole.
  expect(built.tokens).toBe(tokenizer.count(built.serialized));
  expect(built.tokens).toBeLessThanOrEqual(maxTokens);
  // Shape and ordering rules of each API.
  if (format === 'openai') OpenAiPayloadSchema.parse(built.payload);
  if (format === 'anthropic') AnthropicPayloadSchema.parse(built.payload);
  const m = built.report.messages;
  // Window bound by count; every message accounted for exactly once.
  expect(m.in_window).toBeLessThanOrEqual(maxMessages);
  expect(m.in_window + m.summarised + m.invalid + m.repeated_prompts_dropped).toBe(m.in_session);
  // The summary stands for what left the window, and only then.
  if (built.report.summary) expect(m.summarised).toBeGreaterThan(0);
  // Every pointer in the prompt has its full text, stored under its own hash.
  const stored = new Map(built.outputs.map((o) => [o.pointer, o.text]));
  for (const [, pointer] of built.serialized.matchAll(/show-output (sha256:[0-9a-f]+)/g)) {
    expect(stored.has(pointer!)).toBe(true);
    expect(sha256Hex(stored.get(pointer!)!).startsWith(pointer!.slice('sha256:'.length))).toBe(true);
  }
  // No repeated action prompt: two equal user messages need a tool result between them.
  if (format === 'openai') {
    const messages = (built.payload as { messages: Array<{ role: string; content: string | null }> }).messages;
    let lastUser: string | null = null;
    for (const msg of messages) {
      if (msg.role === 'tool') lastUser = null;
      if (msg.role === 'user') {
        expect(msg.content).not.toBe(lastUser);
        lastUser = msg.content;
      }
    }
    // The step directive, when the plan was accepted, is the last message.
    if (built.report.plan?.accepted && messages.some((x) => x.role === 'system' && String(x.content).startsWith('Engine'))) {
      expect(String(messages[messages.length - 1]!.content)).toMatch(/^Engine (directive|note)/);
    }
  }
}

describe('conversation build: ordering and budget invariants over random sessions', () => {
  const budgetArb = fc.integer({ min: 120, max: 6000 });
  const countArb = fc.integer({ min: 1, max: 60 });
  const formatArb = fc.constantFrom(...FORMATS);

  it('holds for chars/4', async () => {
    const tokenizer = createChars4Tokenizer();
    await fc.assert(fc.asyncProperty(sessionArb, budgetArb, countArb, formatArb, (s, b, n, f) => check(tokenizer, s, b, n, f)), { numRuns: 200 });
  });

  it('holds for o200k', async () => {
    const tokenizer = await createTokenizer('o200k');
    await fc.assert(fc.asyncProperty(sessionArb, budgetArb, countArb, formatArb, (s, b, n, f) => check(tokenizer, s, b, n, f)), { numRuns: 40 });
  });
});
