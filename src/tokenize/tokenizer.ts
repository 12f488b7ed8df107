import { UsageError } from '../errors.js';

/** Tokenizer ids accepted by config and `--tokenizer`. */
export const TOKENIZER_IDS = ['o200k', 'cl100k', 'chars4'] as const;
export type TokenizerId = (typeof TOKENIZER_IDS)[number];

/**
 * The tokenizer port. Every budget in the engine is counted through one of these, so a
 * promise like "never exceeds `available`" holds for the tokenizer the user chose.
 */
export interface Tokenizer {
  readonly id: TokenizerId;
  /** Exact token count of `text` (for `chars4`: ceil(length / 4)). */
  count(text: string): number;
}

/** Special tokens such as `<|endoftext|>` occur in real repositories: count them as text. */
const NO_SPECIAL = { disallowedSpecial: new Set<string>(), allowedSpecial: new Set<string>() };

/**
 * Create a tokenizer. The encoding tables are imported lazily (~260 ms) so `--help`
 * and pure-cache runs start fast.
 */
export async function createTokenizer(id: TokenizerId): Promise<Tokenizer> {
  switch (id) {
    case 'chars4':
      return createChars4Tokenizer();
    case 'o200k':
      return wrapGpt(id, await import('gpt-tokenizer/encoding/o200k_base'));
    case 'cl100k':
      return wrapGpt(id, await import('gpt-tokenizer/encoding/cl100k_base'));
    default:
      throw new UsageError(`unknown tokenizer "${String(id)}": use one of ${TOKENIZER_IDS.join(', ')}`);
  }
}

interface GptModule {
  countTokens(text: string, options?: object): number;
}

function wrapGpt(id: TokenizerId, mod: GptModule): Tokenizer {
  return {
    id,
    count: (text) => (text.length === 0 ? 0 : mod.countTokens(text, NO_SPECIAL)),
  };
}

/** The chars/4 heuristic of spec 000 (`estimateTokens`), as a tokenizer. */
export function createChars4Tokenizer(): Tokenizer {
  return { id: 'chars4', count: (text) => Math.ceil(text.length / 4) };
}

export function isTokenizerId(value: string): value is TokenizerId {
  return (TOKENIZER_IDS as readonly string[]).includes(value);
}
