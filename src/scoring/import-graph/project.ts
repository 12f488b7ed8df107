import { posix } from 'node:path';
import type { CandidateFile } from '../../types.js';

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
  /** Nearest file named `name` in `dir` or an ancestor, as a path. */
  nearest(dir: string, name: string): string | undefined;
  /** Warnings for the record (unparseable manifests and the like). */
  warnings: string[];
}

export function buildProjectIndex(files: CandidateFile[]): ProjectIndex {
  const byPath = new Map(files.map((f) => [f.path, f]));
  const byDir = new Map<string, string[]>();
  const byBase = new Map<string, string[]>();
  for (const f of files) {
    push(byDir, dirOf(f.path), f.path);
    push(byBase, posix.basename(f.path), f.path);
  }
  // directories holding files, by their last segment, and every ancestor directory
  const dirsByBase = new Map<string, string[]>();
  const allDirs = new Set<string>(['']);
  for (const dir of byDir.keys()) {
    if (dir !== '') push(dirsByBase, posix.basename(dir), dir);
    for (let d = dir; d !== '' && !allDirs.has(d); d = dirOf(d)) allDirs.add(d);
  }
  return {
    has: (p) => byPath.has(p),
    filesIn: (dir) => byDir.get(dir) ?? [],
    withSuffix(suffix) {
      const candidates = byBase.get(posix.basename(suffix)) ?? [];
      return candidates.filter((p) => p === suffix || p.endsWith(`/${suffix}`));
    },
    dirsWithSuffix(suffix) {
      const candidates = suffix === '' ? (byDir.has('') ? [''] : []) : (dirsByBase.get(posix.basename(suffix)) ?? []);
      return candidates.filter((dir) => dir === suffix || dir.endsWith(`/${suffix}`)).sort();
    },
    isDirectory: (dir) => allDirs.has(dir),
    content: (p) => byPath.get(p)?.content,
    nearest(dir, name) {
      for (let d = dir; ; d = dirOf(d)) {
        const candidate = d === '' ? name : `${d}/${name}`;
        if (byPath.has(candidate)) return candidate;
        if (d === '') return undefined;
      }
    },
    warnings: [],
  };
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
