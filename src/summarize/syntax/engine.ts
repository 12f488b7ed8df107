import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Language, Parser, Tree } from 'web-tree-sitter';
import type { LanguageSpec } from '../languages/types.js';
import type { OutlineItem } from '../outline/types.js';
import { buildSyntaxOutline } from './outline.js';
import { knownOutline, rememberOutline } from './outline-memo.js';
import { claimOutline } from './outline-pool.js';

/** Files above this size are not parsed: the line-based fallback outlines them. */
export const MAX_PARSE_CHARS = 2_000_000;

/**
 * Parses source text with tree-sitter. web-tree-sitter and the grammars are loaded lazily, on
 * the first parse, and once per engine: create one engine per run or stage and pass it down.
 */
export interface SyntaxEngine {
  /** Parse and hand the tree to `use`; the tree is freed afterwards. Null when too large or unparsable. */
  withTree<T>(language: LanguageSpec, content: string, use: (tree: Tree) => T): Promise<T | null>;
  /**
   * The syntax outline of a text (buildSyntaxOutline), remembered for the process: the chunker of
   * the semantic scorer and the detailed level of the same blob parse it once. The items are
   * shared: read them, never change them. Null when too large or unparsable.
   */
  outline(language: LanguageSpec, content: string): Promise<OutlineItem[] | null>;
}

export interface SyntaxEngineOptions {
  /** Directory holding tree-sitter-<grammar>.wasm; default: @vscode/tree-sitter-wasm/wasm. */
  grammarDir?: string;
}

export function createSyntaxEngine(options: SyntaxEngineOptions = {}): SyntaxEngine {
  let runtime: Promise<typeof import('web-tree-sitter')> | undefined;
  const parsers = new Map<string, Promise<Parser>>();

  const loadRuntime = () => {
    runtime ??= import('web-tree-sitter').then(async (mod) => {
      await mod.Parser.init();
      return mod;
    });
    return runtime;
  };

  const parserFor = (grammar: string): Promise<Parser> => {
    let parser = parsers.get(grammar);
    if (!parser) {
      parser = (async () => {
        const mod = await loadRuntime();
        const dir = options.grammarDir ?? defaultGrammarDir();
        const language: Language = await mod.Language.load(join(dir, `tree-sitter-${grammar}.wasm`));
        return new mod.Parser().setLanguage(language);
      })();
      // A failed load (missing grammar file) is retried on the next call instead of cached.
      parser.catch(() => parsers.delete(grammar));
      parsers.set(grammar, parser);
    }
    return parser;
  };

  const withTree: SyntaxEngine['withTree'] = async (language, content, use) => {
    if (content.length > MAX_PARSE_CHARS) return null;
    const parser = await parserFor(language.grammar);
    const tree = parser.parse(content);
    if (!tree) return null;
    try {
      return use(tree);
    } finally {
      tree.delete();
    }
  };
  return {
    withTree,
    async outline(language, content) {
      const known = knownOutline(content, language.id);
      if (known !== undefined) return known;
      // parsed on the outline pool's thread when the levels stage handed the text over (outline-pool.ts)
      const claimed = claimOutline(content, language.id);
      let items = claimed === undefined ? undefined : await claimed;
      if (items === undefined) items = await withTree(language, content, (tree) => buildSyntaxOutline(tree, content, language));
      rememberOutline(content, language.id, items);
      return items;
    },
  };
}

function defaultGrammarDir(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@vscode/tree-sitter-wasm/package.json')), 'wasm');
}
