import { posix } from 'node:path';
import type { CandidateFile } from '../../types.js';
import { changesPaths, type FileChanges } from '../derived.js';
import { insertSorted } from '../../util/sorted.js';

/** Lookup tables over the candidate files that every language resolver shares. */
export interface ProjectIndex {
  has(path: string): boolean;
  /** Files directly inside a directory ('' = root). */
  filesIn(dir: string): string[];
  /** Paths equal to `suffix` or ending with `/suffix`. */
  withSuffix(suffix: string): string[];
  /** Directories (holding at least one file) equal to `suffix` or ending with `/suffix`. */
  dirsWithSuffix(suffix: string): string[];
  /** Whether `dir` is the root or an ancestor directory of some file. */
  isDirectory(dir: string): boolean;
  content(path: string): string | undefined;
  /** The content hash of a file (CandidateFile.hash): what a config read records of a content lookup, not the text. */
  contentHash(path: string): string | undefined;
  /** Nearest file named `name` in `dir` or an ancestor, as a path. */
  nearest(dir: string, name: string): string | undefined;
  /**
   * A value read from the project's config files (a tsconfig's aliases, a go.mod's module path):
   * read once per index, and taken over from the `previous` reads of an earlier index while
   * every lookup it made answers the same here. `read` sees a view that records its lookups and
   * keeps its warnings apart; each call adds them to `warnings`, so every file resolved through
   * the config reports them (the graph keeps the first of each).
   */
  readConfig<T>(key: string, read: (view: ProjectIndex) => T): T;
  /** The config reads of this index, by key: hand them to the next index as `previous`. */
  readonly configs: ConfigReads;
  /**
   * The index of `files`, which hold this index's paths (only contents changed): the path tables
   * are shared and every config read is carried over; null when one of them no longer holds (a
   * file it read changed), since the files resolved through it may resolve otherwise.
   */
  withContents(files: readonly CandidateFile[]): ProjectIndex | null;
  /**
   * The index of `files`, this index's files after `changes` (paths may come and go): the path
   * tables are updated from the changed paths, and the config reads are offered as `previous`
   * (each taken over while it holds).
   */
  withPaths(files: readonly CandidateFile[], changes: FileChanges): ProjectIndex;
  /** Warnings for the record (unparseable manifests and the like). */
  warnings: string[];
}

/** Config values read through `readConfig`, with the lookups that decide whether one still holds. */
export type ConfigReads = ReadonlyMap<string, ConfigRead>;

export interface ConfigRead {
  value: unknown;
  warnings: string[];
  lookups: Lookup[];
}

type LookupName = 'has' | 'filesIn' | 'withSuffix' | 'dirsWithSuffix' | 'isDirectory' | 'content' | 'nearest';
/** A lookup a config read made, as checked again later: a content lookup is kept as its file's hash (a kept graph then holds no file texts). */
type Lookup = [name: Exclude<LookupName, 'content'> | 'contentHash', args: string[], answer: unknown];
const LOOKUPS: readonly LookupName[] = ['has', 'filesIn', 'withSuffix', 'dirsWithSuffix', 'isDirectory', 'content', 'nearest'];

export function buildProjectIndex(files: readonly CandidateFile[], previous?: ConfigReads): ProjectIndex {
  return projectIndex(pathTables(files), files, new Map(), previous);
}

/**
 * The path lookup tables of a file set: the part of an index that depends on the paths alone.
 * Each is made when a lookup first needs it: a kept graph updated after an edit looks up paths
 * and directories (babel: ~1k lookups), never base names, and the tables of 27k paths cost more
 * than the lookups.
 */
interface PathTables {
  readonly byDir: Map<string, string[]>;
  readonly byBase: Map<string, string[]>;
  readonly dirsByBase: Map<string, string[]>;
  readonly allDirs: Set<string>;
}

function pathTables(files: readonly CandidateFile[]): PathTables {
  // the paths alone: an index long kept (a server's) must not hold the candidates it was made from
  const paths = files.map((f) => f.path);
  let byDir: Map<string, string[]> | undefined;
  let byBase: Map<string, string[]> | undefined;
  let dirsByBase: Map<string, string[]> | undefined;
  let allDirs: Set<string> | undefined;
  const tables: PathTables = {
    get byDir() {
      if (byDir === undefined) {
        byDir = new Map();
        for (const path of paths) push(byDir, dirOf(path), path);
      }
      return byDir;
    },
    get byBase() {
      if (byBase === undefined) {
        byBase = new Map();
        for (const path of paths) push(byBase, posix.basename(path), path);
      }
      return byBase;
    },
    // directories holding files, by their last segment
    get dirsByBase() {
      if (dirsByBase === undefined) {
        dirsByBase = new Map();
        for (const dir of tables.byDir.keys()) if (dir !== '') push(dirsByBase, posix.basename(dir), dir);
      }
      return dirsByBase;
    },
    // every directory holding a file, and every ancestor of one
    get allDirs() {
      if (allDirs === undefined) {
        allDirs = new Set(['']);
        for (const path of paths) for (let d = dirOf(path); d !== '' && !allDirs.has(d); d = dirOf(d)) allDirs.add(d);
      }
      return allDirs;
    },
  };
  return tables;
}

