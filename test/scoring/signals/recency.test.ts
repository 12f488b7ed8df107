import { describe, expect, it } from 'vitest';
import { recencySignal, RECENCY_FLOOR } from '../../../src/scoring/signals/recency.js';
import { testContext } from '../../helpers/fakes.js';
import { candidates, DAY_MS, gitFacts, signalInput } from '../helpers.js';

const NOW = Date.UTC(2026, 0, 15);
const decayed = (days: number, halfLife = 7) => RECENCY_FLOOR + (1 - RECENCY_FLOOR) * 0.5 ** (days / halfLife);

describe('recency', () => {
  const files = candidates({ 'a.ts': '', 'b.ts': '', 'c.ts': '', 'd.ts': '', 'e.ts': '' }, NOW - 3 * DAY_MS);
  const git = gitFacts({ 'a.ts': NOW, 'b.ts': NOW - 7 * DAY_MS, 'c.ts': NOW - 14 * DAY_MS, 'd.ts': NOW - 365 * DAY_MS }, ['d.ts']);

  it.each([
    ['a.ts', 0, decayed(0)],
    ['b.ts', 7, decayed(7)],
    ['c.ts', 14, decayed(14)],
    ['d.ts', 0, 1], // dirty: just changed, whatever its last commit
    ['e.ts', 3, decayed(3)], // git knows no commit: file mtime
  ])('%s: age %s days -> %s', async (path, age, expected) => {
    const ctx = testContext({ nowMs: NOW });
    const scores = await recencySignal.score(signalInput(files, { git, nowMs: NOW }), ctx, {});
    expect(scores.get(path)?.raw).toBeCloseTo(age, 6);
    expect(scores.get(path)?.score).toBeCloseTo(expected, 6);
    expect(ctx.warnings).toEqual([]);
  });

  it('half-life follows decay_days', async () => {
    const ctx = testContext({ nowMs: NOW });
    ctx.config.relevance_scoring.factors.recency.decay_days = 14;
    const scores = await recencySignal.score(signalInput(files, { git, nowMs: NOW }), ctx, {});
    expect(scores.get('c.ts')?.score).toBeCloseTo(decayed(14, 14), 6);
    expect(decayed(14, 14)).toBeCloseTo(RECENCY_FLOOR + (1 - RECENCY_FLOOR) / 2, 9);
  });

  it('outside git: neutral for every file, with a warning', async () => {
    const ctx = testContext({ nowMs: NOW });
    const scores = await recencySignal.score(signalInput(files, { git: gitFacts({}, [], false), nowMs: NOW }), ctx, {});
    expect(new Set([...scores.values()].map((s) => s.score))).toEqual(new Set([RECENCY_FLOOR]));
    expect(ctx.warnings).toEqual([expect.stringContaining('not a git repository')]);
  });

  it('a single-commit import or shallow clone (no spread) is neutral, with a warning', async () => {
    const ctx = testContext({ nowMs: NOW });
    const sameTime = gitFacts(Object.fromEntries(files.map((f) => [f.path, NOW - 2 * 3_600_000])));
    sameTime.isShallow = true;
    const scores = await recencySignal.score(signalInput(files, { git: sameTime, nowMs: NOW }), ctx, {});
    expect(new Set([...scores.values()].map((s) => s.score))).toEqual(new Set([RECENCY_FLOOR]));
    expect(ctx.warnings).toEqual([expect.stringMatching(/does not tell them apart.*|shallow/)]);
    expect(ctx.warnings[0]).toContain('shallow clone');
  });
});
