import type { CandidateFile } from '../../types.js';
import { changesPaths, type FileChanges } from '../derived.js';
import { insertSorted } from '../../util/sorted.js';
import { readFact, type FactKind } from '../../facts/fact-kind.js';
import { goSupport } from './go.js';
import { javaSupport } from './java.js';
import type { LanguageSupport } from './language.js';
import { buildProjectIndex, carryReads, pathChangeKeys, watchResolution, type ProjectIndex } from './project.js';
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
  /** What `updateImportGraph` starts from; absent on a graph made elsewhere (it then builds). */
  readonly basis?: GraphBasis;
}

interface GraphBasis {
  project: ProjectIndex;
  languages: readonly LanguageSupport[];
  /** The warnings raised while resolving a file, by path (files that raised none are absent). */
  fileWarnings: Map<string, string[]>;
  /**
   * Each file's import specifiers, with the file they were read from: a cache checked by
   * content address on every read, so later graphs add to it (a full resolve starts a new one).
   */
  specifiers: SpecifierCache;
  /** What each file's resolution watched (absent for a graph kept without it: a path change then resolves every file). */
  watches?: Watches;
}

type SpecifierCache = Map<string, { file: CandidateFile; specifiers: string[] }>;

/**
 * Build the import graph of the candidate files. A file no resolver reads, or whose scan
 * throws, simply has no edges (the failure becomes a warning).
 */
export function buildImportGraph(files: readonly CandidateFile[], languages: readonly LanguageSupport[] = LANGUAGES): ImportGraph {
  return resolveAll(files, languages, buildProjectIndex(files));
}

/**
 * The graph of `files` from the graph of an earlier set and what changed since: equal to
 * `buildImportGraph(files)`. A file's edges depend on its own specifiers, on which paths exist
 * and on the config files the resolvers read (readConfig); so when only contents changed and
 * every config read still holds, only the changed files are resolved again. When paths come or
 * go, or a config read no longer holds, the files resolved again are the changed and added ones
 * and those whose resolution watched what changed (watchResolution: a lookup in a directory that
 * gained or lost a file, of a base name that came or went, through a config read that no longer
 * holds); each config read that still holds is reused (the tsconfig aliases of an unchanged
 * tsconfig are not read again).
 */
export function updateImportGraph(previous: ImportGraph, files: readonly CandidateFile[], changes: FileChanges, languages: readonly LanguageSupport[] = LANGUAGES): ImportGraph {
  const basis = previous.basis;
  if (basis === undefined || basis.languages !== languages) return buildImportGraph(files, languages);
  const sameReads = changesPaths(changes) ? null : basis.project.withContents(files);
  const project = sameReads ?? basis.project.withPaths(files, changes);
  if (sameReads === null && basis.watches === undefined) return resolveAll(files, languages, project, basis.specifiers);
  const again = new Set([...changes.added.map((f) => f.path), ...changes.changed.map((c) => c.after.path)]);
  const removed = changes.removed.map((f) => f.path);
  if (sameReads === null) {
    const paths = { added: changes.added.map((f) => f.path), removed, changed: changes.changed.map((c) => c.after.path) };
    watchedBy(basis.watches!, pathChangeKeys(paths, carryReads(basis.project.configs, project)), again);
  }
  // most files to resolve again: a full resolve costs no more than the bookkeeping
  if (again.size > files.length / 2) return resolveAll(files, languages, project, basis.specifiers);
  const kept = { imports: previous.imports, importers: previous.importers, fileWarnings: basis.fileWarnings, watches: basis.watches };
  return resolveAgain(files, languages, project, kept, again, basis.specifiers, removed);
}

/** Add to `into` every file whose resolution recorded one of `keys`. */
export function watchedBy(watches: Watches, keys: Iterable<string>, into: Set<string>): Set<string> {
  for (const key of keys) for (const path of watches.get(key) ?? []) into.add(path);
  return into;
}

