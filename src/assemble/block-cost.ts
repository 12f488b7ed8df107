import type { RenderFormat } from '../stages.js';
import { countAll, type Tokenizer } from '../tokenize/tokenizer.js';
import { getOutputFormat, type FileBlockInput } from './formats/index.js';
import { isSafeStart, nextSafeSplit } from '../tokenize/safe-split.js';

/**
 * The exact cost of a file block (block + separator) without re-tokenising the whole content.
 *
 * At a safe BPE split point (src/tokenize/safe-split.ts) count(A + B) = count(A) + count(B).
 * With the content's own count known (LevelContent.tokens), a block then costs
 *   count(prefix + head) + (tokens - count(head) - count(tail)) + count(tail + suffix)
 * where head ends at the first safe point and tail starts at the last: a few short counts
 * instead of the whole file. Without a safe point, or when the format transforms the content
 * (escaping), the block is counted whole. test/assemble/block-cost.test.ts checks equality.
 *
 * `input.tokens` is the content's own count. The block prints its own cost instead (the number
 * the report and the record give for the file), found by re-rendering until the printed number
 * equals the cost; a number whose width flips it back and forth stops after SETTLE_ROUNDS with
 * the cost of the block as returned.
 */
export function fileBlockCost(input: FileBlockInput, format: RenderFormat, tokenizer: Tokenizer): { block: string; cost: number } {
  let shown = input.tokens;
  let result = costWithShown(input, shown, format, tokenizer);
  for (let round = 0; round < SETTLE_ROUNDS && result.cost !== shown; round++) {
    shown = result.cost;
    result = costWithShown(input, shown, format, tokenizer);
  }
  return result;
}

/** Re-renders before the printed cost settles; digits change at most once or twice. */
const SETTLE_ROUNDS = 4;

function costWithShown(file: FileBlockInput, shown: number, format: RenderFormat, tokenizer: Tokenizer): { block: string; cost: number } {
  const input = { ...file, tokens: shown };
  const f = getOutputFormat(format);
  const parts = tokenizer.id === 'chars4' ? null : f.fileBlockParts?.(input);
  if (!parts) {
    const block = f.fileBlock(input);
    return { block, cost: tokenizer.count(block + f.blockSeparator) };
  }
  // By the OutputFormat contract this is exactly f.fileBlock(input) (tested for every format).
  const block = parts.prefix + input.content + parts.suffix;
  const { content, tokens } = file;
  const first = nextSafeSplit(content);
  if (first < 0) return { block, cost: tokenizer.count(block + f.blockSeparator) };
  const last = lastSafeSplit(content);
  const head = content.slice(0, first);
  const tail = content.slice(last);
  // one batch: a tokenizer counting in another thread answers the four at once
  const [headTokens, tailTokens, opening, closing] = countAll(tokenizer, [head, tail, parts.prefix + head, tail + parts.suffix + f.blockSeparator]) as [number, number, number, number];
  return { block, cost: opening + (tokens - headTokens - tailTokens) + closing };
}

/** The last safe split point (src/tokenize/safe-split.ts); callers only use it when there is a first one. */
function lastSafeSplit(content: string): number {
  let i = content.lastIndexOf('\n', content.length - 2);
  while (i >= 0) {
    if (isSafeStart(content.charCodeAt(i + 1))) return i + 1;
    i = i === 0 ? -1 : content.lastIndexOf('\n', i - 1);
  }
  return -1;
}
