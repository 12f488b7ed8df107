import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyCommit, mineCommits, parseGitLog, taskText, type RawCommit } from '../../src/eval/mine-commits.js';
import { makeMiningRepo, MINING_HISTORY } from './eval-fixtures.js';
import type { Fixture } from '../helpers/fixture-repo.js';

describe('mineCommits on a fixture repository', () => {
  let repo: Fixture;
  beforeAll(() => {
    repo = makeMiningRepo();
  });
  afterAll(() => repo.cleanup());

  it('returns the qualifying commits newest first with their gold files', async () => {
    const result = await mineCommits({ root: repo.root, commits: 10 });
    expect(result.instances.map((i) => [i.subject, i.gold, i.sources])).toEqual([
      ['parse chunked bodies in the parser', ['src/parser.ts', 'src/util.ts'], ['src/parser.ts', 'src/util.ts']],
      ['add an exporter and call it from the http client', ['src/http.ts'], ['src/export.ts', 'src/http.ts']],
      ['fix retry loop in the http client', ['src/http.ts'], ['src/http.ts']],
    ]);
    expect(result.scanned).toBe(MINING_HISTORY.length);
  });

  it('counts every skipped commit under its reason', async () => {
    const { skipped } = await mineCommits({ root: repo.root, commits: 10 });
    const expected: Record<string, number> = {};
    for (const c of MINING_HISTORY) if (c.why !== 'qualifies') expected[c.why] = (expected[c.why] ?? 0) + 1;
    expect(Object.fromEntries(Object.entries(skipped).filter(([, n]) => n > 0))).toEqual(expected);
  });

  it('stops at the N most recent qualifying commits', async () => {
    const result = await mineCommits({ root: repo.root, commits: 2 });
    expect(result.instances.map((i) => i.subject)).toEqual(['parse chunked bodies in the parser', 'add an exporter and call it from the http client']);
    expect(result.scanned).toBe(2);
  });

  it('drops trailers from the task and keeps the body, with the parent and author date', async () => {
    const result = await mineCommits({ root: repo.root, commits: 10 });
    const retry = result.instances[2];
    expect(retry?.task).toBe('fix retry loop in the http client\n\nThe loop never backed off.');
    expect(retry?.dateMs).toBe(Date.parse('2026-01-02T00:00:00Z'));
    expect(retry?.parent).toBe(repo.git('rev-list', '--max-parents=0', 'HEAD').trim());
  });

  it('is deterministic', async () => {
    expect(await mineCommits({ root: repo.root, commits: 10 })).toEqual(await mineCommits({ root: repo.root, commits: 10 }));
  });

  it('rejects a non-positive commit count', async () => {
    await expect(mineCommits({ root: repo.root, commits: 0 })).rejects.toThrow(/--commits 0/);
  });
});

const commit = (message: string, files: RawCommit['files'], parents = ['p1']): RawCommit => ({ hash: 'h', parents, dateMs: 0, message, files });
const M = (path: string) => ({ status: 'M' as const, path });

describe('classifyCommit', () => {
  it.each([
    ['merge', commit('merge branch feature into main', [M('src/a.ts')], ['p1', 'p2'])],
    ['merge', commit("Merge pull request #12 from dev/feature-branch", [M('src/a.ts')])],
    ['no-source-files', commit('upgrade the bundled package manager', [M('.yarn/releases/yarn-4.1.0.cjs'), M('.pnp.cjs')])],
    ['root-commit', commit('initial import of everything', [M('src/a.ts')], [])],
    ['revert', commit('Revert "add the thing to the parser"', [M('src/a.ts')])],
    ['dependency-bump', commit('build(deps-dev): bump vitest from 1.0.0 to 2.0.0', [M('package.json')])],
    ['dependency-bump', commit('update dependencies to latest', [M('src/a.ts')])],
    ['release', commit('chore(release): 2.3.0', [M('src/a.ts')])],
    ['release', commit('Release 2.3.0 with the new parser', [M('src/a.ts')])],
    ['release', commit('bump version to 1.4.1', [M('src/version.ts')])],
    ['formatting', commit('style: apply the house formatting', [M('src/a.ts')])],
    ['formatting', commit('run prettier on the sources', [M('src/a.ts')])],
    ['formatting', commit('fix lint errors in the parser module', [M('src/a.ts')])],
    ['docs-only', commit('docs(api): describe the options', [M('src/a.ts')])],
    ['docs-only', commit('describe the options in the guide', [M('docs/guide.md'), M('README.md')])],
    ['short-message', commit('fix bug', [M('src/a.ts')])],
    ['no-source-files', commit('tune the coverage thresholds for ci', [M('vitest.config.json')])],
    ['no-source-files', commit('cover the retry path with a test', [M('src/a.test.ts'), M('test/b.ts')])],
    ['too-many-source-files', commit('split the parser into five modules', ['a', 'b', 'c', 'd', 'e'].map((n) => M(`src/${n}.ts`)))],
    ['only-added-files', commit('add a new tokenizer for the shell', [{ status: 'A', path: 'src/shell.ts' }])],
  ])('skips %s: %s', (reason, raw) => {
    expect(classifyCommit(raw)).toEqual({ ok: false, reason });
  });

  it('takes the old path of a renamed file as gold and ignores tests, docs and lockfiles', () => {
    const verdict = classifyCommit(
      commit('move the parser next to the lexer and fix its imports', [
        { status: 'R', from: 'src/parser.ts', path: 'src/lex/parser.ts' },
        M('src/index.ts'),
        M('src/index.test.ts'),
        M('CHANGELOG.md'),
        M('package-lock.json'),
      ]),
    );
    expect(verdict.ok && [verdict.instance.gold, verdict.instance.sources]).toEqual([
      ['src/index.ts', 'src/parser.ts'],
      ['src/index.ts', 'src/lex/parser.ts'],
    ]);
  });

  it('honours a custom source-file limit', () => {
    const raw = commit('touch two modules for the cache key fix', [M('src/a.ts'), M('src/b.ts')]);
    expect(classifyCommit(raw, 1)).toEqual({ ok: false, reason: 'too-many-source-files' });
    expect(classifyCommit(raw, 2).ok).toBe(true);
  });
});

describe('parseGitLog', () => {
  it('reads header fields and name-status entries, renames included', () => {
    const text =
      '\x1eaaa\x1fppp\x1f1700000000\x1fmove parser\n\nbody\n\x1f\0\nR095\0src/old.ts\0src/new.ts\0M\0src/a.ts\0' +
      '\x1eppp\x1f\x1f1690000000\x1finitial\n\x1f\0\nA\0src/a.ts\0';
    expect(parseGitLog(text)).toEqual([
      { hash: 'aaa', parents: ['ppp'], dateMs: 1700000000000, message: 'move parser\n\nbody', files: [{ status: 'R', from: 'src/old.ts', path: 'src/new.ts' }, { status: 'M', path: 'src/a.ts' }] },
      { hash: 'ppp', parents: [], dateMs: 1690000000000, message: 'initial', files: [{ status: 'A', path: 'src/a.ts' }] },
    ]);
  });
});

describe('taskText', () => {
  it.each([
    ['fix it properly\n\nSigned-off-by: A <a@b>\nCo-authored-by: B <b@c>', 'fix it properly'],
    ['subject\n\n\n\nbody', 'subject\n\nbody'],
  ])('%j', (message, expected) => {
    expect(taskText(message)).toBe(expected);
  });
});
