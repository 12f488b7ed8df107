import { createRequire } from 'node:module';

/** The GPT encodings behind the o200k and cl100k tokenizers (gpt-tokenizer), loaded on demand. */
export type BpeEncodingId = 'o200k' | 'cl100k';

export interface BpeEncoding {
  countTokens(text: string, options?: object): number;
}

/** Special tokens such as `<|endoftext|>` occur in real repositories: count them as text. */
export const NO_SPECIAL = { disallowedSpecial: new Set<string>(), allowedSpecial: new Set<string>() };

const require = createRequire(import.meta.url);

/**
 * Load an encoding synchronously (gpt-tokenizer's CommonJS build), so a counter can switch to it
 * in the middle of synchronous counting. Its table is ~2 MB of source: ~130 ms on this machine.
 */
export function loadEncoding(id: BpeEncodingId): BpeEncoding {
  return (id === 'o200k' ? require('gpt-tokenizer/encoding/o200k_base') : require('gpt-tokenizer/encoding/cl100k_base')) as BpeEncoding;
}
