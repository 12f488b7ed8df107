import type { OutlineItem } from './types.js';

/** The outline of a query-aware detailed level and the source text of each definition it shows whole. */
export interface FocusedOutline {
  items: OutlineItem[];
  /** The verbatim rows of every pinned definition, joined by newlines: present in the rendered text when it kept them. */
  bodies: string[];
}

/**
 * The query-aware detailed level's outline (issue 16): every definition whose name the task
 * writes as code is shown whole (its source rows in place of the elided signature, nested items
 * folded into it) and pinned, so rendering within the limit drops the rest first; every other
 * item keeps its task-independent outline lines. Undefined when no definition matches, so such a
 * file keeps the task-independent detailed level. Pure and deterministic.
 */
export function focusOutline(items: OutlineItem[], content: string, names: ReadonlySet<string>): FocusedOutline | undefined {
  if (names.size === 0) return undefined;
  const rows = content.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  const bodies: string[] = [];
  const visit = (list: OutlineItem[]): OutlineItem[] =>
    list.map((item) => {
      if (item.isDefinition && item.name !== undefined && names.has(item.name)) {
        const source = rows.slice(item.startRow, item.endRow + 1);
        bodies.push(source.join('\n'));
        return { ...item, pinned: true, lines: [...(item.doc ?? []), ...source], children: [], closing: [] };
      }
      if (item.children.length === 0) return item;
      const before = bodies.length;
      const children = visit(item.children);
      // A container of a pinned definition is pinned too: dropping it would drop what it holds.
      return { ...item, children, ...(bodies.length > before ? { pinned: true } : {}) };
    });
  const focused = visit(items);
  return bodies.length === 0 ? undefined : { items: focused, bodies };
}

/** Whether `content` has one of `names` as a whole word: the cheap test before a file is parsed for a focus. */
export function mentionsAny(content: string, names: readonly string[]): boolean {
  return names.some((name) => {
    let at = content.indexOf(name);
    while (at !== -1) {
      const before = content[at - 1];
      const after = content[at + name.length];
      if ((before === undefined || !/[\w$]/.test(before)) && (after === undefined || !/[\w$]/.test(after))) return true;
      at = content.indexOf(name, at + 1);
    }
    return false;
  });
}