/**
 * The graph of `files` from a graph kept by an earlier run (graph-cache.ts): the files in `again`
 * are resolved against `project`, the kept edges of the others stand (the caller worked out,
 * from what changed and what each resolution watched, which files may resolve otherwise). Equal
 * to `buildImportGraph(files)`: a file's edges depend on its own specifiers, the paths and the
 * config reads alone.
 */
export function resolveKeptGraph(
  files: readonly CandidateFile[],
  project: ProjectIndex,
  kept: KeptEdges,
  again: ReadonlySet<string>,
  removed: readonly string[],
  languages: readonly LanguageSupport[] = LANGUAGES,
): ImportGraph {
  return resolveAgain(files, languages, project, kept, again, new Map(), removed);
}

/** What a graph keeps between updates besides its project: each file's edges and warnings, and what each resolution watched. */
export interface KeptEdges {
  imports: ReadonlyMap<string, string[]>;
  fileWarnings: ReadonlyMap<string, string[]>;
  /** Watch key -> the files whose resolution recorded it (watchResolution); undefined: not known. */
  watches?: Watches;
}

/** Watch key -> files whose resolution recorded it. It only grows (a file resolved again adds its new keys and keeps its old ones: a superset is still sound), so updates share it instead of copying it. */
export type Watches = Map<string, Set<string>>;

/**
 * Resolve the files in `again` against `project`, keep every other file's edges and warnings.
 * With the kept importers they are updated edge by edge, else worked out from the imports.
 */
function resolveAgain(
  files: readonly CandidateFile[],
  languages: readonly LanguageSupport[],
  project: ProjectIndex,
  kept: KeptEdges & { importers?: ReadonlyMap<string, string[]> },
  again: ReadonlySet<string>,
  specifiers: SpecifierCache,
  removed: readonly string[],
): ImportGraph {
  const watch = watchResolution(project);
  const resolver = prepareResolver(watch.view, languages, specifiers);
  // a language that looked something up while preparing made every file depend on it
  if (watch.take().size > 0) return resolveAll(files, languages, project, specifiers);
  const imports = new Map(kept.imports);
  const importers = kept.importers && new Map(kept.importers);
  const fileWarnings = new Map(kept.fileWarnings);
  const setTargets = (path: string, targets: string[]) => {
    const was = imports.get(path) ?? [];
    setOrDelete(imports, path, targets);
    if (!importers) return;
    for (const t of was) if (!targets.includes(t)) setOrDelete(importers, t, (importers.get(t) ?? []).filter((p) => p !== path));
    for (const t of targets) if (!was.includes(t)) importers.set(t, insertSorted(importers.get(t) ?? [], path));
  };
  for (const path of removed) {
    setTargets(path, []);
    fileWarnings.delete(path);
  }
  const watches = kept.watches;
  for (const file of files) {
    if (!again.has(file.path)) continue;
    const { targets, warnings } = resolver(file);
    setTargets(file.path, targets);
    setOrDelete(fileWarnings, file.path, warnings);
    const keys = watch.take();
    if (watches) addWatches(watches, file.path, keys);
  }
  const edges = importers ? { imports, importers } : edgeMaps(files, imports);
  return { ...edges, warnings: graphWarnings(files, fileWarnings), basis: { project, languages, fileWarnings, specifiers, ...(watches ? { watches } : {}) } };
}

function addWatches(watches: Watches, path: string, keys: Iterable<string>): void {
  for (const key of keys) {
    const paths = watches.get(key);
    if (paths) paths.add(path);
    else watches.set(key, new Set([path]));
  }
}

