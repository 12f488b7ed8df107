import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

/** A port that appends one JSON value as one line of a JSONL log. */
export type AppendJsonLine = (value: unknown) => Promise<void>;

/**
 * Append-only JSONL writer: one `appendFile` per line, so concurrent writers (O_APPEND)
 * never interleave inside a line.
 */
export function createJsonlAppender(path: string): AppendJsonLine {
  return async (value) => {
    await mkdir(dirname(path), { recursive: true });
    await appendFile(path, `${JSON.stringify(value)}\n`, 'utf8');
  };
}
