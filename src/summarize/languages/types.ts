import type { Node as SyntaxNode } from 'web-tree-sitter';

export type { SyntaxNode };

/** How an elided body is marked in the detailed level. */
export type BodyStyle = 'brace' | 'indent' | 'end';

/** Where a definition sits, for the export rule of its language. */
export interface ExportContext {
  /** True when an export wrapper (`export ...`) holds the definition. */
  wrapped: boolean;
  /** The enclosing definition node, null at top level. */
  container: SyntaxNode | null;
}

/**
 * One language the detailed level and `extractDefinitions` understand. Adding a language is
 * adding one file in this folder and one line in index.ts.
 */
export interface LanguageSpec {
  /** Stable id, e.g. `typescript`. */
  readonly id: string;
  /** Human file type shown in stubs and summaries. */
  readonly fileType: string;
  /** Lower-case extensions with the dot, or exact base names (e.g. `Rakefile`). */
  readonly extensions: readonly string[];
  /** Grammar stem: node_modules/@vscode/tree-sitter-wasm/wasm/tree-sitter-<grammar>.wasm. */
  readonly grammar: string;
  /** Definition node types and their kind (function, class, method, ...). */
  readonly definitions: Readonly<Record<string, string>>;
  /** Definition node types whose body holds members to outline instead of eliding. */
  readonly containers: ReadonlySet<string>;
  /** Definition kinds (from `kindOf`) outlined member by member, like `containers` by node type. */
  readonly containerKinds?: ReadonlySet<string>;
  /** Transparent wrappers (export, decorators, templates): the definition inside takes their lines. */
  readonly wrappers: ReadonlySet<string>;
  readonly comments: ReadonlySet<string>;
  /** Import-like statements, kept whole. */
  readonly imports: ReadonlySet<string>;
  readonly bodyStyle: BodyStyle;
  /** Line comment prefix for markers, e.g. `//` or `#`. */
  readonly commentPrefix: string;
  /**
   * How its files are cut into top-level blocks, each parsed and kept on its own (blocks.ts):
   * `lines` (the default) by column-0 code lines; `preprocessor` the same, never inside a column-0
   * `#if` ... `#endif`; `whole`: never cut (the file parses whole every time).
   */
  readonly blocks?: 'lines' | 'preprocessor' | 'whole';
  /**
   * Names a file exports by a list rather than by declaration (CommonJS `module.exports = {..}`,
   * Python `__all__`). `exclusive`: the list is the whole public surface.
   */
  moduleExports?(root: SyntaxNode): { names: Set<string>; exclusive: boolean } | undefined;
  /** Import-like statements that are not known by node type alone (e.g. Ruby `require 'x'`). */
  isImport?(node: SyntaxNode): boolean;
  /** Kind of a node that is not in `definitions` but defines something (e.g. `const f = () => {}`). */
  kindOf?(node: SyntaxNode): string | undefined;
  /** The body to elide or to outline; default: the `body` field. */
  bodyOf?(node: SyntaxNode, kind: string): SyntaxNode | null;
  /** Defined name; default: the `name` field. */
  nameOf?(node: SyntaxNode): string | undefined;
  /** Whether a definition is part of the public surface of its file or container. */
  isExported(node: SyntaxNode, name: string, context: ExportContext): boolean;
}

/** Named children, skipping the nulls older grammars can yield. */
export function namedChildrenOf(node: SyntaxNode): SyntaxNode[] {
  return node.namedChildren.filter((c): c is SyntaxNode => c !== null);
}

export function hasChildOfType(node: SyntaxNode, type: string): boolean {
  return namedChildrenOf(node).some((c) => c.type === type);
}

/** Text of the first child of one of the given types, or undefined. */
export function childText(node: SyntaxNode, types: readonly string[]): string | undefined {
  return namedChildrenOf(node).find((c) => types.includes(c.type))?.text;
}

/** Keywords such as `private` in a modifiers child or as direct children. */
export function modifierWords(node: SyntaxNode, modifierTypes: readonly string[]): string[] {
  const words: string[] = [];
  for (const child of namedChildrenOf(node)) {
    if (modifierTypes.includes(child.type)) words.push(...child.text.split(/\s+/));
  }
  return words;
}

/** Leading underscore marks a private name in most scripting languages. */
export function isUnderscorePrivate(name: string): boolean {
  return name.startsWith('_') && !/^__\w+__$/.test(name);
}

export function setOf(...values: string[]): ReadonlySet<string> {
  return new Set(values);
}
