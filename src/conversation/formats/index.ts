import { UsageError } from '../../errors.js';
import { anthropicFormat } from './anthropic.js';
import type { ConversationFormat } from './format.js';
import { openAiFormat } from './openai.js';
import { textFormat } from './text.js';

export type { ConversationFormat } from './format.js';
export type { ConversationParts } from './parts.js';

/** Every output shape of `aiwg conversation build`, by name. */
export const CONVERSATION_FORMATS = { openai: openAiFormat, anthropic: anthropicFormat, text: textFormat } as const;
export type ConversationFormatName = keyof typeof CONVERSATION_FORMATS;

export function getConversationFormat(name: string): ConversationFormat {
  if (!Object.hasOwn(CONVERSATION_FORMATS, name)) {
    throw new UsageError(`unknown conversation format "${name}": use one of ${Object.keys(CONVERSATION_FORMATS).join(', ')}`);
  }
  // Each format's payload type is its own; callers treat payloads as opaque JSON or text.
  return CONVERSATION_FORMATS[name as ConversationFormatName] as unknown as ConversationFormat;
}
