import { plural } from '../../util/format.js';
import type { Tree } from 'web-tree-sitter';
import { namedChildrenOf, type LanguageSpec, type SyntaxNode } from '../languages/types.js';
import type { OutlineItem } from '../outline/types.js';

/**
 * Part of every detailed-level cache key and of the outline block store's version: bump when
 * outlines change. 6: a file is outlined block by block (blocks.ts).
 */
export const OUTLINE_VERSION = 6;

/** Longest run of rows kept for a definition or import that has no body to elide. */
export const MAX_VERBATIM_ROWS = 20;

/** Elision marks: visible, and the same in every language. */
export const BRACE_MARKER = '{ … }';
export const INLINE_MARKER = '…';

/**
 * Turns a syntax tree into outline items: definitions with their bodies elided behind a marker,
 * containers (classes, interfaces, impls, namespaces) with their members, imports, comments and
 * top-level statements. Comments directly above a definition travel with it.
 */
export function buildSyntaxOutline(tree: Tree, content: string, language: LanguageSpec): OutlineItem[] {
  const block = outlineBlock(tree, content, language, false);
  return withListedExports(block.items, block.listed);
}

/** Names a text exports by a list (LanguageSpec.moduleExports), as plain data. */
export interface ListedExports {
  names: string[];
  exclusive: boolean;
}

/**
 * The outline of one top-level block of a file (blocks.ts), parsed on its own: its items before a
 * module's export list is applied (the list may sit in another block), the list it holds, and
 * whether code was seen by its end. `codeBefore`: code came in an earlier block (the comments and
 * directive at its top are then no header). `error`: the parse hit a syntax error, so the block
 * may have been cut in the wrong place and the whole file is parsed instead.
 */
export interface BlockOutline {
  items: OutlineItem[];
  listed?: ListedExports;
  codeSeen: boolean;
  error: boolean;
}

export function outlineBlock(tree: Tree, content: string, language: LanguageSpec, codeBefore: boolean): BlockOutline {
  const source = new SourceLines(content);
  const walker = new OutlineWalker(language, source);
  const items = walker.members(namedChildrenOf(tree.rootNode), 0, null, 0, codeBefore);
  const listed = language.moduleExports?.(tree.rootNode);
  return {
    items,
    ...(listed ? { listed: { names: [...listed.names], exclusive: listed.exclusive } } : {}),
    codeSeen: walker.codeSeen,
    error: tree.rootNode.hasError,
  };
}

/** Top-level items with a module's export list applied (copies of the items it changes). */
export function withListedExports(items: OutlineItem[], listed: ListedExports | undefined): OutlineItem[] {
  if (!listed) return items;
  const names = new Set(listed.names);
  return items.map((item) => {
    if (!item.isDefinition || item.name === undefined) return item;
    const exported = listed.exclusive ? names.has(item.name) : item.exported || names.has(item.name);
    return exported === item.exported ? item : { ...item, exported };
  });
}

class SourceLines {
  readonly lines: string[];
  private readonly starts: number[] = [0];

  constructor(readonly text: string) {
    this.lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.starts.push(i + 1);
  }

  rows(from: number, to: number): string[] {
    return this.lines.slice(from, to + 1);
  }

  lineStart(row: number): number {
    return this.starts[row] ?? this.text.length;
  }

  lineEnd(row: number): number {
    const next = this.starts[row + 1];
    return next === undefined ? this.text.length : next - 1;
  }

  /** Text between two offsets as lines (CR dropped). */
  split(text: string): string[] {
    return text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  }
}

/** Last row a node really occupies: a node ending at column 0 ends on the row before. */
function lastRow(node: SyntaxNode): number {
  const end = node.endPosition;
  return end.column === 0 && end.row > node.startPosition.row ? end.row - 1 : end.row;
}

interface Resolved {
  node: SyntaxNode;
  outer: SyntaxNode;
  kind: string;
  wrapped: boolean;
}

class OutlineWalker {
  /** Whether top-level code was seen (after the last members() call at depth 0). */
  codeSeen = false;

  constructor(
    private readonly lang: LanguageSpec,
    private readonly src: SourceLines,
  ) {}

