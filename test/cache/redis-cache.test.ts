import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeClock } from '../helpers/fakes.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { createDiskCache } from '../../src/cache/disk-cache.js';
import { createRedisCache, createTieredCache } from '../../src/cache/redis-cache.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { resolveLevelsPorts } from '../../src/summarize/levels-stage.js';

/** Two hosts (two cache directories) share their summaries and token counts through one real Redis. */

let redis: RedisServer;

beforeAll(async () => {
  redis = await startRedisServer();
});

afterAll(async () => {
  await redis?.close();
});

const tempDir = () => mkdtempSync(join(tmpdir(), 'aiwg-redis-cache-'));

describe('Redis behind the disk cache', () => {
  it("host B reads host A's entries through Redis and keeps a copy on its own disk", async () => {
    const hostA = createTieredCache(createDiskCache({ dir: tempDir() }), createRedisCache({ url: redis.url, idleMs: 10 }));
    const bDir = tempDir();
    const hostB = createTieredCache(createDiskCache({ dir: bDir }), createRedisCache({ url: redis.url, idleMs: 10 }));
    await hostA.set('summary', 'a'.repeat(64), 'the summary of a file');
    expect(await hostB.get('summary', 'a'.repeat(64))).toBe('the summary of a file');
    expect(await createDiskCache({ dir: bDir }).get('summary', 'a'.repeat(64))).toBe('the summary of a file');
    expect(await hostB.get('summary', 'b'.repeat(64))).toBeUndefined();
  });

  it('expires entries by max age, like the disk cache', async () => {
    const clock = fakeClock();
    const cache = createRedisCache({ url: redis.url, now: clock.now, maxAgeMs: 3_600_000, idleMs: 10 });
    await cache.set('tokens', 'k1', '42');
    expect(await cache.get('tokens', 'k1')).toBe('42');
    clock.advance(2 * 3_600_000);
    expect(await cache.get('tokens', 'k1')).toBeUndefined();
  });

  it('a Redis that cannot be reached is a miss, never a failed run', async () => {
    const stopped = await startRedisServer();
    const url = stopped.url;
    await stopped.close();
    const cache = createRedisCache({ url, idleMs: 10 });
    expect(await cache.get('summary', 'k')).toBeUndefined();
    await cache.set('summary', 'k', 'v');
    expect(cache.errors).toBe(1);
  });

  it('cache.redis_url puts Redis behind the summary and token caches of a run', async () => {
    const config = ConfigSchema.parse({ cache: { redis_url: redis.url } });
    const ports = resolveLevelsPorts({ root: tempDir(), config });
    await ports.summaryCache!.set('summary', 'c'.repeat(64), 'shared across hosts');
    const other = resolveLevelsPorts({ root: tempDir(), config });
    expect(await other.summaryCache!.get('summary', 'c'.repeat(64))).toBe('shared across hosts');
    expect(() => resolveLevelsPorts({ root: tempDir(), config: ConfigSchema.parse({ cache: { redis_url: 'http://x' } }) })).toThrow(
      /cache.redis_url: "http:\/\/x" is not a redis:\/\/ or rediss:\/\/ URL/,
    );
  });
});
