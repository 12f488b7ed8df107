import type { Level, TierName } from '../../types.js';
import type { RenderFormat } from '../../stages.js';
import type { BootHeader, WorkingSetHeader } from '../boot-header.js';

/**
 * One file at one level, ready to wrap. `tokens` is the number the block prints: fileBlockCost
 * passes the content's count in and renders with the block's own cost, so output, report and
 * record agree.
 */
export interface FileBlockInput {
  path: string;
  level: Level;
  content: string;
  tokens: number;
  truncated?: boolean;
}

/** One history message, ready to wrap. `index` is its position in the input history. */
export interface MessageBlockInput {
  index: number;
  role: string;
  content: string;
  tokens: number;
  toolCallId?: string;
  truncated?: boolean;
}

/** One file of a working set under its role (spec 001 section 5), ready to wrap. */
export interface RoleBlockInput {
  path: string;
  /** A manifest role (system, context, ...): the element name in xml. */
  role: string;
  content: string;
  level: Level;
  truncated: boolean;
}

/**
 * A working set's document in this format (spec 001): the boot header of section 7, then one
 * block per file under its role, no tiers. A document is `header + (separator + block)* + a
 * closing`, so a block's price is `count(separator + block)`.
 */
export interface WorkingSetShape {
  readonly separator: string;
  header(fields: WorkingSetHeader): string;
  block(input: RoleBlockInput): string;
  document(header: string, blocks: string[]): string;
}

/** A tier's rendered blocks, in order. */
export interface RenderedSection {
  tier: TierName;
  blocks: string[];
}

/**
 * An output format: one file in src/assemble/formats registered in index.ts.
 * Every block is followed by `blockSeparator` (counted in the block's cost), so the cost of a
 * document is its header, its section wrappers and the sum of its blocks.
 */
export interface OutputFormat {
  readonly id: RenderFormat;
  readonly blockSeparator: string;
  fileBlock(input: FileBlockInput): string;
  /**
   * When the block holds the content verbatim: the text before and after it, so that
   * `prefix + content + suffix === fileBlock(input)` (lets block costs be counted in parts).
   * Null or absent when the content is transformed (escaped).
   */
  fileBlockParts?(input: FileBlockInput): { prefix: string; suffix: string } | null;
  messageBlock(input: MessageBlockInput): string;
  header(header: BootHeader): string;
  /** The smallest valid header, for budgets too small for the full one. */
  minimalHeader(available: number): string;
  /** Header text (from `header` or `minimalHeader`) plus the sections. */
  document(header: string, sections: RenderedSection[]): string;
  /** The same format for a working set (`aiwg assemble`). */
  readonly workingSet: WorkingSetShape;
}