  members(nodes: SyntaxNode[], depth: number, container: SyntaxNode | null, minRow: number, codeBefore = false): OutlineItem[] {
    const items: OutlineItem[] = [];
    let pending: SyntaxNode[] = [];
    let seenCode = codeBefore;
    // Last row already rendered: a trailing comment or statement on it (`}  // namespace x`) is not repeated.
    let covered = minRow - 1;
    const flushComments = (nodes: SyntaxNode[]) => {
      for (const group of groupAdjacent(nodes)) items.push(this.commentItem(group, depth, depth === 0 && !seenCode));
    };
    for (const node of nodes) {
      if (node.startPosition.row < minRow) continue;
      const resolvedHere = this.resolve(node);
      if (!resolvedHere && node.startPosition.row <= covered) continue;
      if (this.lang.comments.has(node.type)) {
        pending.push(node);
        continue;
      }
      const resolved = resolvedHere;
      const attached = resolved ? adjacentTail(pending, node.startPosition.row) : [];
      flushComments(pending.slice(0, pending.length - attached.length));
      pending = [];
      if (resolved) items.push(this.definitionItem(resolved, attached, depth, container, node.startPosition.row <= covered));
      else if (depth === 0 && !seenCode && isDocString(node)) {
        // A module docstring or a directive ('use strict'): still the file's header.
        items.push(this.plainItem(node, 'comment', depth, true));
        covered = Math.max(covered, items.at(-1)!.endRow);
        continue;
      } else if (depth > 0 && items.length === 0 && isDocString(node)) {
        // A class docstring documents its container: kept whole (up to MAX_VERBATIM_ROWS).
        items.push({ ...this.plainItem(node, 'comment', depth, true), isHeader: false });
      } else items.push(this.plainItem(node, this.isImport(node) ? 'import' : 'statement', depth, false));
      covered = Math.max(covered, items.at(-1)!.endRow);
      seenCode = true;
    }
    flushComments(pending);
    if (depth === 0) this.codeSeen = seenCode;
    return items;
  }

  private resolve(node: SyntaxNode): Resolved | undefined {
    if (this.lang.wrappers.has(node.type)) {
      const inner =
        node.childForFieldName('declaration') ??
        node.childForFieldName('definition') ??
        namedChildrenOf(node).find((c) => this.kindOf(c) !== undefined);
      const resolved = inner ? this.resolve(inner) : undefined;
      if (resolved) return { ...resolved, outer: node, wrapped: resolved.wrapped || node.type.startsWith('export') };
      return undefined;
    }
    const kind = this.kindOf(node);
    return kind === undefined ? undefined : { node, outer: node, kind, wrapped: false };
  }

  private isImport(node: SyntaxNode): boolean {
    return this.lang.imports.has(node.type) || this.lang.isImport?.(node) === true;
  }

  private kindOf(node: SyntaxNode): string | undefined {
    return this.lang.kindOf?.(node) ?? this.lang.definitions[node.type];
  }

  /**
   * `midLine`: the row is already rendered by the item before (`const a = 1; function f() {`), so
   * this item starts at its own column instead of repeating the row.
   */
  private definitionItem(def: Resolved, comments: SyntaxNode[], depth: number, container: SyntaxNode | null, midLine: boolean): OutlineItem {
    const { node, outer, kind } = def;
    const name = (this.lang.nameOf ? this.lang.nameOf(node) : node.childForFieldName('name')?.text) ?? '';
    const startRow = outer.startPosition.row;
    const endRow = lastRow(outer);
    const firstRow = comments[0]?.startPosition.row ?? startRow;
    const commentLines = comments.length > 0 ? this.src.rows(firstRow, startRow - 1) : [];
    const item: OutlineItem = {
      kind,
      name,
      isDefinition: name !== '',
      exported: this.lang.isExported(node, name, { wrapped: def.wrapped, container }),
      depth,
      startRow,
      endRow,
      firstRow,
      doc: commentLines,
      lines: [...commentLines],
      children: [],
      closing: [],
    };
    const body = this.lang.bodyOf ? this.lang.bodyOf(node, kind) : node.childForFieldName('body');
    const own: string[] = [];
    if (!body || lastRow(body) === startRow) {
      own.push(...this.verbatim(startRow, endRow));
    } else if (this.lang.containers.has(node.type) || this.lang.containerKinds?.has(kind)) {
      this.outlineContainer(item, own, node, body, endRow);
    } else {
      own.push(...this.elide(startRow, endRow, body));
    }
    if (midLine && own.length > 0) own[0] = own[0]!.slice(outer.startIndex - this.src.lineStart(startRow));
    item.lines.push(...own);
    return item;
  }

  /** Head rows, then members, then the closing rows. */
  private outlineContainer(item: OutlineItem, head: string[], node: SyntaxNode, body: SyntaxNode, endRow: number): void {
    const bodyStart = body.startPosition.row;
    const bodyEnd = lastRow(body);
    const headEnd = this.lang.bodyStyle === 'brace' ? bodyStart : Math.max(item.startRow, bodyStart - 1);
    head.push(...this.src.rows(item.startRow, headEnd));
    // Ruby keeps comments between the head and the body as children of the definition.
    const leading = namedChildrenOf(node).filter((c) => this.lang.comments.has(c.type) && c.startPosition.row > headEnd);
    item.children = this.members([...leading, ...namedChildrenOf(body)], item.depth + 1, node, headEnd + 1);
    const lastChild = item.children.at(-1);
    const closingFrom = Math.max(this.lang.bodyStyle === 'indent' ? endRow + 1 : bodyEnd, (lastChild?.endRow ?? headEnd) + 1);
    item.closing = closingFrom <= endRow ? this.src.rows(closingFrom, endRow) : [];
  }

