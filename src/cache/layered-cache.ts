import { LRUCache } from 'lru-cache';
import type { KeyValueCache } from '../types.js';
import { isExpired } from './disk-cache.js';

export interface LayeredCacheOptions {
  /** Most entries held in memory. */
  maxEntries?: number;
  /** Most characters of values held in memory. */
  maxChars?: number;
  now?: () => number;
  /** Same expiry as the disk layer, so a long-lived process does not outlive max_age_hours. */
  maxAgeMs?: number;
  /**
   * For a long-lived process: `set` returns once memory holds the value and the write to the
   * backing cache goes on behind it (the process answers first, and Node finishes pending writes
   * before it exits). A write that failed is thrown by the next `set`, so its caller still learns.
   */
  writeBehind?: boolean;
}

export const DEFAULT_LRU_ENTRIES = 20_000;
export const DEFAULT_LRU_CHARS = 64 * 1024 * 1024;

interface Held {
  value: string;
  /** When this process first saw the value (memory age, not the entry's disk age). */
  seenMs: number;
}

/**
 * A bounded in-memory LRU in front of another cache (the disk). Hits never touch the disk;
 * misses read through and fill the LRU; writes go to both (behind the answer, with writeBehind).
 */
export function createLayeredCache(backing: KeyValueCache, options: LayeredCacheOptions = {}): KeyValueCache {
  const { now = Date.now, maxAgeMs = 0 } = options;
  const lru = new LRUCache<string, Held>({
    max: options.maxEntries ?? DEFAULT_LRU_ENTRIES,
    maxSize: options.maxChars ?? DEFAULT_LRU_CHARS,
    sizeCalculation: (held) => Math.max(1, held.value.length),
  });
  /** The first write behind that failed since the last `set` reported one. */
  let failed: unknown;
  return {
    async get(namespace, key) {
      const id = `${namespace}\0${key}`;
      const held = lru.get(id);
      if (held && !isExpired(held.seenMs, now(), maxAgeMs)) return held.value;
      const value = await backing.get(namespace, key);
      if (value === undefined) lru.delete(id);
      else lru.set(id, { value, seenMs: now() });
      return value;
    },
    async set(namespace, key, value) {
      lru.set(`${namespace}\0${key}`, { value, seenMs: now() });
      if (!options.writeBehind) return backing.set(namespace, key, value);
      backing.set(namespace, key, value).catch((error: unknown) => {
        failed ??= error;
      });
      const earlier = failed;
      failed = undefined;
      if (earlier !== undefined) throw earlier;
    },
  };
}
