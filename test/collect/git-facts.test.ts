import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { execGit, type GitPort } from '../../src/collect/collect-ports.js';
import { cachedCommitTimes, lastCommitTimes, parseStagedFiles, parseStatus, walkCommitTimes, type CommitTimesCache } from '../../src/collect/git-facts.js';
import { packRecent, unpackRecent, type RecentHistory } from '../../src/collect/recent-history.js';
import type { CommitTimes } from '../../src/facts/fact-store.js';
import { makeTempDir } from '../helpers/fixture-repo.js';

/** `git log --format='%x00%H %ct' --name-only -z` output for commits newest first (ids made up from their times). */
function logOutput(commits: Array<{ ct: number; names: string[] }>): Buffer {
  return Buffer.from(commits.map((c) => `\0${commitId(c.ct)} ${c.ct}\0${c.names.length ? `\n${c.names.join('\0')}\0` : ''}`).join(''), 'utf8');
}

const commitId = (ct: number) => String(ct).padStart(40, '0');

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

  it('keeps the first commits and the paths they touched, and each such path\'s next change when the walk reaches it', async () => {
    const output = logOutput(HISTORY);
    const wanted = new Set(['a.ts', 'b c.ts', '日本.md', 'old.ts']);
    const walk = await walkCommitTimes(replayGit(output).git, '/r', { prefix: 'sub/', wanted, keepRecent: 2 });
    expect(walk.recent).toEqual({
      commits: [commitId(300), commitId(250)],
      times: [300_000, 250_000],
      touched: new Map([['a.ts', [0]]]),
      before: new Map([['a.ts', 200_000]]),
    });
    expect(walk.recentIsWhole).toBe(false);
    // however the stream is cut
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: output.length - 1 }), { maxLength: 12 }), async (cuts) => {
        expect(await walkCommitTimes(replayGit(output, cuts).git, '/r', { prefix: 'sub/', wanted, keepRecent: 2 })).toEqual(walk);
      }),
      { numRuns: 100 },
    );
    // a walk that keeps every commit it reads is whole
    const whole = await walkCommitTimes(replayGit(output).git, '/r', { prefix: 'sub/', wanted, keepRecent: 10 });
    expect(whole.recentIsWhole).toBe(true);
    expect(whole.recent?.touched.get('b c.ts')).toEqual([2, 3]);
  });

  it('reads a kept commit to its end even when the last wanted path shows up early in it', async () => {
    const { git } = replayGit(logOutput(HISTORY));
    const walk = await walkCommitTimes(git, '/r', { prefix: 'sub/', wanted: new Set(['a.ts']), keepRecent: 10 });
    expect(walk.times).toEqual(new Map([['a.ts', 300_000]]));
    // the walk stopped at the next commit, but `top.md` (outside the prefix) and nothing else was read
    expect(walk.recent?.commits).toEqual([commitId(300)]);
    expect(walk.recentIsWhole).toBe(false);
    const later = await walkCommitTimes(replayGit(logOutput(HISTORY)).git, '/r', { prefix: '', wanted: new Set(['sub/a.ts']), keepRecent: 10 });
    expect(later.recent?.touched).toEqual(new Map([['sub/a.ts', [0]], ['top.md', [0]]]));
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
    expect(blobs.get('bin/run')).toBe('2222222222222222222222222222222222222222');
  });

  it('reads any listing as splitting each entry into its fields does: paths with tabs, spaces and other scripts, sha1 and sha256 blobs', () => {
    /** The listing split into entries and each header into its four fields. */
    const byFields = (output: Buffer) => {
      const tracked = new Set<string>();
      const blobs = new Map<string, string>();
      for (const entry of output.toString('utf8').split('\0').filter((e) => e !== '')) {
        const tab = entry.indexOf('\t');
        if (tab === -1) continue;
        const path = entry.slice(tab + 1);
        tracked.add(path);
        const [tag, mode, blob, stage] = entry.slice(0, tab).split(' ');
        if (tag === 'H' && (mode === '100644' || mode === '100755') && stage === '0' && blob !== undefined) blobs.set(path, blob);
      }
      return { tracked, blobs };
    };
    const entry = fc.record({
      tag: fc.constantFrom('H', 'S', 'h', 'M', 'R', 'C', 'K'),
      mode: fc.constantFrom('100644', '100755', '120000', '160000'),
      blob: fc.oneof(fc.stringMatching(/^[0-9a-f]{40}$/), fc.stringMatching(/^[0-9a-f]{64}$/)),
      stage: fc.constantFrom('0', '1', '2', '3'),
      path: fc.oneof(fc.stringMatching(/^[a-z./_ -]{1,20}$/), fc.constantFrom('tab\there.ts', 'caf\u00e9/\u{1F600}.md', 'a b/c\td.js', ' lead', 'H 100644 x 0')),
    });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 30 }), (entries) => {
        const output = Buffer.from(entries.map((e) => `${e.tag} ${e.mode} ${e.blob} ${e.stage}\t${e.path}\0`).join(''), 'utf8');
        const got = parseStagedFiles(output);
        const expected = byFields(output);
        expect([...got.tracked]).toEqual([...expected.tracked]);
        expect([...got.blobs]).toEqual([...expected.blobs]);
      }),
      { numRuns: 300 },
    );
    expect(parseStagedFiles(Buffer.alloc(0))).toEqual({ tracked: new Set(), blobs: new Map() });
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

