import { createRequire } from 'node:module';
import { readBpeTable, writeBpeTable } from './bpe-table.js';

/** The GPT encodings behind the o200k and cl100k tokenizers (gpt-tokenizer), loaded on demand. */
export type BpeEncodingId = 'o200k' | 'cl100k';

/** Counts BPE tokens; special tokens such as `<|endoftext|>` occur in real repositories and are counted as text. */
export interface BpeEncoding {
  countTokens(text: string): number;
}

/** gpt-tokenizer's options for that: no special token allowed, none refused. */
const NO_SPECIAL = { disallowedSpecial: new Set<string>(), allowedSpecial: new Set<string>() };

const require = createRequire(import.meta.url);

/**
 * Load an encoding synchronously, so a counter can switch to it in the middle of synchronous
 * counting: from `tableFile` (bpe-table.ts: one read, ~10 ms) when it holds the table, else
 * gpt-tokenizer's CommonJS build (its table is ~2.4 MB of source: ~120-250 ms here), writing the
 * table file for the next load right after (once the caller's current work is done).
 */
export function loadEncoding(id: BpeEncodingId, tableFile?: string): BpeEncoding {
  const table = tableFile === undefined ? undefined : readBpeTable(tableFile, id);
  if (table) return { countTokens: (text) => table.countTokens(text) };
  const encoding = (id === 'o200k' ? require('gpt-tokenizer/encoding/o200k_base') : require('gpt-tokenizer/encoding/cl100k_base')) as GptEncoding;
  if (tableFile !== undefined) setImmediate(() => void writeBpeTable(tableFile, id));
  return { countTokens: (text) => encoding.countTokens(text, NO_SPECIAL) };
}

interface GptEncoding {
  countTokens(text: string, options?: object): number;
}
