import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { execGit, type GitPort } from '../../src/collect/collect-ports.js';
import { cachedCommitTimes, lastCommitTimes, parseStagedFiles, parseStatus, type CommitTimesCache } from '../../src/collect/git-facts.js';
import type { CommitTimes } from '../../src/facts/fact-store.js';
import { makeTempDir } from '../helpers/fixture-repo.js';

/** `git log --format=%x00%ct --name-only -z` output for commits newest first. */
function logOutput(commits: Array<{ ct: number; names: string[] }>): Buffer {
  return Buffer.from(commits.map((c) => `\0${c.ct}\0${c.names.length ? `\n${c.names.join('\0')}\0` : ''}`).join(''), 'utf8');
}

/** A git port whose `stream` replays `output` cut at the given offsets; counts chunks consumed. */
function replayGit(output: Buffer, cuts: number[] = []) {
  const state = { chunksRead: 0 };
  const git: GitPort = {
    run: async () => Buffer.alloc(0),
    stream: async (_args, _cwd, onData) => {
      const points = [...new Set([0, ...cuts.filter((c) => c > 0 && c < output.length), output.length])].sort((a, b) => a - b);
      for (let i = 0; i + 1 < points.length; i++) {
        state.chunksRead++;
        if (!onData(output.subarray(points[i], points[i + 1]))) return;
      }
    },
  };
  return { git, state };
}

const HISTORY = [
  { ct: 300, names: ['sub/a.ts', 'top.md'] },
  { ct: 250, names: [] },
  { ct: 200, names: ['sub/b c.ts', 'sub/a.ts'] },
  { ct: 100, names: ['sub/日本.md', 'sub/b c.ts', 'sub/old.ts'] },
];

describe('lastCommitTimes', () => {
  it('takes the newest commit of each wanted path, relative to the prefix', async () => {
    const { git } = replayGit(logOutput(HISTORY));
    const times = await lastCommitTimes(git, '/r', { prefix: 'sub/', wanted: new Set(['a.ts', 'b c.ts', '日本.md']) });
    expect(Object.fromEntries(times)).toEqual({ 'a.ts': 300_000, 'b c.ts': 200_000, '日本.md': 100_000 });
  });

  it('gives the same answer however the stream is chunked (multi-byte names split included)', async () => {
    const output = logOutput(HISTORY);
    const wanted = new Set(['a.ts', 'b c.ts', '日本.md', 'old.ts']);
    const expected = await lastCommitTimes(replayGit(output).git, '/r', { prefix: 'sub/', wanted });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: output.length - 1 }), { maxLength: 12 }), async (cuts) => {
        const times = await lastCommitTimes(replayGit(output, cuts).git, '/r', { prefix: 'sub/', wanted });
        expect(times).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('stops reading once every wanted path has a time', async () => {
    const output = logOutput(HISTORY);
    const { git, state } = replayGit(output, Array.from({ length: output.length }, (_, i) => i));
    await lastCommitTimes(git, '/r', { prefix: 'sub/', wanted: new Set(['a.ts']) });
    expect(state.chunksRead).toBeLessThan(output.length / 2);
  });

  it('bounds the walk: paths not seen within maxCommits get the oldest walked commit time', async () => {
    const { git } = replayGit(logOutput(HISTORY));
    const times = await lastCommitTimes(git, '/r', { prefix: 'sub/', wanted: new Set(['a.ts', 'old.ts']), maxCommits: 2 });
    expect(Object.fromEntries(times)).toEqual({ 'a.ts': 300_000, 'old.ts': 250_000 });
  });

  it('leaves paths without history unset when the log ends', async () => {
    const { git } = replayGit(logOutput(HISTORY));
    const times = await lastCommitTimes(git, '/r', { prefix: '', wanted: new Set(['top.md', 'never.ts']) });
    expect(Object.fromEntries(times)).toEqual({ 'top.md': 300_000 });
  });
});

