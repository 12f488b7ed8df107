import { describe, expect, it } from 'vitest';
import { fakeClock } from '../helpers/fakes.js';
import { UsageError } from '../../src/errors.js';
import { createInMemorySharedContext, UnknownSharedContextError } from '../../src/provider/shared-context.js';

const HOUR = 3_600_000;

describe('createInMemorySharedContext', () => {
  it('ranks by BM25 relevance and breaks ties by operation order', async () => {
    const shared = createInMemorySharedContext();
    await shared.createContext('m1');
    await shared.inject('m1', { key: 'db', content: 'the database migration adds an index on orders' });
    await shared.inject('m1', { key: 'auth-a', content: 'token refresh fails after expiry' });
    await shared.inject('m1', { key: 'auth-b', content: 'token refresh fails after expiry' });
    const hits = await shared.query('m1', 'why does token refresh fail');
    expect(hits.map((h) => h.key)).toEqual(['auth-a', 'auth-b']);
    expect(hits[0]?.score).toBe(hits[1]?.score);
    expect(hits.map((h) => h.sequence)).toEqual([2, 3]);
    expect(await shared.query('m1', 'orders index')).toMatchObject([{ key: 'db', strength: 1 }]);
  });

  it('is not commutative: a later injection of a key supersedes the earlier one and moves last', async () => {
    const shared = createInMemorySharedContext();
    await shared.createContext('m1');
    await shared.inject('m1', { key: 'finding', content: 'cache stampede on login' });
    await shared.inject('m1', { key: 'other', content: 'cache warm-up script' });
    await shared.inject('m1', { key: 'finding', content: 'cache stampede fixed by jitter' });
    const hits = await shared.query('m1', 'cache');
    expect(hits.map((h) => [h.key, h.content, h.sequence])).toEqual([
      ['other', 'cache warm-up script', 2],
      ['finding', 'cache stampede fixed by jitter', 3],
    ]);
    expect(await shared.query('m1', 'login')).toEqual([]);
  });

  it('multiplies relevance by strength, drops zero strength, and honours limit', async () => {
    const shared = createInMemorySharedContext();
    await shared.createContext('m1');
    await shared.inject('m1', { key: 'weak', content: 'retry the payment webhook', strength: 0.5 });
    await shared.inject('m1', { key: 'strong', content: 'retry the payment webhook', strength: 2 });
    await shared.inject('m1', { key: 'muted', content: 'retry the payment webhook', strength: 0 });
    const hits = await shared.query('m1', 'payment webhook retry');
    expect(hits.map((h) => h.key)).toEqual(['strong', 'weak']);
    expect(hits[0]!.score).toBeCloseTo(hits[1]!.score * 4, 10);
    expect(await shared.query('m1', 'payment webhook retry', { limit: 1 })).toHaveLength(1);
  });

  it('decays strength with the injected clock and forgets entries below minStrength', async () => {
    const clock = fakeClock();
    const shared = createInMemorySharedContext({ now: clock.now, decay: { halfLifeMs: HOUR, minStrength: 0.2 } });
    await shared.createContext('m1');
    await shared.inject('m1', { key: 'old', content: 'flaky test in the checkout suite' });
    clock.advance(2 * HOUR);
    await shared.inject('m1', { key: 'new', content: 'flaky test in the checkout suite' });
    let hits = await shared.query('m1', 'flaky checkout test');
    expect(hits.map((h) => [h.key, h.strength])).toEqual([
      ['new', 1],
      ['old', 0.25],
    ]);
    clock.advance(HOUR);
    hits = await shared.query('m1', 'flaky checkout test');
    expect(hits.map((h) => [h.key, h.strength])).toEqual([['new', 0.5]]);
    clock.advance(-10 * HOUR);
    expect((await shared.query('m1', 'flaky checkout test')).map((h) => h.strength)).toEqual([1]);
  });

  it('keeps contexts apart and destroy removes one', async () => {
    const shared = createInMemorySharedContext();
    await shared.createContext('a');
    await shared.createContext('b');
    await shared.inject('a', { key: 'k', content: 'alpha release notes' });
    expect(await shared.query('b', 'alpha release')).toEqual([]);
    await shared.destroy('a');
    await expect(shared.query('a', 'alpha')).rejects.toBeInstanceOf(UnknownSharedContextError);
    await expect(shared.destroy('a')).rejects.toThrow('shared context "a" does not exist: call createContext("a") first');
    expect(await shared.query('b', 'alpha')).toEqual([]);
  });

  it('refuses to recreate an existing id unless replace is asked, which empties it', async () => {
    const shared = createInMemorySharedContext();
    await shared.createContext('m1');
    await shared.inject('m1', { key: 'k', content: 'deploy window friday' });
    await expect(shared.createContext('m1')).rejects.toThrow(/already exists: destroy it first or pass \{ replace: true \}/);
    await shared.createContext('m1', { replace: true });
    expect(await shared.query('m1', 'deploy window')).toEqual([]);
  });

  it.each([
    ['unknown id on inject', (s: ReturnType<typeof createInMemorySharedContext>) => s.inject('nope', { key: 'k', content: 'c' }), UnknownSharedContextError],
    ['negative strength', (s: ReturnType<typeof createInMemorySharedContext>) => s.inject('m1', { key: 'k', content: 'c', strength: -1 }), UsageError],
    ['NaN strength', (s: ReturnType<typeof createInMemorySharedContext>) => s.inject('m1', { key: 'k', content: 'c', strength: Number.NaN }), UsageError],
    ['empty key', (s: ReturnType<typeof createInMemorySharedContext>) => s.inject('m1', { key: '', content: 'c' }), UsageError],
    ['zero limit', (s: ReturnType<typeof createInMemorySharedContext>) => s.query('m1', 'c', { limit: 0 }), UsageError],
    ['empty id', (s: ReturnType<typeof createInMemorySharedContext>) => s.createContext(''), UsageError],
  ])('rejects %s', async (_name, call, errorClass) => {
    const shared = createInMemorySharedContext();
    await shared.createContext('m1');
    await expect(call(shared)).rejects.toBeInstanceOf(errorClass);
  });

  it('rejects a non-positive half-life when built', () => {
    expect(() => createInMemorySharedContext({ decay: { halfLifeMs: 0 } })).toThrow(/halfLifeMs must be a positive number/);
  });
});