/** Resolve every file against `project`; `known` specifiers of unchanged files are not read again. */
function resolveAll(files: readonly CandidateFile[], languages: readonly LanguageSupport[], project: ProjectIndex, known?: SpecifierCache): ImportGraph {
  const specifiers: SpecifierCache = new Map();
  const watch = watchResolution(project);
  const watches: Watches = new Map();
  const resolver = prepareResolver(watch.view, languages, specifiers, known);
  // a language that looked something up while preparing made every file depend on it: no watches
  const watched = watch.take().size === 0;
  const targetsByPath = new Map<string, string[]>();
  const fileWarnings = new Map<string, string[]>();
  for (const file of files) {
    const { targets, warnings } = resolver(file);
    if (warnings.length > 0) fileWarnings.set(file.path, warnings);
    if (targets.length > 0) targetsByPath.set(file.path, targets);
    const keys = watch.take();
    if (watched) addWatches(watches, file.path, keys);
  }
  return { ...edgeMaps(files, targetsByPath), warnings: graphWarnings(files, fileWarnings), basis: { project, languages, fileWarnings, specifiers, ...(watched ? { watches } : {}) } };
}

/** A graph's two maps from each file's targets: imports in file order, importers (sorted) in order of first import. */
export function edgeMaps(files: readonly CandidateFile[], targetsByPath: ReadonlyMap<string, string[]>): Pick<ImportGraph, 'imports' | 'importers'> {
  const imports = new Map<string, string[]>();
  const importers = new Map<string, string[]>();
  for (const file of files) {
    const targets = targetsByPath.get(file.path);
    if (targets === undefined || targets.length === 0) continue;
    imports.set(file.path, targets);
    for (const t of targets) {
      const list = importers.get(t);
      if (list) list.push(file.path);
      else importers.set(t, [file.path]);
    }
  }
  for (const list of importers.values()) list.sort();
  return { imports, importers };
}

/**
 * One file's edges (sorted, distinct) and the warnings raised while resolving them. Specifiers
 * come from `cache` or `known` when read from the same blob, else are read and put in `cache`.
 */
function prepareResolver(
  project: ProjectIndex,
  languages: readonly LanguageSupport[],
  cache: SpecifierCache,
  known?: SpecifierCache,
): (file: CandidateFile) => { targets: string[]; warnings: string[] } {
  const prepared = languages.map((lang) => ({ lang, resolve: lang.prepare(project) }));
  const specifiersOf = (file: CandidateFile, lang: LanguageSupport): string[] => {
    const held = cache.get(file.path) ?? known?.get(file.path);
    if (held !== undefined && (held.file === file || held.file.hash === file.hash)) {
      cache.set(file.path, held);
      return held.specifiers;
    }
    // the persisted fact holds what the registered languages extract; another language reads the content
    const specifiers = LANGUAGES.includes(lang) ? readFact(importsFactKind, file) : lang.extract(file.content);
    cache.set(file.path, { file, specifiers });
    return specifiers;
  };
  return (file) => {
    const support = prepared.find((p) => p.lang.files.test(file.path));
    if (!support) return { targets: [], warnings: [] };
    // the project's warnings collect what this file's resolution raised (config reads report theirs to every caller)
    project.warnings.length = 0;
    let targets: string[] = [];
    try {
      targets = [...new Set(support.resolve(file.path, specifiersOf(file, support.lang)))].sort();
    } catch (error) {
      project.warnings.push(`dependency_depth: could not read the imports of ${file.path} (${error instanceof Error ? error.message : String(error)}); it has no edges`);
    }
    return { targets, warnings: project.warnings.splice(0) };
  };
}

/** The files' warnings in file order, each once (a config's warnings come with every file resolved through it). */
function graphWarnings(files: readonly CandidateFile[], fileWarnings: Map<string, string[]>): string[] {
  const out = new Set<string>();
  if (fileWarnings.size > 0) for (const f of files) for (const w of fileWarnings.get(f.path) ?? []) out.add(w);
  return [...out];
}

function setOrDelete<T>(map: Map<string, T[]>, key: string, list: T[]): void {
  if (list.length > 0) map.set(key, list);
  else map.delete(key);
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