describe('parseStagedFiles', () => {
  it('gives a blob only for a regular file at stage 0 that git status compares with the working tree', () => {
    const entries = [
      'H 100644 1111111111111111111111111111111111111111 0\tsrc/a.ts',
      'H 100755 2222222222222222222222222222222222222222 0\tbin/run',
      'H 120000 3333333333333333333333333333333333333333 0\tlink',
      'H 160000 4444444444444444444444444444444444444444 0\tvendor/sub',
      'S 100644 5555555555555555555555555555555555555555 0\tsparse.ts',
      'h 100644 6666666666666666666666666666666666666666 0\tassumed.ts',
      'M 100644 7777777777777777777777777777777777777777 2\tconflict.ts',
    ];
    const { tracked, blobs } = parseStagedFiles(Buffer.from(entries.map((e) => `${e}\0`).join('')));
    expect([...tracked].sort()).toEqual(['assumed.ts', 'bin/run', 'conflict.ts', 'link', 'sparse.ts', 'src/a.ts', 'vendor/sub']);
    expect([...blobs.keys()].sort()).toEqual(['bin/run', 'src/a.ts']);
  });
});

describe('parseStatus', () => {
  it('keeps entries under the prefix, relative to it, and notes staged additions', () => {
    const output = Buffer.from(' M sub/a.ts\0A  sub/new.ts\0?? sub/u v.txt\0 M other/x.ts\0', 'utf8');
    const { dirty, added, untracked } = parseStatus(output, 'sub/');
    expect([...dirty]).toEqual(['a.ts', 'new.ts', 'u v.txt']);
    expect([...added]).toEqual(['new.ts']);
    expect([...untracked]).toEqual(['u v.txt']);
  });
});

/** A scratch repository whose commits get one day each, so walk order is known. */
function historyRepo(prefix: string) {
  const repo = makeTempDir(prefix);
  const run = (...args: string[]) => execFileSync('git', args, { cwd: repo.root, encoding: 'utf8' }).trim();
  let day = 0;
  const dated = () => {
    const date = `2026-01-${String(++day).padStart(2, '0')}T10:00:00Z`;
    return { ...process.env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date };
  };
  const write = (files: Record<string, string>) => {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(repo.root, path)), { recursive: true });
      writeFileSync(join(repo.root, path), text);
    }
  };
  const commit = (files: Record<string, string>, message: string) => {
    write(files);
    run('add', '-A');
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', message], { cwd: repo.root, env: dated() });
    return run('rev-parse', 'HEAD');
  };
  /** Merge `branch`, then set `files` before the merge commit (a resolution that keeps or changes paths). */
  const merge = (branch: string, files: Record<string, string>) => {
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'merge', '-q', '--no-ff', '--no-commit', '-X', 'ours', branch], { cwd: repo.root, env: dated(), stdio: 'pipe' });
    return commit(files, `merge ${branch}`);
  };
  const git = execGit();
  const filesAt = (rev: string) => new Set(run('ls-tree', '-r', '--name-only', rev).split('\n').filter(Boolean));
  const walked = (rev: string) => lastCommitTimes(git, repo.root, { prefix: '', wanted: filesAt(rev), range: rev });
  /** cachedCommitTimes through a port that records every log it streams. */
  const recorded = async (rev: string, cache: CommitTimesCache) => {
    const logs: string[][] = [];
    const recording: GitPort = { run: (args, cwd) => git.run(args, cwd), stream: (args, cwd, onData) => (logs.push(args), git.stream(args, cwd, onData)) };
    const times = await cachedCommitTimes(recording, repo.root, { prefix: '', head: rev, wanted: filesAt(rev), cache });
    return { times, logs };
  };
  run('init', '-q', '-b', 'main');
  return { root: repo.root, run, commit, merge, git, filesAt, walked, recorded, cleanup: repo.cleanup };
}

function memoryCache(): CommitTimesCache & { entries: CommitTimes[] } {
  const entries: CommitTimes[] = [];
  return { entries, commitTimes: () => entries, putCommitTimes: (_key, entry) => void entries.unshift(entry) };
}

/** A log limited to named paths rather than the whole root. */
const limitedLog = (args: string[]) => args.some((arg) => arg.startsWith(':(literal)'));

