import { languageForContent } from '../languages/index.js';
import type { OutlineItem } from '../outline/types.js';
import { createSyntaxEngine, type SyntaxEngine } from './engine.js';

/** A named definition found in a source file. Lines are 1-based and inclusive. */
export interface Definition {
  name: string;
  /** function, method, class, interface, type, enum, struct, trait, impl, module, namespace, variable, field, suite, test, ... */
  kind: string;
  /** First line of the definition (export keyword, decorators and attributes included, doc comment excluded). */
  startLine: number;
  endLine: number;
  /** Part of the file's public surface (export, `pub`, `public`, capitalised Go name, no leading `_`). */
  exported: boolean;
}

/**
 * The definitions of a source file, nested ones (methods, members) included, sorted by line.
 * Null when the language has no grammar here or the file is too large to parse.
 *
 * Pass an engine when extracting from many files: the engine loads each grammar once. Without
 * one a fresh engine is made per call, which reloads the grammar (tens of milliseconds).
 */
export async function extractDefinitions(path: string, content: string, engine?: SyntaxEngine): Promise<Definition[] | null> {
  const language = languageForContent(path, content);
  if (!language) return null;
  const items = await (engine ?? createSyntaxEngine()).outline(language, content);
  if (items === null) return null;
  const definitions: Definition[] = [];
  collect(items, definitions);
  return definitions.sort((a, b) => a.startLine - b.startLine || a.endLine - b.endLine || a.name.localeCompare(b.name));
}

/** A reusable extractor bound to one engine: what a caller looping over files should hold. */
export function createDefinitionExtractor(engine: SyntaxEngine = createSyntaxEngine()) {
  return (path: string, content: string) => extractDefinitions(path, content, engine);
}

function collect(items: OutlineItem[], out: Definition[]): void {
  for (const item of items) {
    if (item.isDefinition && item.name !== undefined) {
      out.push({ name: item.name, kind: item.kind, startLine: item.startRow + 1, endLine: item.endRow + 1, exported: item.exported });
    }
    collect(item.children, out);
  }
}
