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
  return {
    has: (p) => byPath.has(p),
    filesIn: (dir) => byDir.get(dir) ?? [],
    withSuffix(suffix) {
      const candidates = byBase.get(posix.basename(suffix)) ?? [];
      return candidates.filter((p) => p === suffix || p.endsWith(`/${suffix}`));
    },
    dirsWithSuffix(suffix) {
      const out: string[] = [];
      for (const dir of byDir.keys()) if (dir === suffix || dir.endsWith(`/${suffix}`)) out.push(dir);
      return out.sort();
    },
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