/** The commits an entry kept, unpacked. */
const keptOf = (entry: CommitTimes | undefined) => (entry?.recent === undefined ? undefined : unpackRecent(entry.recent));

/** The entry with its kept commits left out: what a walk without them must answer alone. */
const withoutRecent = ({ recent: _recent, ...entry }: CommitTimes): CommitTimes => entry;

/** A log that walks from one commit (the stale paths' walk from the merge base), not a range. */
const walkFromBase = (args: string[]) => args.some((arg) => /^[0-9a-f]{40}$/.test(arg));

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
  const wantedHead = filesAt(head);
  const targets = [
    ['an older checkout (an ancestor of the remembered HEAD)', () => a],
    ['a checkout a few commits back', () => b],
    ['a sibling branch', () => side],
  ] as const;

  it.each(targets)('%s gets the times of a full walk from the commits the entry kept, with no walk from the merge base', async (_name, target) => {
    const cache = memoryCache();
    await cachedCommitTimes(git, repo.root, { prefix: '', head, wanted: wantedHead, cache });
    expect(cache.entries[0]?.reach).toBe(Number(run('rev-list', '--count', head)));
    expect(keptOf(cache.entries[0])?.commits).toEqual(run('rev-list', head).split('\n'));
    const rev = target();
    const { times, logs } = await recorded(rev, cache);
    expect(times).toEqual(await walked(rev));
    // at most the walk of the range the new HEAD adds
    expect(logs.some(walkFromBase)).toBe(false);
    expect(cache.entries.map((e) => e.head)).toEqual([rev, head]);
    expect(cache.entries[0]?.reach).toBeGreaterThanOrEqual(Number(run('rev-list', '--count', rev)));
    // the new entry kept commits too: its own history's, newest first
    expect(keptOf(cache.entries[0])?.commits).toEqual(run('rev-list', rev).split('\n'));
    // and back again from the entry just made, with no walk from the merge base either
    const back = memoryCache();
    back.putCommitTimes('prefix:', cache.entries[0] as CommitTimes);
    const again = await recorded(head, back);
    expect(again.times).toEqual(await walked(head));
    expect(again.logs.some(walkFromBase)).toBe(false);
  });

  it.each(targets)('%s, from an entry that kept no commits, walks the few stale paths by name and answers the same', async (_name, target) => {
    const cache = memoryCache();
    await cachedCommitTimes(git, repo.root, { prefix: '', head, wanted: wantedHead, cache });
    cache.entries[0] = withoutRecent(cache.entries[0] as CommitTimes);
    const rev = target();
    const { times, logs } = await recorded(rev, cache);
    expect(times).toEqual(await walked(rev));
    // no walk of the whole history: every log names a range or starts at the merge base
    expect(logs.every((args) => args.some((arg) => /^[0-9a-f]{40}(\.\.[0-9a-f]{40})?$/.test(arg)))).toBe(true);
    // the few stale paths are walked by name: the history is far shorter than the walk's bound
    expect(logs.some(limitedLog)).toBe(true);
  });

  it('kept commits that do not reach back to the merge base leave the stale paths to a walk', async () => {
    const kept = await walkCommitTimes(git, repo.root, { prefix: '', wanted: wantedHead, keepRecent: 1 });
    expect(kept.recent?.commits).toEqual([head]);
    expect(kept.recentIsWhole).toBe(false);
    const entry = { head, times: kept.times, reach: Number(run('rev-list', '--count', head)), recent: packRecent(kept.recent as RecentHistory) as Uint8Array };
    // one commit back: the one kept commit is all the checkout lacks
    const oneBack = memoryCache();
    oneBack.putCommitTimes('prefix:', entry);
    const near = await recorded(run('rev-parse', 'HEAD~1'), oneBack);
    expect(near.times).toEqual(await walked(run('rev-parse', 'HEAD~1')));
    expect(near.logs.some(walkFromBase)).toBe(false);
    // further back: the walk from the merge base does it
    const further = memoryCache();
    further.putCommitTimes('prefix:', entry);
    const far = await recorded(b, further);
    expect(far.times).toEqual(await walked(b));
    expect(far.logs.some(walkFromBase)).toBe(true);
  });

  it('a kept path whose earlier change the walk never reached is walked for', async () => {
    // the full walk stops once every path has a time: `src/b.ts`, last changed at the first
    // commit, ends it, so nothing is known of what came before the kept commits
    const cache = memoryCache();
    await cachedCommitTimes(git, repo.root, { prefix: '', head, wanted: wantedHead, cache });
    expect(keptOf(cache.entries[0])?.before.size).toBe(0);
    const onlyKept = memoryCache();
    const entry = cache.entries[0] as CommitTimes;
    // as if the walk had stopped after the newest two commits
    onlyKept.putCommitTimes('prefix:', { ...entry, recent: packRecent(keepFirst(keptOf(entry) as RecentHistory, 2)) as Uint8Array });
    const { times, logs } = await recorded(run('rev-parse', 'HEAD~2'), onlyKept);
    expect(times).toEqual(await walked(run('rev-parse', 'HEAD~2')));
    expect(logs.some(walkFromBase)).toBe(true);
  });

  it('an entry that does not know how far its HEAD reaches never walks by name, and answers the same', async () => {
    const cache = memoryCache();
    cache.putCommitTimes('prefix:', { head, times: await walked(head) });
    const { times, logs } = await recorded(b, cache);
    expect(times).toEqual(await walked(b));
    expect(logs.some(limitedLog)).toBe(false);
    expect(cache.entries[0]?.reach).toBeUndefined();
    // that walk of the whole root from the checkout is the start of its own walk: its commits are kept
    const history = run('rev-list', b).split('\n');
    const kept = keptOf(cache.entries[0])?.commits ?? [];
    expect(kept.length).toBeGreaterThan(0);
    expect(history.slice(0, kept.length)).toEqual(kept);
    // and a checkout further back needs no walk from them
    const further = await recorded(a, cache);
    expect(further.times).toEqual(await walked(a));
    expect(further.logs.some(walkFromBase)).toBe(false);
  });

  it('a remembered HEAD this clone does not know is passed over for a full walk', async () => {
    const cache = memoryCache();
    cache.putCommitTimes('prefix:', { head: 'f'.repeat(40), times: new Map([['src/a.ts', 1]]) });
    expect(await cachedCommitTimes(git, repo.root, { prefix: '', head, wanted: filesAt(head), cache })).toEqual(await walked(head));
  });

  afterAll(() => repo.cleanup());
});

/** The first `count` kept commits, as a walk that stopped there would have kept them (nothing known after). */
function keepFirst(recent: RecentHistory, count: number): RecentHistory {
  const touched = new Map<string, number[]>();
  for (const [path, positions] of recent.touched) {
    const kept = positions.filter((position) => position < count);
    if (kept.length > 0) touched.set(path, kept);
  }
  return { commits: recent.commits.slice(0, count), times: recent.times.slice(0, count), touched, before: new Map() };
}

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

  it.each([
    ['the commits the entry kept', (entry: CommitTimes) => entry, false],
    ['a walk by name (an entry that kept no commits)', withoutRecent, true],
  ] as const)('a checkout of the merge gets the side commit for the kept path from %s, as a walk of the whole root does', async (_name, keep, limited) => {
    const cache = memoryCache();
    await recorded(head, cache);
    cache.entries[0] = keep(cache.entries[0] as CommitTimes);
    const { times, logs } = await recorded(merged, cache);
    expect(logs.some(limitedLog)).toBe(limited);
    const whole = await walked(merged);
    expect(times).toEqual(whole);
    expect(whole.get('p.ts')).toBe(Date.parse('2026-01-02T10:00:00Z'));
  });

  afterAll(() => repo.cleanup());
});
