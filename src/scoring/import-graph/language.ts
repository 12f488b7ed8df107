import type { ProjectIndex } from './project.js';

/**
 * One language's import support, in two halves: `extract` reads the import specifiers of a
 * file's content (pure, per blob: the fact store persists them, so unchanged files are never
 * re-scanned), and `prepare`, bound to the project once per run, resolves a file's specifiers
 * to the files it imports (root-relative paths of candidates; unresolvable specifiers are
 * dropped silently, never an error). A resolver reads another file's content only through
 * `project.readConfig` (a tsconfig, a go.mod), and looks the project up only while resolving a
 * file, never in `prepare`: the graph's updates rely on both to know which files' edges an edit
 * or a path that came or went can change (watchResolution in project.ts).
 */
export interface LanguageSupport {
  readonly name: string;
  readonly files: RegExp;
  extract(content: string): string[];
  prepare(project: ProjectIndex): (path: string, specifiers: string[]) => string[];
}

/** Characters before a hit searched for a comment marker. */
const MAX_COMMENT_LOOKBACK = 240;

/** Above this, a file is generated or minified: its imports are not worth the regex time. */
export const MAX_SCANNED_CHARS = 300_000;

/** The part of a file worth scanning for imports (they sit at the top; the rest may be a minified blob). */
export function scannedText(content: string): string {
  return content.length > MAX_SCANNED_CHARS ? content.slice(0, MAX_SCANNED_CHARS) : content;
}

/** Remove block and line comments cheaply (strings containing comment markers may lose a tail: acceptable for import scanning). */
export function stripCStyleComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(^|[^:'"\\])\/\/[^\n]*/g, '$1');
}

/**
 * Whether a match position sits in a comment, judged from its own line: after `//`, or on a
 * line that starts with `*` or `/*` (block comment bodies as formatted in practice). Checking
 * only the hits is far cheaper than stripping comments from every file.
 */
export function isInComment(text: string, index: number): boolean {
  // bounded look-back: one huge minified line must not make every hit O(line length)
  const window = text.slice(Math.max(0, index - MAX_COMMENT_LOOKBACK), index);
  const before = window.slice(window.lastIndexOf('\n') + 1);
  const trimmed = before.trimStart();
  return before.includes('//') || trimmed.startsWith('*') || trimmed.startsWith('/*');
}
