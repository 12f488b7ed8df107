import type { OutlineItem } from '../outline/types.js';
import { withListedExports, type BlockOutline, type ListedExports } from './outline.js';

/** One block's outline and the file row it starts at. */
export interface PlacedBlock {
  block: BlockOutline;
  row: number;
}

/**
 * A file's outline from its blocks' (blocks.ts): their items in order, moved to the file's rows,
 * with the module's export list applied across all of them. The list is the first exclusive one
 * (Python's `__all__`: the first assignment is the surface), else every block's names together
 * (CommonJS `exports.x = ...` may come in several places).
 */
export function composeBlocks(parts: readonly PlacedBlock[]): OutlineItem[] {
  if (parts.length === 1 && parts[0]!.row === 0) return withListedExports(parts[0]!.block.items, parts[0]!.block.listed);
  const items: OutlineItem[] = [];
  for (const { block, row } of parts) for (const item of block.items) items.push(row === 0 ? item : shifted(item, row));
  return withListedExports(items, mergedListing(parts));
}

function mergedListing(parts: readonly PlacedBlock[]): ListedExports | undefined {
  const first = parts.find((part) => part.block.listed !== undefined)?.block.listed;
  if (first === undefined || first.exclusive) return first;
  const names = new Set<string>();
  for (const { block } of parts) if (block.listed && !block.listed.exclusive) for (const name of block.listed.names) names.add(name);
  return { names: [...names], exclusive: false };
}

/** A copy of an item (children included) `by` rows further down. */
function shifted(item: OutlineItem, by: number): OutlineItem {
  return {
    ...item,
    startRow: item.startRow + by,
    endRow: item.endRow + by,
    firstRow: item.firstRow + by,
    children: item.children.map((child) => shifted(child, by)),
  };
}
