import { watch, type FSWatcher } from 'node:fs';
import { basename, join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Change notification for the warm index: one non-recursive `fs.watch` (inotify on Linux) per
 * directory that holds a collected path, and per directory of git's index/HEAD/ref files. Any
 * event in any of them marks the tree dirty, so a query after an idle period costs no stat of
 * the tree at all; an event names the entry that changed, so a query after an edit looks at
 * that entry alone. Watchers persist across collects (only directories that appear or vanish are
 * added or closed). When a directory cannot be watched (the inotify watch limit, too many
 * directories) or a watcher fails, the watch reports `usable: false` and the caller compares stats.
 */
export interface TreeWatch {
  /** False once any watcher could not be set up or failed: compare stats instead. */
  readonly usable: boolean;
  /**
   * What changed since `markClean` (waiting for events already queued by the kernel first): the absolute paths the events named,
   * or 'all' when an event cannot be pinned to an entry of the tree (git's index, HEAD or refs,
   * a watched directory gone, an unnamed event, more than MAX_CHANGED_ENTRIES) or after markDirty.
   */
  changes(): Promise<ReadonlySet<string> | 'all'>;
  markClean(): void;
  markDirty(): void;
  /**
   * Watch exactly these directories (absolute), each for the entry names given (undefined: any),
   * keeping the watchers of those already watched the same way. Returns how many were added:
   * changes in them before now were not seen, so the caller compares stats once.
   */
  watchDirectories(dirs: ReadonlyMap<string, ReadonlySet<string> | undefined>): number;
  close(): void;
}

/** More directories than this are compared by stat instead (each watcher costs a kernel watch and a handle). */
export const MAX_WATCHED_DIRECTORIES = 50_000;
/** Beyond this many changed entries the change is 'all' (a checkout, a generator): collect everything again. */
export const MAX_CHANGED_ENTRIES = 1000;

export function createTreeWatch(): TreeWatch {
  const watchers = new Map<string, { watcher: FSWatcher; names: ReadonlySet<string> | undefined }>();
  // Directories whose own entry was removed or renamed: their watch ended with them, even when a
  // directory made again at the same path gets the same inode number.
  const ended = new Set<string>();
  // 'all' until the first markClean; then the entries named by events since
  let changed: Set<string> | 'all' = 'all';
  const changedAll = () => {
    changed = 'all';
  };
  const changedEntry = (abs: string) => {
    if (changed === 'all') return;
    changed.add(abs);
    if (changed.size > MAX_CHANGED_ENTRIES) changed = 'all';
  };
  const changes = async (): Promise<ReadonlySet<string> | 'all'> => {
    // An edit finished before this call has queued its inotify event; two turns of the event
    // loop put a full poll phase after it, so its callback has run when we look.
    await nextTurn();
    await nextTurn();
    return changed;
  };
  let usable = true;
  const fail = () => {
    usable = false;
    changedAll();
    for (const w of watchers.values()) w.watcher.close();
    watchers.clear();
  };
  return {
    get usable() {
      return usable;
    },
    changes,
    markClean() {
      changed = new Set();
    },
    markDirty: changedAll,
    watchDirectories(dirs) {
      if (!usable) return 0;
      if (dirs.size > MAX_WATCHED_DIRECTORIES) {
        fail();
        return 0;
      }
      let added = 0;
      for (const [dir, w] of watchers) {
        if (!dirs.has(dir) || !sameNames(dirs.get(dir), w.names) || ended.has(dir)) {
          w.watcher.close();
          watchers.delete(dir);
        }
      }
      ended.clear();
      for (const [dir, names] of dirs) {
        if (watchers.has(dir)) continue;
        try {
          const self = basename(dir);
          const watcher = watch(dir, { persistent: false }, (event, name) => {
            // the directory itself went away (Linux reports its own name); a child of the same name only costs a new watch
            if (event === 'rename' && name !== null && String(name) === self) {
              ended.add(dir);
              changedAll();
            }
            // a name we cannot read (null) may be any entry
            if (name === null) changedAll();
            // in git's directories only the files named matter, and any change there is a change of everything
            else if (names !== undefined) {
              if (names.has(String(name))) changedAll();
            } else changedEntry(join(dir, String(name)));
          });
          watcher.on('error', fail);
          watchers.set(dir, { watcher, names });
          added++;
        } catch (error) {
          // a directory that vanished since the collect: the tree changed
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
            changedAll();
            continue;
          }
          // ENOSPC (inotify watch limit), EMFILE, no watch support: compare stats instead
          fail();
          return 0;
        }
      }
      return added;
    },
    close() {
      for (const w of watchers.values()) w.watcher.close();
      watchers.clear();
      usable = false;
    },
  };
}

function sameNames(a: ReadonlySet<string> | undefined, b: ReadonlySet<string> | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.size === b.size && [...a].every((n) => b.has(n));
}
