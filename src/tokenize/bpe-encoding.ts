import { createRequire } from 'node:module';
import { readBpeTable, readBpeTableAhead, writeBpeTable } from './bpe-table.js';

/** The GPT encodings behind the o200k and cl100k tokenizers (gpt-tokenizer), loaded on demand. */
export type BpeEncodingId = 'o200k' | 'cl100k';

/** Counts BPE tokens; special tokens such as `<|endoftext|>` occur in real repositories and are counted as text. */
export interface BpeEncoding {
  countTokens(text: string): number;
}

/** gpt-tokenizer's options for that: no special token allowed, none refused. */
const NO_SPECIAL = { disallowedSpecial: new Set<string>(), allowedSpecial: new Set<string>() };

const require = createRequire(import.meta.url);

/** Where an encoding's table may be kept: one file, or several in order of preference. */
export type TableFiles = string | readonly string[];

/**
 * Load an encoding synchronously, so a counter can switch to it in the middle of synchronous
 * counting: from the first of `tableFiles` that holds the table (bpe-table.ts: its frame now, the
 * pages a count needs as it needs them),
 * else gpt-tokenizer's CommonJS build (its table is ~2.4 MB of source: ~120-250 ms here), writing
 * the table for the next load right after (once the caller's current work is done) to the first
 * of them that can be written.
 */
export function loadEncoding(id: BpeEncodingId, tableFiles?: TableFiles): BpeEncoding {
  const files = tableFileList(tableFiles);
  for (const file of files) {
    const table = readBpeTable(file, id);
    if (table) return { countTokens: (text) => table.countTokens(text) };
  }
  const encoding = (id === 'o200k' ? require('gpt-tokenizer/encoding/o200k_base') : require('gpt-tokenizer/encoding/cl100k_base')) as GptEncoding;
  if (files.length > 0) setImmediate(() => void writeFirst(files, id));
  return { countTokens: (text) => encoding.countTokens(text, NO_SPECIAL) };
}

/** The table files, in order of preference. */
function tableFileList(tableFiles: TableFiles | undefined): readonly string[] {
  return tableFiles === undefined ? [] : typeof tableFiles === 'string' ? [tableFiles] : tableFiles;
}

/**
 * Start reading, off this thread, the table file the first loadEncoding of this process will
 * try first (the first that exists), for it to take its pages from (bpe-table.ts
 * readBpeTableAhead). Only that one: a later file is read only when that one fails, and a read
 * nobody takes would be held for the life of the process. Resolves once that read is done.
 */
export function readEncodingAhead(tableFiles: TableFiles | undefined): Promise<void> | undefined {
  for (const file of tableFileList(tableFiles)) {
    const reading = readBpeTableAhead(file);
    if (reading !== undefined) return reading;
  }
  return undefined;
}

/** Write the table to the first of `files` where that works (a read-only model cache: the next one). */
async function writeFirst(files: readonly string[], id: BpeEncodingId): Promise<void> {
  for (const file of files) if (await writeBpeTable(file, id)) return;
}

interface GptEncoding {
  countTokens(text: string, options?: object): number;
}
