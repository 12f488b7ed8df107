import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeClock } from '../helpers/fakes.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { UsageError } from '../../src/errors.js';
import type { SharedContextPort } from '../../src/provider/ports.js';
import { createInMemorySharedContext, type SharedContextOptions } from '../../src/provider/shared-context.js';
import { createFileSharedContext } from '../../src/provider/shared-file.js';
import { SharedContextConflictError, UnknownSharedContextError } from '../../src/provider/shared-log.js';
import { createRedisSharedContext } from '../../src/provider/shared-redis.js';

/**
 * ONE contract suite run against every SharedContextPort adapter: in-memory, the embedded
 * on-disk store, and Redis (a real redis-server started for this file). Each test opens its
 * store through `open`, which gives a second handle on the same store (a second agent): the
 * in-memory adapter's handles are the one object, the others are separate instances.
 */

const HOUR = 3_600_000;

interface Store {
  /** Another handle on the same store and workspace: what a second agent would hold. */
  open(options?: SharedContextOptions & { workspace?: string }): SharedContextPort;
  /** TTLs the adapter can be tested with, and how time passes: a fake clock, or real sleep for Redis. */
  ttlMs: number;
  pass(ms: number): Promise<void>;
  /** The injected clock (decay, and TTL where the adapter keeps time itself). */
  clock: ReturnType<typeof fakeClock>;
}

interface Adapter {
  name: string;
  /** A fresh, empty store for one test. */
  store(): Store;
}

let redis: RedisServer;
let redisWorkspaces = 0;
const opened: SharedContextPort[] = [];
const track = (port: SharedContextPort) => (opened.push(port), port);

const ADAPTERS: Adapter[] = [
  {
    name: 'in-memory',
    store() {
      const clock = fakeClock();
      const handles = new Map<string, SharedContextPort>();
      return {
        open: (options = {}) => {
          const workspace = options.workspace ?? 'default';
          if (!handles.has(workspace)) handles.set(workspace, createInMemorySharedContext({ now: clock.now, ...options }));
          return handles.get(workspace)!;
        },
        ttlMs: HOUR,
        pass: async (ms) => void clock.advance(ms),
        clock,
      };
    },
  },
  {
    name: 'embedded (file)',
    store() {
      const clock = fakeClock();
      const dir = mkdtempSync(join(tmpdir(), 'aiwg-shared-'));
      return {
        open: (options = {}) => track(createFileSharedContext({ dir, now: clock.now, ...options })),
        ttlMs: HOUR,
        pass: async (ms) => void clock.advance(ms),
        clock,
      };
    },
  },
  {
    name: 'redis',
    store() {
      // TTL runs on the server's clock: real, short TTLs. Decay still uses the injected clock.
      const clock = fakeClock();
      const prefix = `test-${++redisWorkspaces}`;
      return {
        open: (options = {}) =>
          track(createRedisSharedContext({ url: redis.url, now: clock.now, ...options, workspace: `${prefix}-${options.workspace ?? 'default'}` })),
        ttlMs: 2_500,
        pass: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
        clock,
      };
    },
  },
];

beforeAll(async () => {
  redis = await startRedisServer();
});

afterAll(async () => {
  await Promise.all(opened.map((port) => port.close()));
  await redis?.close();
});

