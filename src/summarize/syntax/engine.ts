import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Language, Parser, Tree } from 'web-tree-sitter';
import { languageForContent } from '../languages/index.js';
import type { LanguageSpec } from '../languages/types.js';
import type { OutlineItem } from '../outline/types.js';
import { composeBlocks, type PlacedBlock } from './block-outline.js';
import type { OutlineBlockStore } from './block-store.js';
import { splitBlocks, type SourceBlock } from './blocks.js';
import { outlineBlock, type BlockOutline } from './outline.js';
import { knownOutline, rememberOutline } from './outline-memo.js';
import { claimBlock, forgetUnclaimedBlocks, prefetchBlock, warmOutlinePool } from './outline-pool.js';

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
   * The syntax outline of a text (buildSyntaxOutline), remembered for the process: the detailed
   * level, the summary and `extractDefinitions` of the same blob parse it once. It is built block
   * by block (blocks.ts): a block the store keeps is not parsed again, the others are parsed on
   * the outline pool's thread when prefetched, else here. A block with a syntax error (perhaps
   * cut in the wrong place) makes it parse the whole text instead. The items are shared: read
   * them, never change them. Null when too large or unparsable.
   */
  outline(language: LanguageSpec, content: string): Promise<OutlineItem[] | null>;
  /**
   * Start parsing, on the outline pool's thread, the blocks of these files that neither this
   * process nor the block store knows (the levels stage, before it builds them). What an earlier
   * call started and nobody claimed is dropped.
   */
  prefetch(files: ReadonlyArray<{ path: string; content: string }>): void;
  /**
   * A file this engine may be asked to outline later (collect read it as new content): the outline
   * pool's thread starts and loads its language's grammar now, so that the blocks prefetch hands
   * over are parsed there rather than taken back while it is still loading (a warm run after a
   * one-file edit otherwise loaded tree-sitter on both threads).
   */
  expect(path: string, content: string): void;
  /** Keep the block outlines made since the last save; resolves when written (callers need not wait). */
  save(): Promise<void>;
  /** Blocks of split files this engine took from the block store, and parsed (here or on the pool's thread). */
  blockCounts(): { kept: number; parsed: number };
}

export interface SyntaxEngineOptions {
  /** Directory holding tree-sitter-<grammar>.wasm; default: @vscode/tree-sitter-wasm/wasm. */
  grammarDir?: string;
  /** Where block outlines are kept between processes (block-store.ts); none: parsed every time. */
  blocks?: OutlineBlockStore;
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
  const blocks = options.blocks;
  const counts = { kept: 0, parsed: 0 };
  /**
   * The split of each text the last prefetch handed over, with its block texts and what the store
   * held for each (under the code-before flag it guessed), so the outline does not cut, hash and
   * look up the same file again. Taken once; dropped by the next prefetch.
   */
  const prepared = new Map<string, { split: SourceBlock[]; texts: string[]; stored: Array<BlockOutline | undefined> }>();

  /**
   * One block's outline: kept, from the pool, or parsed here; `keep`: a block of a split file.
   * `held`: what the store held for it when the prefetch asked (a miss is asked again: another
   * file's identical block may have been kept since).
   */
  const blockOutline = async (language: LanguageSpec, text: string, codeBefore: boolean, keep: boolean, held?: BlockOutline): Promise<BlockOutline | null> => {
    const stored = keep ? (held ?? blocks?.get(language.id, codeBefore, text)) : undefined;
    if (stored !== undefined) {
      counts.kept++;
      return stored;
    }
    if (keep) counts.parsed++;
    const claimed = claimBlock(text, language.id, codeBefore);
    let block = claimed === undefined ? undefined : await claimed;
    if (block === undefined) block = await withTree(language, text, (tree) => outlineBlock(tree, text, language, codeBefore));
    if (block !== null && keep) blocks?.put(language.id, codeBefore, text, block);
    return block;
  };

  const outlineByBlocks = async (language: LanguageSpec, content: string): Promise<OutlineItem[] | null> => {
    if (content.length > MAX_PARSE_CHARS) return null;
    const prep = prepared.get(content);
    prepared.delete(content);
    const split = prep?.split ?? splitBlocks(content, language.blocks);
    const parts: PlacedBlock[] = [];
    let codeBefore = false;
    for (const [i, { start, end, row }] of split.entries()) {
      // the prefetch looked the block up under the flag it guessed (code before every block but the first)
      const held: BlockOutline | undefined = prep && codeBefore === i > 0 ? prep.stored[i] : undefined;
      const block: BlockOutline | null =
        split.length === 1 ? await blockOutline(language, content, false, false) : await blockOutline(language, prep?.texts[i] ?? content.slice(start, end), codeBefore, true, held);
      if (block === null) return null;
      if (block.error && split.length > 1) {
        const whole = await blockOutline(language, content, false, false);
        return whole && composeBlocks([{ block: whole, row: 0 }]);
      }
      parts.push({ block, row });
      codeBefore = block.codeSeen;
    }
    return composeBlocks(parts);
  };

  return {
    withTree,
    async outline(language, content) {
      const known = knownOutline(content, language.id);
      if (known !== undefined) return known;
      const items = await outlineByBlocks(language, content);
      rememberOutline(content, language.id, items);
      return items;
    },
    prefetch(files) {
      forgetUnclaimedBlocks();
      prepared.clear();
      for (const { path, content } of files) {
        const language = languageForContent(path, content);
        if (language === undefined || content.length > MAX_PARSE_CHARS || knownOutline(content, language.id) !== undefined) continue;
        const split = splitBlocks(content, language.blocks);
        if (split.length === 1) {
          prefetchBlock(content, language.id, false);
          continue;
        }
        // the code-before flag of a later block is a guess (the first block holds the first code line); a wrong one is parsed here
        const missing: Array<[text: string, codeBefore: boolean]> = [];
        let whole = false;
        const texts = split.map(({ start, end }) => content.slice(start, end));
        const stored = texts.map((text, i) => blocks?.get(language.id, i > 0, text));
        prepared.set(content, { split, texts, stored });
        texts.forEach((text, i) => {
          const held = stored[i];
          if (held === undefined) missing.push([text, i > 0]);
          else whole ||= held.error;
        });
        // a kept block with a syntax error: the file is parsed whole (outlineByBlocks)
        if (whole) prefetchBlock(content, language.id, false);
        else for (const [text, codeBefore] of missing) prefetchBlock(text, language.id, codeBefore);
      }
    },
    expect(path, content) {
      const language = languageForContent(path, content);
      // once per language and process (warmOutlinePool): no lookup of the content here
      if (language !== undefined && content.length <= MAX_PARSE_CHARS) warmOutlinePool(language.id);
    },
    save: async () => blocks?.save(),
    blockCounts: () => ({ ...counts }),
  };
}

function defaultGrammarDir(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@vscode/tree-sitter-wasm/package.json')), 'wasm');
}
