import type { TierName } from '../types.js';
import type { RenderFormat } from '../stages.js';
import type { Tokenizer } from '../tokenize/tokenizer.js';
import { TIER_NAMES } from '../config/schema.js';
import { getOutputFormat, type FileBlockInput, type MessageBlockInput, type RenderedSection } from './formats/index.js';
import type { BootHeader } from './boot-header.js';

export type { FileBlockInput, MessageBlockInput, RenderedSection } from './formats/index.js';

/**
 * One file's block in a format, e.g. `<context path="src/a.ts" level="full" tokens="12">...</context>`.
 * Prints `tokens` as given; fileBlockCost (what the allocator uses) prints the block's own cost.
 */
export function renderFileBlock(input: FileBlockInput, format: RenderFormat): string {
  return getOutputFormat(format).fileBlock(input);
}

/** One history message's block in a format. */
export function renderMessageBlock(input: MessageBlockInput, format: RenderFormat): string {
  return getOutputFormat(format).messageBlock(input);
}

/**
 * What a block costs inside a document: the tokens of the block followed by the format's
 * separator. Block boundaries in every format fall between `>\n`/`}\n`/fence-newline and the next
 * block's first character, where BPE pre-tokenisation always splits, so these costs add up.
 */
export function blockCost(block: string, format: RenderFormat, tokenizer: Tokenizer): number {
  return tokenizer.count(block + getOutputFormat(format).blockSeparator);
}

/** The header, full or minimal, as text. */
export function renderHeader(header: BootHeader | { minimal: true; available: number }, format: RenderFormat): string {
  const f = getOutputFormat(format);
  return 'minimal' in header ? f.minimalHeader(header.available) : f.header(header);
}

/** Header text plus one section per tier, in tier order. */
export function renderDocument(headerText: string, blocks: Record<TierName, string[]>, format: RenderFormat): string {
  const sections: RenderedSection[] = TIER_NAMES.map((tier) => ({ tier, blocks: blocks[tier] }));
  return getOutputFormat(format).document(headerText, sections);
}

/**
 * Tokens a document's structure costs beyond its header and blocks, counted on a skeleton
 * whose every tier holds one empty block (an upper bound for any non-empty section).
 */
export function structureCost(format: RenderFormat, tokenizer: Tokenizer): number {
  const empty = Object.fromEntries(TIER_NAMES.map((tier) => [tier, ['']])) as Record<TierName, string[]>;
  return Math.max(0, tokenizer.count(renderDocument('', empty, format)));
}
