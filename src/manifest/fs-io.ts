import { ensureOwnDirs } from '../cache/own-dirs.js';
import { appendLine } from '../util/atomic-write.js';

/** A port that appends one JSON value as one line of a JSONL log. */
export type AppendJsonLine = (value: unknown) => Promise<void>;

/**
 * Append-only JSONL writer: each value one whole line (util/atomic-write.ts appendLine), so
 * concurrent writers never interleave inside a line and a full disk leaves no torn line. With
 * `root`, the log lives in the tool's own `.aiwg/rag/`, which is created ignoring itself in git
 * before the first line.
 */
export function createJsonlAppender(path: string, options: { root?: string } = {}): AppendJsonLine {
  return async (value) => {
    if (options.root !== undefined) await ensureOwnDirs(options.root);
    appendLine(path, JSON.stringify(value));
  };
}