/**
 * The tables after `changes`, copied where they change (the earlier index keeps its own); null
 * when a removal empties a directory (which directories exist must then be worked out again).
 */
function updateTables(tables: PathTables, changes: FileChanges): PathTables | null {
  if (!changesPaths(changes)) return tables;
  const byDir = new Map(tables.byDir);
  const byBase = new Map(tables.byBase);
  for (const { path } of changes.removed) {
    const inDir = (byDir.get(dirOf(path)) ?? []).filter((p) => p !== path);
    if (inDir.length === 0) return null;
    byDir.set(dirOf(path), inDir);
    const base = posix.basename(path);
    const named = (byBase.get(base) ?? []).filter((p) => p !== path);
    if (named.length > 0) byBase.set(base, named);
    else byBase.delete(base);
  }
  let { dirsByBase, allDirs } = tables;
  for (const { path } of changes.added) {
    const dir = dirOf(path);
    if (!byDir.has(dir)) {
      if (dirsByBase === tables.dirsByBase) dirsByBase = new Map(dirsByBase);
      if (allDirs === tables.allDirs) allDirs = new Set(allDirs);
      if (dir !== '') dirsByBase.set(posix.basename(dir), insertSorted(dirsByBase.get(posix.basename(dir)) ?? [], dir));
      for (let d = dir; d !== '' && !allDirs.has(d); d = dirOf(d)) allDirs.add(d);
    }
    byDir.set(dir, insertSorted(byDir.get(dir) ?? [], path));
    byBase.set(posix.basename(path), insertSorted(byBase.get(posix.basename(path)) ?? [], path));
  }
  return { byDir, byBase, dirsByBase, allDirs };
}

function projectIndex(tables: PathTables, files: readonly CandidateFile[], configs: Map<string, ConfigRead>, previous?: ConfigReads): ProjectIndex {
  const byPath = new Map(files.map((f) => [f.path, f]));
  const project: ProjectIndex = {
    has: (p) => byPath.has(p),
    filesIn: (dir) => tables.byDir.get(dir) ?? [],
    withSuffix(suffix) {
      const candidates = tables.byBase.get(posix.basename(suffix)) ?? [];
      return candidates.filter((p) => p === suffix || p.endsWith(`/${suffix}`));
    },
    dirsWithSuffix(suffix) {
      const candidates = suffix === '' ? (tables.byDir.has('') ? [''] : []) : (tables.dirsByBase.get(posix.basename(suffix)) ?? []);
      return candidates.filter((dir) => dir === suffix || dir.endsWith(`/${suffix}`)).sort();
    },
    isDirectory: (dir) => tables.allDirs.has(dir),
    content: (p) => byPath.get(p)?.content,
    contentHash: (p) => byPath.get(p)?.hash,
    nearest(dir, name) {
      for (let d = dir; ; d = dirOf(d)) {
        const candidate = d === '' ? name : `${d}/${name}`;
        if (byPath.has(candidate)) return candidate;
        if (d === '') return undefined;
      }
    },
    readConfig<T>(key: string, read: (view: ProjectIndex) => T): T {
      let held = configs.get(key);
      if (held === undefined) {
        const earlier = previous?.get(key);
        held = earlier !== undefined && stillHolds(earlier, project) ? earlier : recordRead(project, read);
        configs.set(key, held);
      }
      project.warnings.push(...held.warnings);
      return held.value as T; // recorded from `read` of the same key
    },
    configs,
    withContents(next) {
      const index = projectIndex(tables, next, new Map(configs));
      for (const held of configs.values()) if (!stillHolds(held, index)) return null;
      return index;
    },
    withPaths(next, changes) {
      return projectIndex(updateTables(tables, changes) ?? pathTables(next), next, new Map(), configs);
    },
    warnings: [],
  };
  return project;
}

/**
 * What a file's resolution depended on, as watch keys: each lookup it made names the path
 * changes that could answer it otherwise (`has` and `filesIn`: a path added or removed in that
 * directory; `withSuffix` and `nearest`: one with that base name; `dirsWithSuffix`: one in a
 * directory of that name; `isDirectory`: one below that directory; `content`: that path; a config
 * read: the read no longer holding). Coarser than the lookups (a directory, not each probed name),
 * so a file is resolved again more often than needed, never less. pathChangeKeys gives the keys a
 * change sets off.
 */
