import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutRecent, joinRecent, packRecent, RECENT_COMMITS, timeUpTo, touchedAt, unpackRecent, type RecentHistory } from '../../src/collect/recent-history.js';

const id = (n: number) => n.toString(16).padStart(40, '0');

/** Commits newest first, each with the paths it touched; `before` for the paths given. */
function history(commits: string[][], before: Record<string, number> = {}): RecentHistory {
  const recent: RecentHistory = { commits: [], times: [], touched: new Map(), before: new Map(Object.entries(before)) };
  commits.forEach((paths, position) => {
    recent.commits.push(id(position + 1));
    recent.times.push((commits.length - position) * 1000);
    for (const path of paths) recent.touched.set(path, [...(recent.touched.get(path) ?? []), position]);
  });
  return recent;
}

const arbitraryHistory = fc
  .array(fc.uniqueArray(fc.constantFrom('a.ts', 'src/b.ts', 'docs/日本.md', 'x y/z.md', 'e'), { maxLength: 4 }), { minLength: 1, maxLength: 12 })
  .chain((commits) =>
    fc.record({ commits: fc.constant(commits), before: fc.dictionary(fc.constantFrom(...new Set(['a.ts', ...commits.flat()])), fc.integer({ min: 0, max: 1e12 })) }),
  )
  .map(({ commits, before }) => {
    const recent = history(commits);
    for (const [path, time] of Object.entries(before)) if (recent.touched.has(path)) recent.before.set(path, time);
    return recent;
  });

describe('packRecent / unpackRecent', () => {
  it('give back what was packed', () => {
    fc.assert(
      fc.property(arbitraryHistory, (recent) => {
        expect(unpackRecent(packRecent(recent) as Uint8Array)).toEqual(recent);
      }),
      { numRuns: 300 },
    );
  });

  it('take sha-256 ids as well, and refuse ids that are not hex of one length', () => {
    const recent = history([['a.ts']]);
    recent.commits = ['ab'.repeat(32)];
    expect(unpackRecent(packRecent(recent) as Uint8Array)?.commits).toEqual(['ab'.repeat(32)]);
    expect(packRecent({ ...recent, commits: ['not hex'] })).toBeUndefined();
  });

  it('read damaged bytes as nothing kept, never as a wrong history', () => {
    const bytes = Buffer.from(packRecent(history([['a.ts', 'src/b.ts'], ['a.ts']], { 'a.ts': 5 })) as Uint8Array);
    expect(unpackRecent(bytes.subarray(0, bytes.length - 1))).toBeUndefined();
    expect(unpackRecent(Buffer.concat([bytes, Buffer.from([0])]))).toBeUndefined();
    const otherFormat = Buffer.from(bytes);
    otherFormat[0] = 9;
    expect(unpackRecent(otherFormat)).toBeUndefined();
    // a position past the kept commits, or out of order
    const positionsAt = bytes.length - 2 * 8 - 3 * 4;
    const past = Buffer.from(bytes);
    past.writeUInt32LE(7, positionsAt);
    expect(unpackRecent(past)).toBeUndefined();
    const unordered = Buffer.from(bytes);
    unordered.writeUInt32LE(1, positionsAt);
    unordered.writeUInt32LE(0, positionsAt + 4);
    expect(unpackRecent(unordered)).toBeUndefined();
    expect(unpackRecent(new Uint8Array(3))).toBeUndefined();
    // per-path counts that do not add up to the positions stored (one more for a.ts, one fewer for src/b.ts)
    const countsAt = positionsAt - 2 * 4;
    const miscounted = Buffer.from(bytes);
    miscounted.writeUInt32LE(3, countsAt);
    miscounted.writeUInt32LE(0, countsAt + 4);
    expect(unpackRecent(miscounted)).toBeUndefined();
    const longer = Buffer.from(bytes);
    longer.writeUInt32LE(9, countsAt);
    expect(unpackRecent(longer)).toBeUndefined();
    // an id length no hash has
    const oddIds = Buffer.from(bytes);
    oddIds[1] = 7;
    expect(unpackRecent(oddIds)).toBeUndefined();
  });
});

describe('the time of a path once some kept commits are left out', () => {
  const recent = history([['a.ts'], ['src/b.ts'], ['a.ts', 'src/b.ts']], { 'a.ts': 10, 'src/b.ts': 20 });

  it('is the first other kept commit that touched it, else its next change after them', () => {
    expect(timeUpTo(recent, new Set([0]), 'a.ts')).toBe(1000);
    expect(timeUpTo(recent, new Set([0, 2]), 'a.ts')).toBe(10);
    expect(timeUpTo(recent, new Set(), 'src/b.ts')).toBe(2000);
    expect(touchedAt(recent, new Set([0, 1]))).toEqual(new Set(['a.ts', 'src/b.ts']));
    expect(touchedAt(recent, new Set([0]))).toEqual(new Set(['a.ts']));
  });

  it('is unknown when the walk that kept them never reached its next change', () => {
    const short = history([['a.ts'], ['c.ts']]);
    expect(timeUpTo(short, new Set([0]), 'a.ts')).toBeUndefined();
  });
});

describe('joinRecent', () => {
  it('puts the new side first, then the kept commits the merge base reaches; next changes from the side that has them', () => {
    const ours = history([['new.ts', 'a.ts']]);
    ours.commits = [id(99)];
    const theirs = history([['a.ts'], ['c.ts'], ['a.ts']], { 'a.ts': 1 });
    const joined = joinRecent(ours, { recent: theirs, drop: new Set([0]) }, (path) => (path === 'new.ts' ? undefined : 77)) as RecentHistory;
    expect(joined.commits).toEqual([id(99), id(2), id(3)]);
    expect(joined.times).toEqual([1000, 2000, 1000]);
    expect(joined.touched).toEqual(new Map([['new.ts', [0]], ['a.ts', [0, 2]], ['c.ts', [1]]]));
    // a.ts continues in the remembered part: its next change is the remembered one; new.ts has none
    expect(joined.before).toEqual(new Map([['a.ts', 1]]));
  });

  it('is nothing when neither side kept a commit', () => {
    expect(joinRecent(undefined, undefined, () => 1)).toBeUndefined();
  });
});

describe('cutRecent', () => {
  it('keeps at most RECENT_COMMITS commits; a path\'s first dropped commit becomes its next change', () => {
    const long = history(Array.from({ length: RECENT_COMMITS + 2 }, (_, i) => (i === 0 || i === RECENT_COMMITS + 1 ? ['a.ts'] : i === RECENT_COMMITS ? ['late.ts'] : ['b.ts'])), { 'a.ts': 5 });
    const cut = cutRecent(long) as RecentHistory;
    expect(cut.commits).toHaveLength(RECENT_COMMITS);
    expect(cut.touched.get('a.ts')).toEqual([0]);
    expect(cut.before.get('a.ts')).toBe(long.times[RECENT_COMMITS + 1]);
    // a path touched only by dropped commits is not kept at all
    expect(cut.touched.has('late.ts')).toBe(false);
    expect(cutRecent(history([['a.ts']]))?.commits).toHaveLength(1);
  });
});
