import type { CandidateFile } from '../types.js';

/**
 * A kind of per-blob fact: a pure extractor from a file's content (and, through `pathKey`, the
 * part of its path the result depends on, such as its language) to a value the scoring signals
 * read instead of the content. Facts are persisted content-addressed in the fact store
 * (fact-store.ts), so a warm run, or a new checkout holding the same blobs, never re-reads or
 * re-analyses an unchanged file. Adding a kind is adding a module and a line in registry.ts.
 *
 * Values must survive structured cloning (v8 serialisation): strings, numbers, arrays, plain objects.
 * Bump `version` whenever `extract` changes its output: old entries then miss.
 */
export interface FactKind<T> {
  readonly name: string;
  readonly version: number;
  /** Part of the cache key taken from the path (e.g. the import language); '' when the value depends on content alone. */
  pathKey?(path: string): string;
  /** The value for a file without content to read (a path no extractor of this kind handles), or undefined to read it. */
  withoutContent?(path: string): T | undefined;
  extract(path: string, content: string): T;
}

/** Where a candidate file's facts come from: the fact store, bound to the file by the collect stage. */
export interface FactSource {
  get<T>(kind: FactKind<T>): T;
}

/** A candidate file as the signals see it: its facts, when collect bound a source, else computed from content. */
export type FactfulFile = Pick<CandidateFile, 'path' | 'content'> & { facts?: FactSource };

/**
 * The one way a signal reads a fact of a file: from its bound source (persisted, warm) or, for
 * files built without one (tests, other front ends), extracted from the content right here.
 */
export function readFact<T>(kind: FactKind<T>, file: FactfulFile): T {
  if (file.facts) return file.facts.get(kind);
  return kind.withoutContent?.(file.path) ?? kind.extract(file.path, file.content);
}

/** Cache key of one fact kind for one path: kind, version and the path-dependent part. */
export function kindKey(kind: FactKind<unknown>, path: string): string {
  const part = kind.pathKey?.(path) ?? '';
  let byPart = keysOf.get(kind);
  if (byPart === undefined) keysOf.set(kind, (byPart = new Map()));
  let key = byPart.get(part);
  if (key === undefined) byPart.set(part, (key = `${kind.name}@${kind.version}:${part}`));
  return key;
}

/**
 * Each kind's keys by path part, made once: every file of a run asks for its kinds' keys several
 * times (babel's 27k files, 4 kinds), and one string per part is looked up faster than a new one.
 */
const keysOf = new WeakMap<FactKind<unknown>, Map<string, string>>();
