import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ensureOwnDirs } from '../cache/own-dirs.js';

/** A port that appends one JSON value as one line of a JSONL log. */
export type AppendJsonLine = (value: unknown) => Promise<void>;

/**
 * Append-only JSONL writer: one `appendFile` per line, so concurrent writers (O_APPEND)
 * never interleave inside a line. With `root`, the log lives in the tool's own `.aiwg/rag/`,
 * which is created ignoring itself in git before the first line.
 */
export function createJsonlAppender(path: string, options: { root?: string } = {}): AppendJsonLine {
  return async (value) => {
    if (options.root !== undefined) await ensureOwnDirs(options.root);
    await mkdir(dirname(path), { recursive: true });
    await appendFile(path, `${JSON.stringify(value)}\n`, 'utf8');
  };
}
