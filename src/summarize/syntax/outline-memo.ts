import { FifoMemo } from '../../util/fifo-memo.js';
import type { OutlineItem } from '../outline/types.js';

/**
 * The process's memo of syntax outlines (SyntaxEngine.outline): a long-lived process parses a
 * blob once for all its queries (the query-aware detailed level asks again whenever a task names
 * a definition of it), and the outline pool (outline-pool.ts) does not send a text whose outline
 * is known.
 */

/** Texts whose outlines are remembered, and their characters, before the oldest go. */
const OUTLINE_MEMO_MAX = 4096;
const OUTLINE_MEMO_MAX_CHARS = 64_000_000;
/** Text -> language id -> its outline (the text is the key: no hash of it is computed). */
const outlines = new FifoMemo<string, Map<string, OutlineItem[] | null>>({
  maxEntries: OUTLINE_MEMO_MAX,
  maxWeight: OUTLINE_MEMO_MAX_CHARS,
  weigh: (content) => content.length,
});

export function rememberOutline(content: string, languageId: string, items: OutlineItem[] | null): void {
  const known = outlines.get(content);
  if (known) {
    known.set(languageId, items);
    return;
  }
  outlines.set(content, new Map([[languageId, items]]));
}

/** The remembered outline of a text in a language: undefined when not remembered (null: not parsable). */
export function knownOutline(content: string, languageId: string): OutlineItem[] | null | undefined {
  return outlines.get(content)?.get(languageId);
}
