import { UsageError } from '../errors.js';
import { taskIdentifiers } from './definitions.js';
import { buildPathIndex, findAtReferences, findPathLikeWords, resolveReference, resolveFramePath, type PathIndex, type Resolution } from './references.js';
import { queryTerms } from './terms.js';
import { weakMemo } from '../util/weak-memo.js';
import { sameInOrder } from '../util/sorted.js';

/**
 * What one task says, read once per run against the run's candidate paths and handed to every
 * signal, the tier rule and the record: its query terms, its resolved @-references and the
 * files it names. Nothing re-parses the task text after this.
 */
export interface TaskFacts {
  task: string;
  /** Distinct query terms (split, stopwords dropped, stemmed), sorted: the BM25 query. */
  terms: string[];
  /** Every `@reference` of the task in order, resolved against the candidates. */
  atReferences: Array<{ reference: string; resolution: Resolution }>;
  /** Files the task @-mentions by name (a mentioned directory does not flag every file under it). */
  mentioned: Set<string>;
  /** Files the task names exactly: a full path, a unique path suffix or a unique file name with extension. */
  named: Set<string>;
  /**
   * Files a stack trace or a `file:line` reference of the task points into, through a path
   * outside the root (`/app/node_modules/pkg/lib/route.js:12`, `File ".../site-packages/httpx/_client.py"`)
   * resolved by its longest suffix that is a unique candidate path. Evidence, not a name: a
   * trace lists the caller's frames too.
   */
  framed: Set<string>;
  /** Identifiers the task writes as code (definitions.ts `taskIdentifiers`), sorted. */
  identifiers: string[];
  /** The candidates' path index, reused to resolve references found in file contents. */
  paths: PathIndex;
}

/**
 * Read a task against the candidate paths of a run (or their index, candidatePathIndex). Pure.
 */
export function buildTaskFacts(task: string, paths: Iterable<string> | PathIndex): TaskFacts {
  const index = isPathIndex(paths) ? paths : buildPathIndex(paths);
  const atReferences = findAtReferences(task).map((reference) => ({ reference, resolution: resolveReference(reference, index) }));
  const mentioned = new Set<string>();
  for (const { resolution } of atReferences) if (resolution.kind === 'file') mentioned.add(resolution.path);
  const named = new Set<string>();
  const framed = new Set<string>();
  for (const word of findPathLikeWords(task)) {
    const r = resolveReference(word.replace(/^@/, ''), index);
    if (r.kind === 'file') named.add(r.path);
    else if (r.kind === 'outside') {
      const framePath = resolveFramePath(word, index);
      if (framePath !== undefined && !named.has(framePath)) framed.add(framePath);
    }
  }
  return { task, terms: queryTerms(task), atReferences, mentioned, named, framed, identifiers: taskIdentifiers(task), paths: index };
}

function isPathIndex(paths: Iterable<string> | PathIndex): paths is PathIndex {
  return typeof paths === 'object' && 'byBasename' in paths;
}

/** The last paths array candidatePaths made: the next list with the same paths gets it again. */
let lastPaths: readonly string[] = [];

/**
 * The paths of a collected file list, in order: one array per list, and the same array for a list
 * with the same paths as the last (a warm index's collect after an edit hands over a new list,
 * whose paths are the same), so what depends on the paths alone is kept with the array.
 */
export const candidatePaths: (files: readonly { path: string }[]) => readonly string[] = weakMemo((files) => {
  if (!sameInOrder(pathsIn(files), lastPaths)) lastPaths = files.map((f) => f.path);
  return lastPaths;
});

function* pathsIn(files: readonly { path: string }[]): Iterable<string> {
  for (const file of files) yield file.path;
}

/** The path index of a path list, made once per list (babel's 27k paths take ~14 ms to sort and index). */
const pathIndexOf = weakMemo((paths: readonly string[]) => buildPathIndex(paths));

/** The path index of a run's candidates (a warm index's queries share one while the paths stay the same). */
export function candidatePathIndex(files: readonly { path: string }[]): PathIndex {
  return pathIndexOf(candidatePaths(files));
}

/** How a front end tells its user to pass the task, for the one empty-task message. */
export interface TaskSource {
  /** What is missing, e.g. `--task` or `a task`. */
  what: string;
  /** A complete example, e.g. `aiwg context-budget "fix the retry loop in the http client"`. */
  example: string;
}

/** The one empty-task check: every front end that takes a task calls it before any work. */
export function requireTask(task: unknown, source: TaskSource): string {
  if (typeof task !== 'string' || task.trim() === '') {
    throw new UsageError(`the task is empty: ${source.what} is required, e.g. ${source.example}`);
  }
  return task;
}
