import type { RenderFormat } from '../stages.js';
import { LRUCache } from 'lru-cache';
import { countAll, isLongLived, splitsExactly, type Tokenizer } from '../tokenize/tokenizer.js';
import { getOutputFormat, type FileBlockInput, type OutputFormat } from './formats/index.js';
import { isSafeSplitAt, nextSafeSplit } from '../tokenize/safe-split.js';

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
  return fileBlockCosts([input], format, tokenizer)[0]!;
}

/**
 * fileBlockCost of many blocks, each exactly as alone, with the counting batched: one round of
 * the settling loop for every block at once, so a tokenizer counting in another thread is asked
 * at most SETTLE_ROUNDS + 1 times however many blocks there are (an allocation builds ~1,000).
 */
export function fileBlockCosts(inputs: readonly FileBlockInput[], format: RenderFormat, tokenizer: Tokenizer): Array<{ block: string; cost: number }> {
  const f = getOutputFormat(format);
  const results = new Array<{ block: string; cost: number }>(inputs.length);
  const shown = inputs.map((input) => input.tokens);
  const kept = keptCosts(tokenizer);
  const keys = kept === undefined ? [] : inputs.map((input) => keptKey(format, input));
  let pending = kept === undefined ? inputs.map((_, i) => i) : inputs.flatMap((input, i) => {
    const hit = kept.get(keys[i]!);
    if (hit === undefined || hit.content !== input.content) return [i];
    results[i] = { block: hit.block, cost: hit.cost };
    return [];
  });
  const computed = pending;
  for (let round = 0; pending.length > 0; round++) {
    const plans = pending.map((i) => planCost(inputs[i]!, shown[i]!, f, tokenizer));
    const counts = countAll(tokenizer, plans.flatMap((plan) => plan.texts));
    let at = 0;
    const next: number[] = [];
    plans.forEach((plan, k) => {
      const i = pending[k]!;
      const cost = plan.cost(counts.slice(at, at + plan.texts.length));
      at += plan.texts.length;
      results[i] = { block: plan.block, cost };
      // the printed number settles, or gives up after SETTLE_ROUNDS re-renders
      if (cost !== shown[i] && round < SETTLE_ROUNDS) {
        shown[i] = cost;
        next.push(i);
      }
    });
    pending = next;
  }
  if (kept !== undefined) for (const i of computed) kept.set(keys[i]!, { content: inputs[i]!.content, ...results[i]! });
  return results;
}

/** Characters of content whose block costs a long-lived tokenizer keeps (about 2 bytes each, blocks included). */
const KEPT_CHARS = 32 * 1024 * 1024;
const keptByTokenizer = new WeakMap<Tokenizer, LRUCache<string, { content: string; block: string; cost: number }>>();

/**
 * The block costs kept for a long-lived tokenizer (isLongLived: the warm index's, whose queries
 * cost the same blocks again); none for a one-shot run, which costs each block once.
 */
function keptCosts(tokenizer: Tokenizer): LRUCache<string, { content: string; block: string; cost: number }> | undefined {
  if (!isLongLived(tokenizer)) return undefined;
  let kept = keptByTokenizer.get(tokenizer);
  if (kept === undefined) {
    kept = new LRUCache({ max: 100_000, maxSize: KEPT_CHARS, sizeCalculation: (entry) => 2 * entry.content.length + 1 });
    keptByTokenizer.set(tokenizer, kept);
  }
  return kept;
}

/** What a block's cost depends on besides its content (checked on a hit): the format and the input's other fields. */
function keptKey(format: RenderFormat, input: FileBlockInput): string {
  return `${format}\0${input.level}\0${input.tokens}\0${input.truncated === true ? 1 : 0}\0${input.path}`;
}

/** Re-renders before the printed cost settles; digits change at most once or twice. */
const SETTLE_ROUNDS = 4;

/** A block printing `shown` as its cost, the texts its cost is counted from, and how. */
function planCost(file: FileBlockInput, shown: number, f: OutputFormat, tokenizer: Tokenizer): { block: string; texts: string[]; cost: (counts: number[]) => number } {
  const input = { ...file, tokens: shown };
  const parts = splitsExactly(tokenizer) ? f.fileBlockParts?.(input) : null;
  if (!parts) {
    const block = f.fileBlock(input);
    return { block, texts: [block + f.blockSeparator], cost: ([whole]) => whole! };
  }
  // By the OutputFormat contract this is exactly f.fileBlock(input) (tested for every format).
  const block = parts.prefix + input.content + parts.suffix;
  const { content, tokens } = file;
  const first = nextSafeSplit(content);
  if (first < 0) return { block, texts: [block + f.blockSeparator], cost: ([whole]) => whole! };
  const last = lastSafeSplit(content);
  const head = content.slice(0, first);
  const tail = content.slice(last);
  return {
    block,
    texts: [head, tail, parts.prefix + head, tail + parts.suffix + f.blockSeparator],
    cost: ([headTokens, tailTokens, opening, closing]) => opening! + (tokens - headTokens! - tailTokens!) + closing!,
  };
}

/** The last safe split point (src/tokenize/safe-split.ts); callers only use it when there is a first one. */
function lastSafeSplit(content: string): number {
  let i = content.lastIndexOf('\n', content.length - 2);
  while (i >= 0) {
    if (i + 1 < content.length && isSafeSplitAt(content, i + 1)) return i + 1;
    i = i === 0 ? -1 : content.lastIndexOf('\n', i - 1);
  }
  return -1;
}
