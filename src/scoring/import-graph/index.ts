import type { CandidateFile } from '../../types.js';
import { readFact, type FactKind } from '../../facts/fact-kind.js';
import { goSupport } from './go.js';
import { javaSupport } from './java.js';
import type { LanguageSupport } from './language.js';
import { buildProjectIndex } from './project.js';
import { pythonSupport } from './python.js';
import { rustSupport } from './rust.js';
import { typescriptSupport } from './typescript.js';

export type { LanguageSupport } from './language.js';

/** The language registry: adding a language is adding a module here. */
export const LANGUAGES: readonly LanguageSupport[] = [typescriptSupport, pythonSupport, goSupport, rustSupport, javaSupport];

/** The language that reads a path's imports, if any. */
export function importLanguageFor(path: string, languages: readonly LanguageSupport[] = LANGUAGES): LanguageSupport | undefined {
  return languages.find((lang) => lang.files.test(path));
}

/** The import specifiers of a blob, by the language of its path; persisted by the fact store. */
export const importsFactKind: FactKind<string[]> = {
  name: 'import-specifiers',
  version: 1,
  pathKey: (path) => importLanguageFor(path)?.name ?? '',
  withoutContent: (path) => (importLanguageFor(path) === undefined ? [] : undefined),
  extract: (path, content) => importLanguageFor(path)?.extract(content) ?? [],
};

export interface ImportGraph {
  /** path -> files it imports (sorted). */
  imports: Map<string, string[]>;
  /** path -> files importing it (sorted). */
  importers: Map<string, string[]>;
  warnings: string[];
}

/**
 * Build the import graph of the candidate files. A file no resolver reads, or whose scan
 * throws, simply has no edges (the failure becomes a warning).
 */
export function buildImportGraph(files: CandidateFile[], languages: readonly LanguageSupport[] = LANGUAGES): ImportGraph {
  const project = buildProjectIndex(files);
  const prepared = languages.map((lang) => ({ lang, resolve: lang.prepare(project) }));
  const imports = new Map<string, string[]>();
  const importers = new Map<string, string[]>();
  const warnings = project.warnings;
  for (const file of files) {
    const support = prepared.find((p) => p.lang.files.test(file.path));
    if (!support) continue;
    let targets: string[];
    try {
      // the persisted fact holds what the registered languages extract; another language reads the content
      const specifiers = LANGUAGES.includes(support.lang) ? readFact(importsFactKind, file) : support.lang.extract(file.content);
      targets = support.resolve(file.path, specifiers);
    } catch (error) {
      warnings.push(`dependency_depth: could not read the imports of ${file.path} (${error instanceof Error ? error.message : String(error)}); it has no edges`);
      continue;
    }
    if (targets.length === 0) continue;
    const sorted = [...new Set(targets)].sort();
    imports.set(file.path, sorted);
    for (const t of sorted) {
      const list = importers.get(t);
      if (list) list.push(file.path);
      else importers.set(t, [file.path]);
    }
  }
  for (const list of importers.values()) list.sort();
  return { imports, importers, warnings };
}

/**
 * Breadth-first distance from the seeds over imports and importers together, up to maxDepth.
 * Files farther away (or unreachable) are absent.
 */
export function distancesFrom(seeds: Iterable<string>, graph: ImportGraph, maxDepth: number): Map<string, number> {
  const distance = new Map<string, number>();
  let frontier = [...new Set(seeds)].sort();
  for (const s of frontier) distance.set(s, 0);
  for (let depth = 1; depth <= maxDepth && frontier.length > 0; depth++) {
    const next: string[] = [];
    for (const node of frontier) {
      for (const neighbour of [...(graph.imports.get(node) ?? []), ...(graph.importers.get(node) ?? [])]) {
        if (distance.has(neighbour)) continue;
        distance.set(neighbour, depth);
        next.push(neighbour);
      }
    }
    frontier = next.sort();
  }
  return distance;
}
