import type { Tokenizer } from '../tokenize/tokenizer.js';
import { cutToLimit } from './outline/render.js';

export interface StubInput {
  path: string;
  fileType: string;
  /** Last commit time, else mtime, epoch ms. */
  lastModifiedMs: number;
  lineCount: number;
}

/** Paths longer than this are shortened in the middle when the stub is over its limit. */
const MIN_PATH_CHARS = 24;

/**
 * The stub of spec 003: file path, file type, last modified (UTC, ISO 8601) and line count.
 * A path too long for the limit is shortened in the middle (`src/…/deep/file.ts`).
 */
export function buildStub(input: StubInput, tokenizer: Tokenizer, limit: number): { content: string; tokens: number } {
  let path = input.path;
  for (;;) {
    const content = renderStub({ ...input, path });
    const tokens = tokenizer.count(content);
    if (limit < 0 || tokens <= limit) return { content, tokens };
    if (path.length <= MIN_PATH_CHARS) {
      const cut = cutToLimit(content, { tokenizer, limit, commentPrefix: '' });
      return { content: cut, tokens: tokenizer.count(cut) };
    }
    path = shortenMiddle(path, Math.floor(path.length * 0.6));
  }
}

function renderStub(input: StubInput): string {
  const date = Number.isFinite(input.lastModifiedMs) ? new Date(input.lastModifiedMs).toISOString().replace(/\.\d{3}Z$/, 'Z') : 'unknown';
  return [`path: ${input.path}`, `type: ${input.fileType}`, `last modified: ${date}`, `lines: ${input.lineCount}`].join('\n');
}

function shortenMiddle(path: string, chars: number): string {
  const head = Math.ceil((chars - 1) / 2);
  const tail = chars - 1 - head;
  return `${path.slice(0, head)}…${path.slice(path.length - tail)}`;
}
