/**
 * One entry of a detailed-level outline: a definition, import, comment or statement, with the
 * lines it renders to. Items nest (class -> methods, heading -> subheadings, key -> subkeys), so
 * shortening can drop the least important ones first.
 */
export interface OutlineItem {
  /** Definition kind (function, class, ...) or `comment` | `import` | `statement` | `heading` | `key` | `line`. */
  kind: string;
  name?: string;
  /** True for named definitions (what `extractDefinitions` reports). */
  isDefinition: boolean;
  /** Part of the public surface of its file or container. */
  exported: boolean;
  /** 0 at top level. */
  depth: number;
  /** The file's header comment or module docstring: dropped last. */
  isHeader?: boolean;
  /** A definition the task names (shown whole by the query-aware detailed level) or a container of one: dropped last, like the header. */
  pinned?: boolean;
  /** 0-based rows of the item itself (wrappers included, attached comments excluded). */
  startRow: number;
  endRow: number;
  /** First row rendered (attached comments included), used to keep blank lines between items. */
  firstRow: number;
  /** The comment lines attached above a definition (also the first entries of `lines`). */
  doc?: string[];
  /** Lines before the children (attached comments, signature, elided body). */
  lines: string[];
  children: OutlineItem[];
  /** Lines after the children (closing brace, `end`). */
  closing: string[];
}

export function leafItem(fields: Omit<OutlineItem, 'children' | 'closing' | 'firstRow'> & { firstRow?: number }): OutlineItem {
  return { ...fields, firstRow: fields.firstRow ?? fields.startRow, children: [], closing: [] };
}
