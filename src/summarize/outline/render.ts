import type { Tokenizer } from '../../tokenize/tokenizer.js';
import type { OutlineItem } from './types.js';

export interface RenderLimit {
  tokenizer: Tokenizer;
  /** Token limit of the rendered text; -1 = none. */
  limit: number;
  /** Comment prefix for the omission marker line. */
  commentPrefix: string;
}

/**
 * Render an outline within a token limit. When the whole outline is over the limit, items are
 * dropped least important first (see `dropRank`), a trailing marker line says how many were
 * dropped, and the smallest number of drops that fits is found by binary search on exact counts.
 * If even the header alone is too long, the text is cut on a line boundary with a marker.
 */
export function renderOutline(items: OutlineItem[], options: RenderLimit): string {
  const { tokenizer, limit } = options;
  const full = renderItems(items, new Set());
  if (limit < 0) return full;
  const fullTokens = tokenizer.count(full);
  if (fullTokens <= limit) return full;
  const order = dropOrder(items);
  const exact = new Map<number, string>();
  const render = (k: number) => {
    let text = exact.get(k);
    if (text === undefined) {
      const dropped = new Set(order.slice(0, k));
      text = withMarker(renderItems(items, dropped), countRemoved(items, dropped), options);
      exact.set(k, text);
    }
    return text;
  };
  const fits = (k: number) => k > 0 && tokenizer.count(render(k)) <= limit;
  const n = order.length;
  if (!fits(n)) return cutToLimit(render(n), options);
  // Find the fewest drops that fit. Per-item estimates give a first guess (token counts are
  // nearly proportional to characters over a file); exact counts then gallop from it and
  // bisect, so a large outline costs a handful of exact counts instead of log2(items).
  const guess = estimateDrops(items, order, full, fullTokens, limit);
  let lo: number;
  let hi: number;
  if (fits(guess)) {
    hi = guess;
    let step = 1;
    lo = guess - 1;
    while (fits(lo)) {
      hi = lo;
      step *= 2;
      lo = Math.max(0, hi - step);
    }
  } else {
    lo = guess;
    let step = 1;
    hi = Math.min(n, guess + 1);
    while (!fits(hi)) {
      lo = hi;
      step *= 2;
      hi = Math.min(n, lo + step);
    }
  }
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (fits(mid)) hi = mid;
    else lo = mid;
  }
  return render(hi);
}

/**
 * Smallest number of drops whose estimated tokens fit, at least 1. An item's own tokens are
 * estimated from its characters at the whole outline's exact tokens-per-character: a guess only
 * (the exact search starts from it), and one that costs no counting.
 */
function estimateDrops(items: OutlineItem[], order: OutlineItem[], fullText: string, total: number, limit: number): number {
  const perChar = fullText.length > 0 ? total / fullText.length : 0;
  const own = new Map<OutlineItem, number>();
  const measure = (list: OutlineItem[]) => {
    for (const item of list) {
      let chars = 0;
      for (const line of item.lines) chars += line.length + 1;
      for (const line of item.closing) chars += line.length + 1;
      own.set(item, Math.ceil(chars * perChar));
      measure(item.children);
    }
  };
  measure(items);
  const removed = new Set<OutlineItem>();
  const remove = (item: OutlineItem): number => {
    if (removed.has(item)) return 0;
    removed.add(item);
    return (own.get(item) ?? 0) + item.children.reduce((sum, child) => sum + remove(child), 0);
  };
  const markerAllowance = 16;
  let left = total;
  for (let k = 1; k <= order.length; k++) {
    left -= remove(order[k - 1]!);
    if (left + markerAllowance <= limit) return k;
  }
  return order.length;
}

/**
 * Lower ranks are kept longer: private before exported, nested before top level.
 * 6 nested private, 5 top-level private or plain statement, 4 nested exported, 3 import,
 * 2 top-level exported, 1 file header or a definition the task names (pinned).
 */
export function dropRank(item: OutlineItem): number {
  if (item.isHeader || item.pinned) return 1;
  if (item.kind === 'import') return 3;
  const nested = item.depth > 0;
  if (item.exported) return nested ? 4 : 2;
  return nested ? 6 : 5;
}

/** Items in the order they are dropped: highest rank first, then later in the file, deeper first. */
export function dropOrder(items: OutlineItem[]): OutlineItem[] {
  const all: OutlineItem[] = [];
  const visit = (list: OutlineItem[]) => {
    for (const item of list) {
      all.push(item);
      visit(item.children);
    }
  };
  visit(items);
  return all.sort((a, b) => dropRank(b) - dropRank(a) || b.startRow - a.startRow || b.depth - a.depth);
}

/** Items removed by dropping `dropped`: each dropped item and everything nested in it. */
function countRemoved(items: OutlineItem[], dropped: ReadonlySet<OutlineItem>): number {
  let count = 0;
  const visit = (list: OutlineItem[], parentDropped: boolean) => {
    for (const item of list) {
      const isDropped = parentDropped || dropped.has(item);
      if (isDropped) count += 1;
      visit(item.children, isDropped);
    }
  };
  visit(items, false);
  return count;
}

/** Lines of the kept items; a blank line is kept where the source had one between siblings. */
export function renderItems(items: OutlineItem[], dropped: ReadonlySet<OutlineItem>): string {
  const out: string[] = [];
  const visit = (list: OutlineItem[]) => {
    let previousEnd: number | undefined;
    for (const item of list) {
      if (dropped.has(item)) continue;
      if (previousEnd !== undefined && item.firstRow > previousEnd + 1) out.push('');
      out.push(...item.lines);
      visit(item.children);
      out.push(...item.closing);
      previousEnd = Math.max(item.endRow, item.startRow);
    }
  };
  visit(items);
  return out.join('\n');
}

function withMarker(text: string, dropped: number, options: RenderLimit): string {
  if (dropped === 0) return text;
  const marker = `${markerPrefix(options)}… ${dropped} ${dropped === 1 ? 'item' : 'items'} omitted to fit ${options.limit} tokens`;
  return text === '' ? marker : `${text}\n${marker}`;
}

/** Last resort: keep whole lines from the top while they fit, then a marker line. */
export function cutToLimit(text: string, options: RenderLimit): string {
  const { tokenizer, limit } = options;
  if (tokenizer.count(text) <= limit) return text;
  const lines = text.split('\n');
  const marker = (kept: number) => `${markerPrefix(options)}… ${lines.length - kept} more lines cut to fit ${limit} tokens`;
  const attempt = (kept: number) => [...lines.slice(0, kept), marker(kept)].join('\n');
  let lo = 0;
  let hi = lines.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (tokenizer.count(attempt(mid)) <= limit) lo = mid;
    else hi = mid - 1;
  }
  const result = attempt(lo);
  if (tokenizer.count(result) <= limit) return result;
  // Even the marker alone is over a tiny limit: return as many whole lines as fit, or nothing.
  return lines.slice(0, Math.max(0, lo)).join('\n');
}

function markerPrefix(options: RenderLimit): string {
  return options.commentPrefix === '' ? '' : `${options.commentPrefix} `;
}
