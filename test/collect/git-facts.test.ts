import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GitPort } from '../../src/collect/collect-ports.js';
import { lastCommitTimes, parseStatus } from '../../src/collect/git-facts.js';

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

describe('parseStatus', () => {
  it('keeps entries under the prefix, relative to it, and notes staged additions', () => {
    const output = Buffer.from(' M sub/a.ts\0A  sub/new.ts\0?? sub/u v.txt\0 M other/x.ts\0', 'utf8');
    const { dirty, added, untracked } = parseStatus(output, 'sub/');
    expect([...dirty]).toEqual(['a.ts', 'new.ts', 'u v.txt']);
    expect([...added]).toEqual(['new.ts']);
    expect([...untracked]).toEqual(['u v.txt']);
  });
});
