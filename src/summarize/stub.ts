import type { Tokenizer } from '../tokenize/tokenizer.js';
import { cutToLimit } from './outline/render.js';
import { STUB_FIELD_NAMES, type StubFieldName } from '../config/summary-entries.js';

export { STUB_FIELD_NAMES };

export interface StubInput {
  path: string;
  fileType: string;
  /** Last commit time, else mtime, epoch ms. */
  lastModifiedMs: number;
  lineCount: number;
}

/** Paths longer than this are shortened in the middle when the stub is over its limit. */
const MIN_PATH_CHARS = 24;

/** spec 003 `stub.include` entries and the line each renders. */
export const STUB_FIELDS: Readonly<Record<StubFieldName, (input: StubInput) => string>> = {
  'file path': (input) => `path: ${input.path}`,
  'file type': (input) => `type: ${input.fileType}`,
  'last modified': (input) => `last modified: ${Number.isFinite(input.lastModifiedMs) ? new Date(input.lastModifiedMs).toISOString().replace(/\.\d{3}Z$/, 'Z') : 'unknown'}`,
  'line count': (input) => `lines: ${input.lineCount}`,
};

/**
 * The stub of spec 003: by default file path, file type, last modified (UTC, ISO 8601) and line
 * count, in that order; `include` picks which (the path is always kept: a stub must say what it
 * stands for). A path too long for the limit is shortened in the middle (`src/…/deep/file.ts`).
 */
export function buildStub(
  input: StubInput,
  tokenizer: Tokenizer,
  limit: number,
  include: readonly string[] = STUB_FIELD_NAMES,
): { content: string; tokens: number } {
  let path = input.path;
  for (;;) {
    const content = renderStub({ ...input, path }, include);
    const tokens = tokenizer.count(content);
    if (limit < 0 || tokens <= limit) return { content, tokens };
    if (path.length <= MIN_PATH_CHARS) {
      const cut = cutToLimit(content, { tokenizer, limit, commentPrefix: '' });
      return { content: cut, tokens: tokenizer.count(cut) };
    }
    path = shortenMiddle(path, Math.floor(path.length * 0.6));
  }
}

function renderStub(input: StubInput, include: readonly string[]): string {
  return STUB_FIELD_NAMES.filter((name) => name === 'file path' || include.includes(name))
    .map((name) => STUB_FIELDS[name](input))
    .join('\n');
}

function shortenMiddle(path: string, chars: number): string {
  const head = Math.ceil((chars - 1) / 2);
  const tail = chars - 1 - head;
  return `${path.slice(0, head)}…${path.slice(path.length - tail)}`;
}
