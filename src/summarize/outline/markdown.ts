import type { OutlineItem } from './types.js';

const MARKDOWN_EXTENSIONS = new Set(['.md', '.markdown', '.mdx', '.mdown', '.rst']);

export function isMarkdownPath(path: string): boolean {
  const dot = path.lastIndexOf('.');
  return dot >= 0 && MARKDOWN_EXTENSIONS.has(path.slice(dot).toLowerCase());
}

interface Heading {
  level: number;
  row: number;
  text: string;
}

/**
 * Heading outline of a Markdown document: every heading with the first sentence of its
 * section, nested by level. Text before the first heading (title or front matter) is the header.
 */
export function outlineMarkdown(content: string): OutlineItem[] {
  const lines = content.split('\n').map((l) => l.replace(/\r$/, ''));
  const headings = findHeadings(lines);
  const items: OutlineItem[] = [];
  const firstHeadingRow = headings[0]?.row ?? lines.length;
  const intro = firstSentence(lines, 0, firstHeadingRow);
  if (intro !== undefined) {
    items.push({ kind: 'comment', isDefinition: false, exported: true, depth: 0, isHeader: true, startRow: 0, endRow: Math.max(0, firstHeadingRow - 1), firstRow: 0, lines: [intro], children: [], closing: [] });
  }
  const stack: Array<{ level: number; item: OutlineItem }> = [];
  headings.forEach((heading, index) => {
    while (stack.length > 0 && stack.at(-1)!.level >= heading.level) stack.pop();
    const sectionEnd = headings[index + 1]?.row ?? lines.length;
    const sentence = firstSentence(lines, heading.row + 1, sectionEnd);
    const depth = stack.length;
    const item: OutlineItem = {
      kind: 'heading',
      name: heading.text.replace(/^#+\s*/, ''),
      isDefinition: false,
      exported: true,
      depth,
      startRow: heading.row,
      // The section runs to the next heading: sections render without blank lines between them.
      endRow: sectionEnd - 1,
      firstRow: heading.row,
      lines: sentence === undefined ? [heading.text] : [heading.text, sentence],
      children: [],
      closing: [],
    };
    (depth === 0 ? items : stack.at(-1)!.item.children).push(item);
    for (const open of stack) open.item.endRow = Math.max(open.item.endRow, item.endRow);
    stack.push({ level: heading.level, item });
  });
  return items;
}

/** ATX (`## Title`) and setext (`Title` over `===`/`---`) headings outside code fences. */
function findHeadings(lines: string[]): Heading[] {
  const headings: Heading[] = [];
  let fence: string | undefined;
  const frontMatterEnd = lines[0]?.trim() === '---' ? lines.findIndex((l, i) => i > 0 && l.trim() === '---') : -1;
  lines.forEach((line, row) => {
    if (row <= frontMatterEnd) return;
    const fenceMatch = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fenceMatch) {
      if (fence === undefined) fence = fenceMatch[1]![0];
      else if (fenceMatch[1]![0] === fence) fence = undefined;
      return;
    }
    if (fence !== undefined) return;
    const atx = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (atx) {
      headings.push({ level: atx[1]!.length, row, text: `${atx[1]} ${atx[2]}` });
      return;
    }
    const previous = lines[row - 1];
    if (row > 0 && previous !== undefined && previous.trim() !== '' && /^\s{0,3}(=+|-+)\s*$/.test(line) && !headings.some((h) => h.row === row - 1)) {
      const level = line.trim().startsWith('=') ? 1 : 2;
      if (level === 2 && /^\s*[-*+]\s/.test(previous)) return;
      headings.push({ level, row: row - 1, text: `${'#'.repeat(level)} ${previous.trim()}` });
    }
  });
  // A setext underline pushes its heading after the text line was passed: keep row order.
  return headings.sort((a, b) => a.row - b.row);
}

/** First sentence of the first prose paragraph in [from, to): no code, tables, front matter. */
export function firstSentence(lines: string[], from: number, to: number): string | undefined {
  let paragraph: string[] = [];
  let fence = false;
  let frontMatter = from === 0 && lines[0]?.trim() === '---';
  for (let row = frontMatter ? 1 : from; row < to; row++) {
    const line = (lines[row] ?? '').trim();
    if (frontMatter) {
      if (line === '---') frontMatter = false;
      continue;
    }
    if (/^(`{3,}|~{3,})/.test(line)) {
      fence = !fence;
      if (paragraph.length > 0) break;
      continue;
    }
    if (fence) continue;
    const skippable = line === '' || line.startsWith('|') || line.startsWith('<!--') || /^(=+|-+)$/.test(line) || line.startsWith('![') || line.startsWith('#');
    if (skippable) {
      if (paragraph.length > 0) break;
      continue;
    }
    paragraph.push(line.replace(/^[-*+>]\s+|^\d+[.)]\s+/, ''));
  }
  if (paragraph.length === 0) return undefined;
  const text = paragraph.join(' ');
  const end = /[.!?](?=\s|$)/.exec(text);
  return end ? text.slice(0, end.index + 1) : text;
}
