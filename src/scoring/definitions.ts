import { readFact, type FactfulFile, type FactKind } from '../facts/fact-kind.js';

/**
 * The symbol index: the names each file defines (functions, methods, classes, types), matched
 * against the identifiers a task writes (`aiter_lines()`, `setErrorHandler`, `LineDecoder`).
 * A report that names a function usually needs the file that defines it, not the files that
 * merely mention it.
 *
 * Line patterns rather than the tree-sitter outlines: a fact kind's extractor is synchronous and
 * runs on every new blob of the repository, while the outlines are parsed asynchronously and
 * only for the files a run selects. The patterns see the same definition lines the outlines
 * start at; nesting does not matter for a name index.
 */

/** Names shorter than this are too generic to point at a file (`id`, `fn`, `get`). */
const MIN_NAME_CHARS = 4;
/** At most this many names per file: generated tables and huge modules stop here. */
const MAX_NAMES = 2000;

interface DefinitionPatterns {
  files: RegExp;
  lines: RegExp[];
}

const JS_LIKE: DefinitionPatterns = {
  files: /\.(?:[cm]?[jt]sx?|vue|svelte)$/,
  lines: [
    /\bfunction\s*\*?\s*([A-Za-z_$][\w$]*)\s*\(/g,
    /\b(?:class|interface|enum|type|namespace)\s+([A-Za-z_$][\w$]*)/g,
    /\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*(?::\s*[^=;{]+)?=>|[A-Za-z_$][\w$]*\s*=>|class\b)/g,
    // methods, getters and object-literal functions at the start of a line: `  async handle(req) {`, `get body() {`
    /^\s*(?:(?:static|async|get|set|public|private|protected|readonly|override)\s+)*\*?\s*([A-Za-z_$][\w$]*)\s*\([^)]*\)\s*(?::[^{;]*)?\{/gm,
    /^\s*([A-Za-z_$][\w$]*)\s*:\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*=>)/gm,
    // assignments to exports and prototypes: `exports.parse = `, `Reply.prototype.send = `, `proto.onerror = function`
    /\b(?:exports|prototype|proto|module\.exports)\.([A-Za-z_$][\w$]*)\s*=/g,
  ],
};

const PYTHON: DefinitionPatterns = {
  files: /\.pyi?$/,
  lines: [/^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)/gm, /^\s*class\s+([A-Za-z_]\w*)/gm, /^([A-Z][A-Z0-9_]+)\s*[:=]/gm],
};

const GO: DefinitionPatterns = {
  files: /\.go$/,
  lines: [/^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)/gm, /^type\s+([A-Za-z_]\w*)/gm, /^\s+([A-Za-z_]\w*)\s+(?:struct|interface)\s*\{/gm],
};

/** Other languages: the common definition keywords. */
const GENERIC: DefinitionPatterns = {
  files: /\.(?:rs|java|kt|scala|rb|php|cs|cpp|cc|c|h|hpp|swift)$/,
  lines: [/\b(?:def|fn|func|function|class|struct|trait|interface|enum|module|impl)\s+([A-Za-z_]\w*)/g],
};

const LANGUAGE_PATTERNS: readonly DefinitionPatterns[] = [JS_LIKE, PYTHON, GO, GENERIC];

const NOT_NAMES = new Set(['if', 'for', 'while', 'switch', 'catch', 'function', 'return', 'constructor', 'super', 'else', 'with', 'await', 'typeof', 'new']);

function patternsFor(path: string): DefinitionPatterns | undefined {
  return LANGUAGE_PATTERNS.find((p) => p.files.test(path));
}

/** The defined names of a blob, distinct, in order of appearance; persisted by the fact store (src/facts/registry.ts). */
export const definitionsFactKind: FactKind<string[]> = {
  name: 'definitions',
  version: 1,
  pathKey: (path) => String(LANGUAGE_PATTERNS.findIndex((p) => p.files.test(path))),
  withoutContent: (path) => (patternsFor(path) === undefined ? [] : undefined),
  extract: (path, content) => extractDefinedNames(path, content),
};

/** Names a source file defines, by the patterns of its language ([] for a language without patterns). */
export function extractDefinedNames(path: string, content: string): string[] {
  const patterns = patternsFor(path);
  if (patterns === undefined) return [];
  const names = new Set<string>();
  for (const re of patterns.lines) {
    re.lastIndex = 0;
    for (let m = re.exec(content); m !== null && names.size < MAX_NAMES; m = re.exec(content)) {
      const name = m[1] as string;
      if (name.length >= MIN_NAME_CHARS && !NOT_NAMES.has(name)) names.add(name);
    }
  }
  return [...names];
}

/**
 * Identifiers a task writes as code: snake_case, camelCase or multi-hump PascalCase words, words
 * in backticks, and words called (`name(`) or reached through a dot (`obj.name`). Plain English
 * words stay out, so a report's prose does not match every `get` and `send`.
 */
export function taskIdentifiers(task: string): string[] {
  const found = new Set<string>();
  const add = (word: string) => {
    if (word.length >= MIN_NAME_CHARS && !NOT_NAMES.has(word)) found.add(word);
  };
  const re = /[A-Za-z_$][\w$]*/g;
  for (let m = re.exec(task); m !== null; m = re.exec(task)) {
    const word = m[0];
    const before = task[m.index - 1];
    const after = task[m.index + word.length];
    const isCode =
      /[a-z0-9][A-Z]/.test(word) ||
      /[A-Za-z0-9]_[A-Za-z0-9]/.test(word) ||
      /^_{1,2}[a-z]/.test(word) ||
      after === '(' ||
      before === '.' ||
      before === '`';
    if (isCode) add(word.replace(/^\$+/, ''));
  }
  return [...found].sort();
}

/** How strongly each file defines what the task names. */
export interface DefinitionMatch {
  /** Per path in [0,1]: the sum over matched identifiers of 1 / (files defining it), capped at 1. */
  scores: Map<string, number>;
  /** Per path: the matched names, for the record's explanation. */
  names: Map<string, string[]>;
}

/**
 * A name defined in more files than this points nowhere (`__init__`, `handler`, `render`):
 * it is left out, like Aider's repo map discounts names defined in many files.
 */
export const MAX_DEFINING_FILES = 5;

/** Match the task's identifiers against the definitions of the candidate files. Pure. */
export function matchDefinitions(identifiers: readonly string[], files: readonly FactfulFile[]): DefinitionMatch {
  const scores = new Map<string, number>();
  const names = new Map<string, string[]>();
  if (identifiers.length === 0) return { scores, names };
  const wanted = new Map(identifiers.map((id) => [id.toLowerCase(), id]));
  const definers = new Map<string, string[]>();
  for (const file of files) {
    for (const name of readFact(definitionsFactKind, file)) {
      const key = name.toLowerCase();
      if (!wanted.has(key)) continue;
      const list = definers.get(key);
      if (list === undefined) definers.set(key, [file.path]);
      else if (list.at(-1) !== file.path) list.push(file.path);
    }
  }
  for (const [key, paths] of definers) {
    if (paths.length > MAX_DEFINING_FILES) continue;
    for (const path of paths) {
      scores.set(path, Math.min(1, (scores.get(path) ?? 0) + 1 / paths.length));
      names.set(path, [...(names.get(path) ?? []), wanted.get(key) as string]);
    }
  }
  for (const list of names.values()) list.sort();
  return { scores, names };
}
