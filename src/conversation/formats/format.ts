import type { ConversationParts } from './parts.js';

/**
 * An output shape of `aiwg conversation build`: a registry entry, so adding a chat API is
 * adding a file. `serialize` gives the text the budget is counted on: the exact payload a
 * client sends (JSON for the APIs), so the promise "within --max-tokens" is about real bytes.
 */
export interface ConversationFormat<P = unknown> {
  name: string;
  render(parts: ConversationParts): P;
  serialize(payload: P): string;
}
