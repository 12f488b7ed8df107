import { posix } from 'node:path';
import { lowerBound } from '../util/sorted.js';

/**
 * Resolving what a text refers to (`@src/a.ts`, `a.ts`, `@docs/`) to candidate paths.
 * Shared by mention density (@-mentions) and exact-name promotion (plain names in the task).
 * A reference that would resolve outside the root (absolute, or climbing with `..`) is refused.
 */

export interface PathIndex {
  paths: Set<string>;
  /** Basename -> every path with that basename (ambiguous when more than one). */
  byBasename: Map<string, string[]>;
  sorted: string[];
}

export type Resolution =
  | { kind: 'file'; path: string }
  | { kind: 'directory'; paths: string[] }
  | { kind: 'ambiguous'; candidates: string[] }
  | { kind: 'outside' }
  | { kind: 'none' };

export function buildPathIndex(paths: Iterable<string>): PathIndex {
  const sorted = [...paths].sort();
  const byBasename = new Map<string, string[]>();
  for (const p of sorted) {
    const base = posix.basename(p);
    const list = byBasename.get(base);
    if (list) list.push(p);
    else byBasename.set(base, [p]);
  }
  return { paths: new Set(sorted), byBasename, sorted };
}

/** Resolve one reference (without the `@`) against the candidate files. */
export function resolveReference(reference: string, index: PathIndex): Resolution {
  const ref = cleanReference(reference);
  if (ref === '') return { kind: 'none' };
  if (ref.startsWith('/') || /^[A-Za-z]:/.test(ref) || ref.startsWith('~')) return { kind: 'outside' };
  const normal = posix.normalize(ref);
  if (normal === '..' || normal.startsWith('../')) return { kind: 'outside' };
  const path = normal.replace(/^\.\//, '');
  if (index.paths.has(path)) return { kind: 'file', path };
  if (ref.endsWith('/') || !posix.basename(path).includes('.')) {
    const prefix = `${path.replace(/\/$/, '')}/`;
    const under = prefixRange(index.sorted, prefix);
    if (under.length > 0) return { kind: 'directory', paths: under };
  }
  if (!path.includes('/')) {
    const byName = index.byBasename.get(path);
    if (byName === undefined) return { kind: 'none' };
    return byName.length === 1 ? { kind: 'file', path: byName[0] as string } : { kind: 'ambiguous', candidates: byName };
  }
  const byName = index.byBasename.get(posix.basename(path)) ?? [];
  const suffixed = byName.filter((p) => p.endsWith(`/${path}`));
  if (suffixed.length === 1) return { kind: 'file', path: suffixed[0] as string };
  return suffixed.length > 1 ? { kind: 'ambiguous', candidates: suffixed } : { kind: 'none' };
}

/**
 * A path from outside the root (a stack frame's absolute path) mapped to the candidate it ends
 * with: the longest suffix of two or more components that resolves to exactly one file. Only
 * names are compared; nothing outside the root is read.
 */
export function resolveFramePath(reference: string, index: PathIndex): string | undefined {
  const parts = cleanReference(reference).replace(/\\/g, '/').split('/').filter((p) => p !== '' && p !== '.' && p !== '..' && !/^[A-Za-z]:$/.test(p));
  for (let start = 0; start <= parts.length - 2; start++) {
    const r = resolveReference(parts.slice(start).join('/'), index);
    if (r.kind === 'file') return r.path;
    if (r.kind === 'ambiguous') return undefined;
  }
  return undefined;
}

/** Strip what commonly trails a path in prose and links: `:12`, `#L3`, punctuation, quotes. */
export function cleanReference(reference: string): string {
  return reference
    .replace(/^[`'"(<[]+/, '')
    .replace(/(?::\d+(?::\d+)?|#L\d+(?:-L?\d+)?)$/, '')
    .replace(/[`'")>\],;:!?.]+$/, '');
}

/** Every `@reference` in a text. An `@` glued to a word (emails, decorators' owners) is skipped. */
export function findAtReferences(text: string): string[] {
  const out: string[] = [];
  if (!text.includes('@')) return out;
  const re = /(?<![A-Za-z0-9_@.])@([A-Za-z0-9_./~-][A-Za-z0-9_./~+-]*)/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) out.push(m[1] as string);
  return out;
}

/** Path-like words of a text (`src/a.ts`, `http-client.ts`): the candidates for exact-name promotion. */
export function findPathLikeWords(text: string): string[] {
  const out: string[] = [];
  const re = /[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.[A-Za-z0-9]{1,10}\b|[A-Za-z0-9_.-]+\/[A-Za-z0-9_./-]+/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) out.push(m[0]);
  return out;
}

function prefixRange(sorted: string[], prefix: string): string[] {
  const out: string[] = [];
  for (let i = lowerBound(sorted, prefix); i < sorted.length && (sorted[i] as string).startsWith(prefix); i++) out.push(sorted[i] as string);
  return out;
}
