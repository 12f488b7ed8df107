import type { Config, KeyValueCache } from '../types.js';
import { checkRedisUrl, connectRedis, type RedisConnection } from '../util/redis-connection.js';
import { CACHE_FORMAT_NAME, CACHE_FORMAT_VERSION, isExpired, parseEnvelope, type CacheEnvelope } from './disk-cache.js';

export interface RedisCacheOptions {
  url: string;
  now?: () => number;
  /** Entries older than this are misses (and Redis drops them: PX); 0 = no expiry. */
  maxAgeMs?: number;
  /** The connection closes itself after this many idle ms, so a CLI run can exit; 250 when absent. */
  idleMs?: number;
}

const DEFAULT_IDLE_MS = 250;

/**
 * The content-addressed cache in Redis, for several machines (CI runners, agents' hosts): the
 * same namespaces and keys as the disk cache, the same envelope, at
 * `aiwg:cache:<format version>:<namespace>:<key>`. A Redis that is down or answers garbage is a
 * miss (and a skipped write), never a failed run: the disk cache in front still works.
 */
export function createRedisCache(options: RedisCacheOptions): KeyValueCache & { errors: number } {
  const { url, now = Date.now, maxAgeMs = 0, idleMs = DEFAULT_IDLE_MS } = options;
  let connection: Promise<RedisConnection> | undefined;
  let inFlight = 0;
  // After one failure (server down, timed out) this cache stays a miss: no 5 s wait per lookup.
  let down = false;
  let idle: NodeJS.Timeout | undefined;
  const state = { errors: 0 };
  const use = async <T>(fn: (c: RedisConnection) => Promise<T>, fallback: T): Promise<T> => {
    if (down) return fallback;
    clearTimeout(idle);
    inFlight++;
    try {
      connection ??= connectRedis(url, { timeoutMs: 5_000 });
      return await fn(await connection);
    } catch {
      state.errors++;
      down = true;
      return fallback;
    } finally {
      if (--inFlight === 0) {
        idle = setTimeout(() => {
          const open = connection;
          connection = undefined;
          void open?.then((c) => c.close()).catch(() => undefined);
        }, idleMs);
      }
    }
  };
  const redisKey = (namespace: string, key: string) => `aiwg:cache:${CACHE_FORMAT_VERSION}:${namespace}:${key}`;
  return {
    get errors() {
      return state.errors;
    },
    async get(namespace, key) {
      const text = await use((c) => c.run((client) => client.get(redisKey(namespace, key))), null);
      const entry = text === null ? undefined : parseEnvelope(text);
      if (!entry || entry.v !== CACHE_FORMAT_VERSION || entry.ns !== namespace || entry.key !== key) return undefined;
      return isExpired(entry.createdMs, now(), maxAgeMs) ? undefined : entry.value;
    },
    async set(namespace, key, value) {
      const envelope: CacheEnvelope = { format: CACHE_FORMAT_NAME, v: CACHE_FORMAT_VERSION, ns: namespace, key, createdMs: now(), value };
      await use((c) => c.run((client) => client.set(redisKey(namespace, key), JSON.stringify(envelope), maxAgeMs > 0 ? { PX: maxAgeMs } : {})), null);
    },
  };
}

/**
 * A near cache in front of a far one: hits of the near cache never travel; a far hit is copied
 * near; writes go to both.
 */
export function createTieredCache(near: KeyValueCache, far: KeyValueCache): KeyValueCache {
  return {
    async get(namespace, key) {
      const local = await near.get(namespace, key);
      if (local !== undefined) return local;
      const remote = await far.get(namespace, key);
      if (remote !== undefined) await near.set(namespace, key, remote);
      return remote;
    },
    async set(namespace, key, value) {
      await Promise.all([near.set(namespace, key, value), far.set(namespace, key, value)]);
    },
  };
}

/**
 * The cache shared past this machine for a config: Redis when `cache.redis_url` is set (checked
 * here: a bad URL is one exit-2 line naming the key), else undefined. Every cache that can be
 * shared (summaries, token counts, embeddings) puts its disk cache in front of this one.
 */
export function sharedCacheFor(config: Config, options: Omit<RedisCacheOptions, 'url'> = {}): (KeyValueCache & { errors: number }) | undefined {
  const url = config.cache.redis_url;
  if (url === undefined) return undefined;
  checkRedisUrl(url, 'cache.redis_url');
  return createRedisCache({ url, ...options });
}
