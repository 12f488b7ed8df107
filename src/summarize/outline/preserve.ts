import type { OutlineItem } from './types.js';
import { PRESERVE_NAMES, type PreserveName } from '../../config/summary-entries.js';

export { PRESERVE_NAMES };

/**
 * spec 003 `summarization.levels.detailed.preserve`: which structure the detailed level keeps.
 * Each entry names a group of definition kinds; items of a kind whose group is not listed are
 * left out (their nested items too). Imports, statements, headings and data keys always stay.
 */
export const PRESERVE_GROUPS: Readonly<Record<PreserveName, ReadonlySet<string>>> = {
  'function signatures': new Set(['function', 'method', 'constructor', 'macro']),
  'class definitions': new Set(['class', 'struct', 'record', 'trait', 'impl', 'module', 'namespace', 'union', 'property', 'field', 'variable', 'constant']),
  'interface types': new Set(['interface', 'type', 'enum']),
  'comments/docstrings': new Set(['comment']),
};

/** True when `preserve` keeps everything, so the outline (and its cache key) is the default one. */
export function preservesAll(preserve: readonly string[]): boolean {
  return PRESERVE_NAMES.every((name) => preserve.includes(name));
}

/** The outline with only the preserved kinds; comments attached to definitions go with "comments/docstrings". */
export function applyPreserve(items: OutlineItem[], preserve: readonly string[]): OutlineItem[] {
  if (preservesAll(preserve)) return items;
  const dropped = new Set(PRESERVE_NAMES.filter((name) => !preserve.includes(name)).flatMap((name) => [...PRESERVE_GROUPS[name]]));
  const keepDocs = preserve.includes('comments/docstrings');
  const visit = (list: OutlineItem[]): OutlineItem[] =>
    list
      .filter((item) => !(dropped.has(item.kind) && !item.isHeader))
      .map((item) => {
        const docLines = item.doc?.length ?? 0;
        const lines = !keepDocs && docLines > 0 ? item.lines.slice(docLines) : item.lines;
        return { ...item, lines, ...(keepDocs ? {} : { doc: [] }), children: visit(item.children) };
      });
  return visit(items);
}
