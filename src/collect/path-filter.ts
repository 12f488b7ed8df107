import { createPathExclusion, EXCLUDED_DIRS, type RuleOptions } from './exclusion-rules.js';
import { IgnoreMatcher, parseIgnoreLine, type IgnoreRule } from './ignore-rules.js';
import { createGlobMatcher } from '../util/glob.js';

/** Path-only decisions of the collect stage, shared by the git listing and the tree walk. */
export interface PathFilter {
  /** Why a whole directory (root-relative, no trailing `/`) is left out, or undefined. */
  dirReason(dir: string): string | undefined;
  /** The closest-to-root excluded ancestor directory of a file, with its reason. */
  excludedAncestor(path: string): { dir: string; reason: string } | undefined;
  /** Why a file is left out by its path alone (collect.ignore, lockfiles, secrets by name, ...). */
  fileReason(path: string): string | undefined;
}

export interface PathFilterOptions {
  /** config.collect.ignore: gitignore-style globs relative to the root. */
  ignore: string[];
  /** config.collect.include: when not empty, only files matching one of these globs are candidates. */
  include?: string[];
  /** Root-relative directories holding aiwg's own caches and records. */
  ownDirs: string[];
  rules: RuleOptions;
}

export function createPathFilter(options: PathFilterOptions): PathFilter {
  const configRules = options.ignore.map((glob) => parseIgnoreLine(glob, '')).filter((r): r is IgnoreRule => r !== undefined);
  const configIgnore = new IgnoreMatcher(configRules);
  const ownDirs = new Set(options.ownDirs);
  const include = options.include ?? [];
  // `dir/` means everything under dir, as a user writing an include list expects.
  const included = createGlobMatcher(include.map((glob) => (glob.endsWith('/') ? `${glob}**` : glob)));
  const includeReason = `not matched by collect.include (${include.join(', ')})`;
  const dirCache = new Map<string, string | undefined>();
  const pathExclusion = createPathExclusion(options.rules);

  const dirReason = (dir: string): string | undefined => {
    if (dirCache.has(dir)) return dirCache.get(dir);
    const name = dir.slice(dir.lastIndexOf('/') + 1);
    let reason: string | undefined;
    if (ownDirs.has(dir)) reason = "aiwg's own directory (config, caches and records)";
    else if (EXCLUDED_DIRS.has(name)) reason = EXCLUDED_DIRS.get(name);
    else {
      const rule = configRules.length > 0 ? configIgnore.ignoredBy(dir, true) : undefined;
      if (rule) reason = `ignored by collect.ignore "${rule.pattern}"`;
    }
    dirCache.set(dir, reason);
    return reason;
  };

  // per directory, the closest-to-root excluded one at or above it (null: none): a file costs one
  // lookup of its directory, not a slice and a lookup per level
  const ancestorCache = new Map<string, { dir: string; reason: string } | null>();
  const excludedAtOrAbove = (dir: string): { dir: string; reason: string } | null => {
    let found = ancestorCache.get(dir);
    if (found !== undefined) return found;
    const slash = dir.lastIndexOf('/');
    found = (slash === -1 ? null : excludedAtOrAbove(dir.slice(0, slash))) ?? null;
    if (found === null) {
      const reason = dirReason(dir);
      if (reason !== undefined) found = { dir, reason };
    }
    ancestorCache.set(dir, found);
    return found;
  };

  return {
    dirReason,
    excludedAncestor(path) {
      const slash = path.lastIndexOf('/');
      return slash === -1 ? undefined : (excludedAtOrAbove(path.slice(0, slash)) ?? undefined);
    },
    fileReason(path) {
      const rule = configRules.length > 0 ? configIgnore.ignoredBy(path) : undefined;
      if (rule) return `ignored by collect.ignore "${rule.pattern}"`;
      if (include.length > 0 && included(path) < 0) return includeReason;
      return pathExclusion(path);
    },
  };
}