export interface ResolutionWatch {
  /** The project as the resolvers see it: it records the keys of each lookup into the current file's set. */
  view: ProjectIndex;
  /** The keys recorded since the last call, and a fresh set for the next file. */
  take(): Set<string>;
}

export function watchResolution(project: ProjectIndex): ResolutionWatch {
  let keys = new Set<string>();
  const view: ProjectIndex = {
    ...project,
    has: (p) => (keys.add(`d${dirOf(p)}`), project.has(p)),
    filesIn: (dir) => (keys.add(`d${dir}`), project.filesIn(dir)),
    withSuffix: (suffix) => (keys.add(`b${posix.basename(suffix)}`), project.withSuffix(suffix)),
    dirsWithSuffix: (suffix) => (keys.add(`D${posix.basename(suffix)}`), project.dirsWithSuffix(suffix)),
    isDirectory: (dir) => (keys.add(`i${dir}`), project.isDirectory(dir)),
    content: (p) => (keys.add(`c${p}`), project.content(p)),
    nearest: (dir, name) => (keys.add(`b${name}`), project.nearest(dir, name)),
    readConfig: (key, read) => (keys.add(`r${key}`), project.readConfig(key, read)),
    // the resolvers' warnings go where the project's go (prepareResolver empties and takes them)
    get warnings() {
      return project.warnings;
    },
    set warnings(value) {
      project.warnings = value;
    },
  };
  return {
    view,
    take() {
      const taken = keys;
      keys = new Set();
      return taken;
    },
  };
}

/**
 * The watch keys (watchResolution) that a change of the file set sets off: for each path added
 * or removed, its directory, base name, directory's name, every directory above it and the path
 * itself; for each path whose content changed, the path; and each config read that no longer
 * holds (carryReads, stillHolds), by key.
 */
export function pathChangeKeys(paths: { added: readonly string[]; removed: readonly string[]; changed: readonly string[] }, failedReads: Iterable<string>): Set<string> {
  const keys = new Set<string>();
  for (const path of [...paths.added, ...paths.removed]) {
    const dir = dirOf(path);
    keys.add(`d${dir}`);
    keys.add(`b${posix.basename(path)}`);
    keys.add(`D${posix.basename(dir)}`);
    keys.add(`c${path}`);
    for (let d = dir; ; d = dirOf(d)) {
      keys.add(`i${d}`);
      if (d === '') break;
    }
  }
  for (const path of paths.changed) keys.add(`c${path}`);
  for (const key of failedReads) keys.add(`r${key}`);
  return keys;
}

/**
 * The config reads of `before` that still hold in `after` become `after`'s (files not resolved
 * again went through them, and the next change must be checked against them too); the keys of
 * the others, which are read anew on use, are returned.
 */
export function carryReads(before: ConfigReads, after: ProjectIndex): string[] {
  const held = after.configs as Map<string, ConfigRead>;
  const failed: string[] = [];
  for (const [key, read] of before) {
    if (held.has(key)) continue;
    if (stillHolds(read, after)) held.set(key, read);
    else failed.push(key);
  }
  return failed;
}

function recordRead(project: ProjectIndex, read: (view: ProjectIndex) => unknown): ConfigRead {
  const lookups: Lookup[] = [];
  const view = { ...project, warnings: [] as string[] };
  for (const name of LOOKUPS) {
    const lookup = project[name] as (...args: string[]) => unknown; // every LOOKUPS entry takes string arguments
    (view as Record<LookupName, unknown>)[name] = (...args: string[]) => {
      const answer = lookup(...args);
      if (name === 'content') lookups.push(['contentHash', args, project.contentHash(args[0]!)]);
      else lookups.push([name, args, answer]);
      return answer;
    };
  }
  const value = read(view);
  return { value, warnings: view.warnings, lookups };
}

/** Whether every lookup of a config read (also one kept with its lookups alone) answers the same in `project`. */
export function stillHolds(read: Pick<ConfigRead, 'lookups'>, project: ProjectIndex): boolean {
  return read.lookups.every(([name, args, answer]) => sameAnswer((project[name] as (...a: string[]) => unknown)(...args), answer));
}

function sameAnswer(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => x === b[i]);
  return a === b;
}

/** Directory of a root-relative path ('' for the root). */
export function dirOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i === -1 ? '' : path.slice(0, i);
}

/** Join and normalise; null when the result climbs out of the root. */
export function joinInside(dir: string, relative: string): string | null {
  const joined = posix.normalize(dir === '' ? relative : `${dir}/${relative}`);
  if (joined === '..' || joined.startsWith('../') || joined.startsWith('/')) return null;
  return joined === '.' ? '' : joined.replace(/\/$/, '');
}

function push(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
