import { globToRegExp } from '../util/glob.js';

/**
 * A small .gitignore interpreter, for `collect.ignore` globs and for walking a directory that
 * is not a git repository. Supported: comments, blank lines, `!` negation, trailing `/`
 * (directories only), leading or inner `/` (anchored to the .gitignore's directory), `*`, `?`,
 * `**`, `[...]`, and `\#` / `\!` escapes. The last matching rule wins, rules of deeper
 * .gitignore files come after their parents', and a file inside an ignored directory stays
 * ignored (git does not look inside it either). Not supported: core.excludesFile and
 * .git/info/exclude (there is no repository), and trailing-space escapes.
 */
export interface IgnoreRule {
  /** Directory of the .gitignore, root-relative ('' for the root). */
  base: string;
  pattern: string;
  regex: RegExp;
  negate: boolean;
  dirOnly: boolean;
}

/** Parse the text of one .gitignore file located in `base`. */
export function parseIgnoreFile(text: string, base: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const rawLine of text.split(/\r?\n/)) {
    const rule = parseIgnoreLine(rawLine, base);
    if (rule) rules.push(rule);
  }
  return rules;
}

export function parseIgnoreLine(rawLine: string, base: string): IgnoreRule | undefined {
  let line = rawLine.replace(/\s+$/, '');
  if (line === '' || line.startsWith('#')) return undefined;
  let negate = false;
  if (line.startsWith('!')) {
    negate = true;
    line = line.slice(1);
  } else if (line.startsWith('\\#') || line.startsWith('\\!')) line = line.slice(1);
  const dirOnly = line.endsWith('/');
  if (dirOnly) line = line.slice(0, -1);
  if (line === '') return undefined;
  return { base, pattern: rawLine.trim(), regex: globToRegExp(line), negate, dirOnly };
}

/**
 * Decide for root-relative paths, caching directory decisions so each directory is matched
 * once per run.
 */
export class IgnoreMatcher {
  private readonly rules: IgnoreRule[] = [];
  private readonly dirCache = new Map<string, IgnoreRule | undefined>();

  constructor(rules: IgnoreRule[] = []) {
    this.add(rules);
  }

  add(rules: IgnoreRule[]): void {
    this.rules.push(...rules);
    this.dirCache.clear();
  }

  get isEmpty(): boolean {
    return this.rules.length === 0;
  }

  /** The rule that ignores `path` (itself or an ancestor directory), or undefined. */
  ignoredBy(path: string, isDir = false): IgnoreRule | undefined {
    if (this.rules.length === 0) return undefined;
    const slash = path.lastIndexOf('/');
    if (slash > 0) {
      const parent = this.dirRule(path.slice(0, slash));
      if (parent) return parent;
    }
    return this.lastMatch(path, isDir);
  }

  private dirRule(dir: string): IgnoreRule | undefined {
    if (this.dirCache.has(dir)) return this.dirCache.get(dir);
    const rule = this.ignoredBy(dir, true);
    this.dirCache.set(dir, rule);
    return rule;
  }

  private lastMatch(path: string, isDir: boolean): IgnoreRule | undefined {
    let result: IgnoreRule | undefined;
    for (const rule of this.rules) {
      if (rule.dirOnly && !isDir) continue;
      if (rule.base !== '' && !path.startsWith(`${rule.base}/`)) continue;
      const relative = rule.base === '' ? path : path.slice(rule.base.length + 1);
      if (rule.regex.test(relative)) result = rule.negate ? undefined : rule;
    }
    return result;
  }
}