  /** Signature with the body replaced by a marker. */
  private elide(startRow: number, endRow: number, body: SyntaxNode): string[] {
    const bodyStart = body.startPosition.row;
    const bodyEnd = lastRow(body);
    const blockBelowHead = this.lang.bodyStyle !== 'brace' && bodyStart > startRow;
    if (!blockBelowHead) {
      const marker = body.text.startsWith('{') ? BRACE_MARKER : INLINE_MARKER;
      const head = this.src.text.slice(this.src.lineStart(startRow), body.startIndex);
      const tail = this.src.text.slice(body.endIndex, this.src.lineEnd(Math.max(bodyEnd, endRow)));
      return this.src.split(`${head}${marker}${tail}`);
    }
    const head = this.src.rows(startRow, bodyStart - 1);
    const indent = /^\s*/.exec(this.src.lines[bodyStart] ?? '')?.[0] ?? '';
    const out = [...head];
    let hiddenFrom = bodyStart;
    const first = body.firstNamedChild;
    if (this.lang.bodyStyle === 'indent' && first && isDocString(first)) {
      out.push(...this.src.rows(first.startPosition.row, lastRow(first)));
      hiddenFrom = lastRow(first) + 1;
    }
    const hidden = bodyEnd - hiddenFrom + 1;
    if (hidden > 0) {
      out.push(this.lang.bodyStyle === 'indent' ? `${indent}...  # ${plural(hidden, 'line')}` : `${indent}${this.lang.commentPrefix} … ${plural(hidden, 'line')}`);
    }
    if (this.lang.bodyStyle === 'end' && endRow > bodyEnd) out.push(...this.src.rows(bodyEnd + 1, endRow));
    return out;
  }

  private verbatim(startRow: number, endRow: number): string[] {
    if (endRow - startRow + 1 <= MAX_VERBATIM_ROWS) return this.src.rows(startRow, endRow);
    const kept = this.src.rows(startRow, startRow + MAX_VERBATIM_ROWS - 1);
    const indent = /^\s*/.exec(kept[0] ?? '')?.[0] ?? '';
    return [...kept, `${indent}${this.lang.commentPrefix} … ${plural(endRow - startRow + 1 - MAX_VERBATIM_ROWS, 'more line')}`];
  }

  private plainItem(node: SyntaxNode, kind: string, depth: number, isHeader: boolean): OutlineItem {
    const startRow = node.startPosition.row;
    const endRow = lastRow(node);
    const keepWhole = kind === 'import' || isHeader || endRow === startRow;
    const lines = keepWhole ? this.verbatim(startRow, endRow) : [`${this.src.lines[startRow] ?? ''} ${INLINE_MARKER}`];
    return { kind, isDefinition: false, exported: false, depth, isHeader, startRow, endRow, firstRow: startRow, lines, children: [], closing: [] };
  }

  private commentItem(group: SyntaxNode[], depth: number, isHeader: boolean): OutlineItem {
    const startRow = group[0]!.startPosition.row;
    const endRow = lastRow(group.at(-1)!);
    return {
      kind: 'comment',
      isDefinition: false,
      exported: false,
      depth,
      isHeader,
      startRow,
      endRow,
      firstRow: startRow,
      lines: this.verbatim(startRow, endRow),
      children: [],
      closing: [],
    };
  }
}

/** Comments that touch the node below them (no blank line in between) document it. */
function adjacentTail(comments: SyntaxNode[], row: number): SyntaxNode[] {
  let start = comments.length;
  let next = row;
  while (start > 0 && next - lastRow(comments[start - 1]!) <= 1) {
    start -= 1;
    next = comments[start]!.startPosition.row;
  }
  return comments.slice(start);
}

function groupAdjacent(comments: SyntaxNode[]): SyntaxNode[][] {
  const groups: SyntaxNode[][] = [];
  for (const comment of comments) {
    const group = groups.at(-1);
    if (group && comment.startPosition.row - lastRow(group.at(-1)!) <= 1) group.push(comment);
    else groups.push([comment]);
  }
  return groups;
}

/** A string standing alone as a statement: Python docstrings. */
function isDocString(node: SyntaxNode): boolean {
  return node.type === 'expression_statement' && node.namedChildCount === 1 && node.firstNamedChild?.type === 'string';
}