describe('cachedCommitTimes over a real history: a related HEAD walks only what lies between', () => {
  const repo = historyRepo('aiwg-commit-times-');
  const { run, commit, git, filesAt, walked, recorded } = repo;
  const a = commit({ 'src/a.ts': 'a1', 'src/b.ts': 'b1', 'docs/c.md': 'c1', 'src/old.ts': 'o1' }, 'a');
  const b = commit({ 'src/a.ts': 'a2' }, 'b');
  run('checkout', '-q', '-b', 'side');
  const side = commit({ 'src/b.ts': 'b-side', 'src/side.ts': 's1' }, 'side');
  run('checkout', '-q', 'main');
  commit({ 'docs/c.md': 'c2', 'src/new.ts': 'n1' }, 'c');
  commit({ 'docs/c.md': 'c1' }, 'revert c.md');
  rmSync(join(repo.root, 'src/old.ts'));
  const head = commit({ 'src/a.ts': 'a3' }, 'e');

  it.each([
    ['an older checkout (an ancestor of the remembered HEAD)', () => a],
    ['a checkout a few commits back', () => b],
    ['a sibling branch', () => side],
  ])('%s gets the times of a full walk', async (_name, target) => {
    const cache = memoryCache();
    const wantedHead = filesAt(head);
    await cachedCommitTimes(git, repo.root, { prefix: '', head, wanted: wantedHead, cache });
    expect(cache.entries[0]?.reach).toBe(Number(run('rev-list', '--count', head)));
    const rev = target();
    const { times, logs } = await recorded(rev, cache);
    expect(times).toEqual(await walked(rev));
    // no walk of the whole history: every log names a range or starts at the merge base
    expect(logs.every((args) => args.some((arg) => /^[0-9a-f]{40}(\.\.[0-9a-f]{40})?$/.test(arg)))).toBe(true);
    // the few stale paths are walked by name: the history is far shorter than the walk's bound
    expect(logs.some(limitedLog)).toBe(true);
    expect(cache.entries.map((e) => e.head)).toEqual([rev, head]);
    // what the new entry reaches: at least every commit of its own history
    expect(cache.entries[0]?.reach).toBeGreaterThanOrEqual(Number(run('rev-list', '--count', rev)));
    // and back again, from the entry just made
    const back = memoryCache();
    back.putCommitTimes('prefix:', cache.entries[0] as CommitTimes);
    expect(await cachedCommitTimes(git, repo.root, { prefix: '', head, wanted: wantedHead, cache: back })).toEqual(await walked(head));
  });

  it('an entry that does not know how far its HEAD reaches never walks by name, and answers the same', async () => {
    const cache = memoryCache();
    cache.putCommitTimes('prefix:', { head, times: await walked(head) });
    const { times, logs } = await recorded(b, cache);
    expect(times).toEqual(await walked(b));
    expect(logs.some(limitedLog)).toBe(false);
    expect(cache.entries[0]?.reach).toBeUndefined();
  });

  it('a remembered HEAD this clone does not know is passed over for a full walk', async () => {
    const cache = memoryCache();
    cache.putCommitTimes('prefix:', { head: 'f'.repeat(40), times: new Map([['src/a.ts', 1]]) });
    expect(await cachedCommitTimes(git, repo.root, { prefix: '', head, wanted: filesAt(head), cache })).toEqual(await walked(head));
  });

  afterAll(() => repo.cleanup());
});

describe('cachedCommitTimes across a merge whose resolution kept one side of a path', () => {
  // The side branch changed p.ts after main last did; the merge kept main's p.ts but took the
  // side's q.ts. A walk limited to p.ts would, by git's default, follow only the parent whose
  // p.ts the merge kept and miss the side's commit, which the walk of the whole root sees.
  const repo = historyRepo('aiwg-commit-times-merge-');
  const { run, commit, merge, walked, recorded } = repo;
  commit({ 'p.ts': 'p1', 'q.ts': 'q1', 'r.ts': 'r1' }, 'a');
  run('checkout', '-q', '-b', 'side');
  commit({ 'p.ts': 'p-side', 'q.ts': 'q-side' }, 'side');
  run('checkout', '-q', 'main');
  commit({ 'r.ts': 'r2' }, 'b');
  const merged = merge('side', { 'p.ts': 'p1' });
  const head = commit({ 'p.ts': 'p3' }, 'c');

  it('a checkout of the merge gets the side commit for the kept path, as a walk of the whole root does', async () => {
    const cache = memoryCache();
    await recorded(head, cache);
    const { times, logs } = await recorded(merged, cache);
    expect(logs.some(limitedLog)).toBe(true);
    const whole = await walked(merged);
    expect(times).toEqual(whole);
    expect(whole.get('p.ts')).toBe(Date.parse('2026-01-02T10:00:00Z'));
  });

  afterAll(() => repo.cleanup());
});
