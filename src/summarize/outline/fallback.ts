import type { OutlineItem } from './types.js';

/** The header block kept from the top of an unrecognised file, at most this many lines. */
export const FALLBACK_HEADER_LINES = 10;

/**
 * The line-based outline for files no other outliner knows: the header block (lines up to the
 * first blank line, at most FALLBACK_HEADER_LINES), then every non-blank line that starts at
 * column 0, with each run of indented lines below it replaced by `  … N lines`. Shortening then
 * drops lines from the end.
 */
export function outlineLines(content: string): OutlineItem[] {
  const lines = content.split('\n').map((l) => l.replace(/\r$/, ''));
  const items: OutlineItem[] = [];
  let row = 0;
  const header: string[] = [];
  while (row < lines.length && header.length < FALLBACK_HEADER_LINES && (lines[row] ?? '').trim() !== '') header.push(lines[row++]!);
  if (header.length > 0) items.push(item(header, 0, row - 1, true));
  while (row < lines.length) {
    const text = lines[row]!;
    if (text.trim() === '' || /^\s/.test(text)) {
      row += 1;
      continue;
    }
    const start = row;
    row += 1;
    let indented = 0;
    while (row < lines.length && (/^\s/.test(lines[row]!) || lines[row]!.trim() === '')) {
      if (lines[row]!.trim() !== '') indented += 1;
      row += 1;
    }
    items.push(item(indented > 0 ? [text, `  … ${indented} ${indented === 1 ? 'line' : 'lines'}`] : [text], start, start, false));
  }
  return items;
}

function item(lines: string[], startRow: number, endRow: number, isHeader: boolean): OutlineItem {
  return { kind: 'line', isDefinition: false, exported: true, depth: 0, isHeader, startRow, endRow, firstRow: startRow, lines, children: [], closing: [] };
}
