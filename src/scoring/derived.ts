import type { CandidateFile } from '../types.js';

/**
 * Task-independent data derived from a collected file set (the import graph, the BM25
 * documents, the categories), kept by a long-lived score stage between queries. When the file
 * set changes (an edit between two queries), a value that has an update is brought up to date
 * from the files that changed instead of being built again; the update must give exactly what a
 * build on the new set gives (test/scoring/derived.test.ts holds every registered one to that).
 */

/** What a file set is diffed by: each file's path and content address. */
type Keyed = Pick<CandidateFile, 'path' | 'hash'>;

/**
 * What changed between two file sets, by path; a file counts as changed when its content address
 * differs. The sets may hold other things than candidates (a kept list of paths and hashes).
 */
export interface FileChanges<B extends Keyed = CandidateFile, A extends Keyed = B> {
  added: A[];
  removed: B[];
  /** Same path, other content: the file before and after. */
  changed: Array<{ before: B; after: A }>;
}

/**
 * `derived(key, build, update?)`: the value of `key` for the current file set. `update(previous,
 * changes)` turns the value of an earlier set into this set's; it must not mutate `previous`
 * (a run may still hold it). Without `update` a changed set builds again.
 */
export type Derive = <T>(key: string, build: () => T, update?: (previous: T, changes: FileChanges) => T) => T;

/** No change at all: what an update from a value of the same set sees. */
export const NO_CHANGES: FileChanges = { added: [], removed: [], changed: [] };

/**
 * The store a long-lived stage keeps: `forFiles(files)` gives the `derived` of one file set (the
 * same `files` array, the same values). Each key keeps its last value with the set it was made
 * for, so a key a query did not ask for is still updated (over all changes since) when asked later.
 */
export function createDerivedStore(): { forFiles(files: readonly CandidateFile[]): Derive } {
  const held = new Map<string, { files: readonly CandidateFile[]; value: unknown }>();
  // the changes from an earlier set to the current one, per earlier set: every key shares them
  let changesTo: { files: readonly CandidateFile[]; from: WeakMap<readonly CandidateFile[], FileChanges> } | undefined;
  const changesFrom = (before: readonly CandidateFile[], files: readonly CandidateFile[]): FileChanges => {
    if (changesTo?.files !== files) changesTo = { files, from: new WeakMap() };
    let changes = changesTo.from.get(before);
    if (changes === undefined) {
      changes = diffFiles(before, files);
      changesTo.from.set(before, changes);
    }
    return changes;
  };
  return {
    forFiles(files) {
      return <T>(key: string, build: () => T, update?: (previous: T, changes: FileChanges) => T): T => {
        const last = held.get(key);
        if (last?.files === files) return last.value as T; // stored below for this key and set
        const value = last !== undefined && update !== undefined ? update(last.value as T, changesFrom(last.files, files)) : build();
        held.set(key, { files, value });
        return value;
      };
    },
  };
}

/** The changes from `before` to `after`, matched by path; same object or same content address = unchanged. */
export function diffFiles<B extends Keyed = CandidateFile, A extends Keyed = B>(before: readonly B[], after: readonly A[]): FileChanges<B, A> {
  return diffSorted(before, after) ?? diffByMap(before, after);
}

/**
 * Both sets in path order (as collect gives them): one walk, and an unchanged file, the same
 * object, costs one comparison. Null when either is out of order.
 */
function diffSorted<B extends Keyed, A extends Keyed>(before: readonly B[], after: readonly A[]): FileChanges<B, A> | null {
  const changes: FileChanges<B, A> = { added: [], removed: [], changed: [] };
  let i = 0;
  let j = 0;
  while (i < before.length || j < after.length) {
    const was = before[i];
    const now = after[j];
    if ((was as Keyed | undefined) === now) {
      i++;
      j++;
      continue;
    }
    if ((i > 0 && was !== undefined && before[i - 1]!.path >= was.path) || (j > 0 && now !== undefined && after[j - 1]!.path >= now.path)) return null;
    if (now === undefined || (was !== undefined && was.path < now.path)) {
      changes.removed.push(was!); // the loop runs while one of them is left
      i++;
    } else if (was === undefined || now.path < was.path) {
      changes.added.push(now);
      j++;
    } else {
      if (was.hash !== now.hash) changes.changed.push({ before: was, after: now });
      i++;
      j++;
    }
  }
  return changes;
}

function diffByMap<B extends Keyed, A extends Keyed>(before: readonly B[], after: readonly A[]): FileChanges<B, A> {
  const old = new Map<string, B>();
  for (const f of before) old.set(f.path, f);
  const changes: FileChanges<B, A> = { added: [], removed: [], changed: [] };
  for (const f of after) {
    const was = old.get(f.path);
    if (was === undefined) changes.added.push(f);
    else {
      old.delete(f.path);
      if ((was as Keyed) !== f && was.hash !== f.hash) changes.changed.push({ before: was, after: f });
    }
  }
  changes.removed.push(...old.values());
  return changes;
}

/** Whether a change set changes which paths exist (what resolvers of paths depend on). */
export function changesPaths(changes: FileChanges<Keyed, Keyed>): boolean {
  return changes.added.length > 0 || changes.removed.length > 0;
}
