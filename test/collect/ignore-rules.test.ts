import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { IgnoreMatcher, parseIgnoreFile } from '../../src/collect/ignore-rules.js';
import { makeFixtureRepo } from '../helpers/fixture-repo.js';

const ROOT_RULES = ['# comment', '', '*.log', '!keep.log', '/build/', 'docs/*.tmp', '**/cache/**', 'a?c.txt', 'x[0-9].md', '\\#hash', 'deep/**/z.ts', 'only-dir/'].join('\n');
const NESTED_RULES = 'secret.txt\n!important.log\n/local-only\n';

/** Paths checked against both our matcher and `git check-ignore`. */
const CASES = [
  'app.log',
  'src/app.log',
  'keep.log',
  'build/out.js',
  'src/build/out.js',
  'docs/a.tmp',
  'docs/sub/a.tmp',
  'x/cache/y/z.txt',
  'abc.txt',
  'ac.txt',
  'x1.md',
  'xa.md',
  '#hash',
  'deep/z.ts',
  'deep/a/b/z.ts',
  'only-dir/f.txt',
  'src/only-dir',
  'pkg/secret.txt',
  'secret.txt',
  'pkg/important.log',
  'pkg/local-only',
  'pkg/sub/local-only',
];

describe('IgnoreMatcher', () => {
  const matcher = new IgnoreMatcher([...parseIgnoreFile(ROOT_RULES, ''), ...parseIgnoreFile(NESTED_RULES, 'pkg')]);

  it('agrees with git check-ignore on every case', () => {
    const repo = makeFixtureRepo([], { untracked: { '.gitignore': ROOT_RULES, 'pkg/.gitignore': NESTED_RULES } });
    try {
      const input = CASES.join('\n');
      let out = '';
      try {
        out = execFileSync('git', ['check-ignore', '--no-index', '--stdin'], { cwd: repo.root, input, encoding: 'utf8' });
      } catch (error) {
        // Exit 1 means "none ignored"; anything else is a real failure.
        if ((error as { status?: number }).status !== 1) throw error;
      }
      const ignoredByGit = new Set(out.split('\n').filter(Boolean));
      const ours = CASES.map((path) => [path, matcher.ignoredBy(path) !== undefined]);
      const gits = CASES.map((path) => [path, ignoredByGit.has(path)]);
      expect(ours).toEqual(gits);
      expect(gits.filter(([, ignored]) => ignored).length).toBeGreaterThan(10);
    } finally {
      repo.cleanup();
    }
  });

  it.each([
    ['app.log', '*.log'],
    ['pkg/secret.txt', 'secret.txt'],
    ['build/out.js', '/build/'],
  ])('names the rule that ignores %s', (path, pattern) => {
    expect(matcher.ignoredBy(path)?.pattern).toBe(pattern);
  });

  it('applies directory-only rules to directories, not to files of that name', () => {
    expect(matcher.ignoredBy('only-dir', true)).toBeDefined();
    expect(matcher.ignoredBy('only-dir', false)).toBeUndefined();
  });
});
