import { lstatSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { CollectResult } from '../types.js';
import { underRoot } from '../util/root-path.js';

/**
 * What a long-lived process compares between queries to know whether anything changed since
 * the last collect, without asking git: the (size, mtime, inode, ctime) of every collected path, the
 * mtime of every directory above them (a file created, deleted or renamed changes its
 * directory), and git's index, HEAD and the ref HEAD names (a commit, checkout or `git add`).
 * Any difference, or a snapshot taken while files were still being written, means: collect
 * again (incrementally, through the fact store).
 */
export interface TreeSnapshot {
  entries: Map<string, string>;
  /**
   * What a TreeWatch watches: absolute directory -> the entry names that matter in it
   * (undefined: all of them). In git's directories only the index, HEAD and ref files matter;
   * every git command's `index.lock` there is not a change.
   */
  watch: Map<string, Set<string> | undefined>;
  /** A stat this close to the snapshot's time could change again without changing the stat. */
  racy: boolean;
  /** False for a snapshot of the directories alone (no stat taken): it can tell no change apart. */
  statted: boolean;
}

/** Files and directories whose stat changes when git's view of the repository changes. */
export interface GitMetaPaths {
  gitDir: string;
  commonDir: string;
}

const RACY_MS = 2000;

/**
 * `stats` false: the directories to watch only, no stat of any path (what a long-lived index
 * whose watchers already cover the tree needs after a collect).
 */
export function takeSnapshot(rootReal: string, collected: CollectResult, git: GitMetaPaths | undefined, nowMs: number, options: { stats?: boolean } = {}): TreeSnapshot {
  const statted = options.stats ?? true;
  const entries = new Map<string, string>();
  let racy = false;
  const record = (abs: string) => {
    if (!statted) return;
    const key = statKey(abs);
    entries.set(abs, key);
    const mtime = Number(key.split(':')[1]);
    if (Number.isFinite(mtime) && mtime > nowMs - RACY_MS) racy = true;
  };
  const dirs = new Set<string>(['']);
  const paths = [...collected.files.map((f) => f.path), ...collected.excluded.map((e) => e.path.replace(/\/$/, ''))];
  for (const path of paths) {
    record(toAbs(rootReal, path));
    for (let slash = path.lastIndexOf('/'); slash > 0; slash = path.lastIndexOf('/', slash - 1)) {
      const dir = path.slice(0, slash);
      if (dirs.has(dir)) break;
      dirs.add(dir);
    }
  }
  const watch = new Map<string, Set<string> | undefined>();
  for (const dir of dirs) {
    const abs = toAbs(rootReal, dir);
    record(abs);
    watch.set(abs, undefined);
  }
  if (git) {
    for (const abs of gitMetaFiles(git)) {
      record(abs);
      const dir = dirname(abs);
      if (watch.has(dir) && watch.get(dir) === undefined) continue;
      watch.set(dir, (watch.get(dir) ?? new Set()).add(basename(abs)));
    }
  }
  return { entries, watch, racy, statted };
}

/** True when any recorded stat differs now (or the snapshot was racy). */
export function changedSince(snapshot: TreeSnapshot, git: GitMetaPaths | undefined): boolean {
  if (snapshot.racy || !snapshot.statted) return true;
  for (const [abs, key] of snapshot.entries) if (statKey(abs) !== key) return true;
  // HEAD may now name another ref file than the one recorded
  if (git) for (const abs of gitMetaFiles(git)) if (!snapshot.entries.has(abs)) return true;
  return false;
}

function gitMetaFiles(git: GitMetaPaths): string[] {
  const files = [join(git.gitDir, 'index'), join(git.gitDir, 'HEAD'), join(git.commonDir, 'packed-refs')];
  try {
    const head = readFileSync(join(git.gitDir, 'HEAD'), 'utf8');
    const ref = /^ref: (\S+)/.exec(head)?.[1];
    if (ref !== undefined && !ref.includes('..')) files.push(join(git.commonDir, ...ref.split('/')));
  } catch {
    // no HEAD file: the stat of HEAD (missing) is recorded anyway
  }
  return files;
}

function statKey(abs: string): string {
  try {
    const s = lstatSync(abs, { bigint: false });
    return `${s.size}:${s.mtimeMs}:${s.ino}:${s.mode}:${s.ctimeMs}`;
  } catch (error) {
    return `missing:${(error as NodeJS.ErrnoException).code ?? ''}`;
  }
}

function toAbs(rootReal: string, path: string): string {
  return underRoot(rootReal, path);
}