describe.each(ADAPTERS)('SharedContextPort contract: $name', (adapter) => {
  it('keeps operation order: sequences count up, a re-injected key supersedes and moves last', async () => {
    const shared = adapter.store().open();
    await shared.createContext('m1');
    expect(await shared.inject('m1', { key: 'finding', content: 'cache stampede on login' })).toBe(1);
    expect(await shared.inject('m1', { key: 'other', content: 'cache warm-up script' })).toBe(2);
    expect(await shared.inject('m1', { key: 'finding', content: 'cache stampede fixed by jitter' })).toBe(3);
    expect((await shared.entries('m1')).map((e) => [e.key, e.content, e.sequence])).toEqual([
      ['other', 'cache warm-up script', 2],
      ['finding', 'cache stampede fixed by jitter', 3],
    ]);
    expect((await shared.query('m1', 'cache')).map((h) => h.key)).toEqual(['other', 'finding']);
    expect(await shared.query('m1', 'login')).toEqual([]);
  });

  it('ranks by BM25 times strength and honours limit', async () => {
    const shared = adapter.store().open();
    await shared.createContext('m1');
    await shared.inject('m1', { key: 'weak', content: 'retry the payment webhook', strength: 0.5 });
    await shared.inject('m1', { key: 'strong', content: 'retry the payment webhook', strength: 2 });
    await shared.inject('m1', { key: 'muted', content: 'retry the payment webhook', strength: 0 });
    await shared.inject('m1', { key: 'db', content: 'the migration adds an index on orders' });
    const hits = await shared.query('m1', 'payment webhook retry');
    expect(hits.map((h) => h.key)).toEqual(['strong', 'weak']);
    expect(hits[0]!.score).toBeCloseTo(hits[1]!.score * 4, 10);
    expect(await shared.query('m1', 'payment webhook retry', { limit: 1 })).toHaveLength(1);
  });

  it('two handles (two agents) share one mission context', async () => {
    const store = adapter.store();
    const [a, b] = [store.open(), store.open()];
    await a.createContext('mission-7');
    await a.inject('mission-7', { key: 'a/finding', content: 'the retry loop has no backoff' });
    await b.inject('mission-7', { key: 'b/finding', content: 'the retry test is flaky' });
    expect((await b.entries('mission-7')).map((e) => e.key)).toEqual(['a/finding', 'b/finding']);
    expect((await a.query('mission-7', 'flaky retry test')).map((h) => h.key)).toEqual(['b/finding', 'a/finding']);
  });

  it('isolates scopes: workspaces, missions, and agents inside a mission', async () => {
    const store = adapter.store();
    const [here, there] = [store.open(), store.open({ workspace: 'other' })];
    await here.createContext('m1');
    await here.createContext('m2');
    await there.createContext('m1');
    await here.inject('m1', { key: 'plan', content: 'ship the retry fix' });
    await here.inject('m1', { key: 'plan', content: 'my own draft of the retry plan', agent: 'alice' });
    await here.inject('m1', { key: 'scratch', content: 'retry notes of bob', agent: 'bob' });
    expect(await there.entries('m1')).toEqual([]);
    expect(await here.entries('m2')).toEqual([]);
    expect((await here.entries('m1')).map((e) => [e.key, e.agent])).toEqual([['plan', undefined]]);
    expect((await here.entries('m1', { agent: 'alice' })).map((e) => [e.key, e.agent, e.content])).toEqual([
      ['plan', undefined, 'ship the retry fix'],
      ['plan', 'alice', 'my own draft of the retry plan'],
    ]);
    expect((await here.query('m1', 'retry', { agent: 'bob' })).map((h) => [h.key, h.agent])).toEqual([
      ['plan', undefined],
      ['scratch', 'bob'],
    ]);
    await there.destroy('m1');
    expect(await here.entries('m1')).toHaveLength(1);
  });

  it('destroy removes a context; every later operation says it does not exist', async () => {
    const shared = adapter.store().open();
    await shared.createContext('m1');
    await shared.inject('m1', { key: 'k', content: 'alpha release notes' });
    await shared.destroy('m1');
    await expect(shared.query('m1', 'alpha')).rejects.toBeInstanceOf(UnknownSharedContextError);
    await expect(shared.entries('m1')).rejects.toBeInstanceOf(UnknownSharedContextError);
    await expect(shared.inject('m1', { key: 'k', content: 'x' })).rejects.toBeInstanceOf(UnknownSharedContextError);
    await expect(shared.destroy('m1')).rejects.toThrow('shared context "m1" does not exist');
    await shared.createContext('m1');
    expect(await shared.entries('m1')).toEqual([]);
  });

  it('refuses to create an existing id unless replace is asked, which empties it', async () => {
    const shared = adapter.store().open();
    await shared.createContext('m1');
    await shared.inject('m1', { key: 'k', content: 'deploy window friday' });
    await expect(shared.createContext('m1')).rejects.toThrow(/already exists: destroy it first or pass \{ replace: true \}/);
    await shared.createContext('m1', { replace: true });
    expect(await shared.entries('m1')).toEqual([]);
    expect(await shared.inject('m1', { key: 'k', content: 'deploy window monday' })).toBe(1);
  });

  it('expires a context after its TTL (and the default TTL), after which the id is free again', async () => {
    const store = adapter.store();
    const shared = store.open({ defaultTtlMs: store.ttlMs });
    await shared.createContext('short');
    await shared.createContext('forever', { ttlMs: 0 });
    await shared.inject('short', { key: 'k', content: 'expires soon' });
    expect(await shared.entries('short')).toHaveLength(1);
    await store.pass(store.ttlMs + 300);
    await expect(shared.entries('short')).rejects.toBeInstanceOf(UnknownSharedContextError);
    await expect(shared.inject('short', { key: 'k', content: 'too late' })).rejects.toBeInstanceOf(UnknownSharedContextError);
    expect(await shared.entries('forever')).toEqual([]);
    await shared.createContext('short');
    expect(await shared.entries('short')).toEqual([]);
  });

  it('decays strength with the injected clock and hides entries below minStrength', async () => {
    const store = adapter.store();
    const shared = store.open({ decay: { halfLifeMs: HOUR, minStrength: 0.2 } });
    // No TTL, so only the injected clock matters (Redis keeps TTLs on its own clock).
    await shared.createContext('m1', { ttlMs: 0 });
    await shared.inject('m1', { key: 'old', content: 'flaky test in the checkout suite' });
    store.clock.advance(2 * HOUR);
    await shared.inject('m1', { key: 'new', content: 'flaky test in the checkout suite' });
    expect((await shared.query('m1', 'flaky checkout test')).map((h) => [h.key, h.strength])).toEqual([
      ['new', 1],
      ['old', 0.25],
    ]);
    store.clock.advance(HOUR);
    expect((await shared.query('m1', 'flaky checkout test')).map((h) => [h.key, h.strength])).toEqual([['new', 0.5]]);
    expect((await shared.entries('m1')).map((e) => e.key)).toEqual(['new']);
  });

  it('concurrent writers lose nothing: every inject gets its own sequence', async () => {
    const store = adapter.store();
    const [a, b] = [store.open(), store.open()];
    await a.createContext('race');
    const writes = (port: SharedContextPort, who: string) =>
      Promise.all(Array.from({ length: 20 }, (_, i) => port.inject('race', { key: `${who}-${i}`, content: `finding ${i} of ${who}` })));
    const [sa, sb] = await Promise.all([writes(a, 'a'), writes(b, 'b')]);
    expect(new Set([...sa, ...sb]).size).toBe(40);
    const entries = await a.entries('race');
    expect(entries).toHaveLength(40);
    expect(entries.map((e) => e.sequence)).toEqual([...entries.map((e) => e.sequence)].sort((x, y) => x - y));
  });

  it('optimistic concurrency: of two writers expecting the same sequence, exactly one wins', async () => {
    const store = adapter.store();
    const [a, b] = [store.open(), store.open()];
    await a.createContext('cas');
    const first = await a.inject('cas', { key: 'plan', content: 'v1', expectSequence: 0 });
    const results = await Promise.allSettled([
      a.inject('cas', { key: 'plan', content: 'v2 by a', expectSequence: first }),
      b.inject('cas', { key: 'plan', content: 'v2 by b', expectSequence: first }),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.reason).toBeInstanceOf(SharedContextConflictError);
    const plan = (await b.entries('cas')).filter((e) => e.key === 'plan');
    expect(plan).toHaveLength(1);
    expect(['v2 by a', 'v2 by b']).toContain(plan[0]!.content);
    await expect(b.inject('cas', { key: 'plan', content: 'stale', expectSequence: first })).rejects.toBeInstanceOf(SharedContextConflictError);
    await expect(b.inject('cas', { key: 'plan', content: 'new?', expectSequence: 0 })).rejects.toBeInstanceOf(SharedContextConflictError);
  });

  it('a read-modify-write counter with retries on conflict loses no update', async () => {
    const store = adapter.store();
    const [a, b] = [store.open(), store.open()];
    await a.createContext('counter');
    const bump = async (port: SharedContextPort) => {
      for (;;) {
        const current = (await port.entries('counter')).find((e) => e.key === 'n');
        try {
          await port.inject('counter', { key: 'n', content: String(Number(current?.content ?? 0) + 1), expectSequence: current?.sequence ?? 0 });
          return;
        } catch (error) {
          if (!(error instanceof SharedContextConflictError)) throw error;
        }
      }
    };
    const many = (port: SharedContextPort) => (async () => {
      for (let i = 0; i < 10; i++) await bump(port);
    })();
    await Promise.all([many(a), many(b)]);
    expect((await a.entries('counter')).find((e) => e.key === 'n')?.content).toBe('20');
  });

  it.each([
    ['unknown id on inject', (s: SharedContextPort) => s.inject('nope', { key: 'k', content: 'c' }), UnknownSharedContextError],
    ['unknown id on query', (s: SharedContextPort) => s.query('nope', 'c'), UnknownSharedContextError],
    ['negative strength', (s: SharedContextPort) => s.inject('m1', { key: 'k', content: 'c', strength: -1 }), UsageError],
    ['empty key', (s: SharedContextPort) => s.inject('m1', { key: '', content: 'c' }), UsageError],
    ['negative expectSequence', (s: SharedContextPort) => s.inject('m1', { key: 'k', content: 'c', expectSequence: -1 }), UsageError],
    ['oversized content', (s: SharedContextPort) => s.inject('m1', { key: 'k', content: 'x'.repeat(300 * 1024) }), UsageError],
    ['zero limit', (s: SharedContextPort) => s.query('m1', 'c', { limit: 0 }), UsageError],
    ['empty id', (s: SharedContextPort) => s.createContext(''), UsageError],
    ['negative ttl', (s: SharedContextPort) => s.createContext('m2', { ttlMs: -5 }), UsageError],
  ])('rejects %s', async (_name, call, errorClass) => {
    const shared = adapter.store().open();
    await shared.createContext('m1');
    await expect(call(shared)).rejects.toBeInstanceOf(errorClass);
  });
});
