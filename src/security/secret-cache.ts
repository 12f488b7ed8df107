import type { Config } from '../config/schema.js';
import { resolveSecretCacheDir } from '../cache/cache-dir.js';
import { createDiskCache } from '../cache/disk-cache.js';
import { createLayeredCache } from '../cache/layered-cache.js';
import type { KeyValueCache } from '../types.js';

/**
 * The findings cache of the secret scan for a run: `<cache dir>/secrets`, behind an LRU, with
 * the summary cache's expiry; none when `summarization.caching.enabled` is false. Findings are
 * offsets and kinds, never the secret text.
 */
export function createSecretCache(root: string, config: Config, now: () => number = Date.now): KeyValueCache | null {
  const caching = config.summarization.caching;
  if (!caching.enabled) return null;
  const maxAgeMs = caching.max_age_hours * 3_600_000;
  return createLayeredCache(createDiskCache({ dir: resolveSecretCacheDir(root, config), now, maxAgeMs }), { now, maxAgeMs });
}
