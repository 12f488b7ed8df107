import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { ensureDir } from '../util/atomic-write.js';
import { join } from 'node:path';
import type { KeyValueCache } from '../types.js';
import { sha256Hex } from '../util/hash.js';

/**
 * Format of every entry file. Bump it when the envelope or a value's layout changes: entries of
 * another version are misses (and `aiwg cache prune` removes them).
 */
export const CACHE_FORMAT_VERSION = 1;
export const CACHE_FORMAT_NAME = 'aiwg-cache';
export const ENTRY_SUFFIX = '.json';

/**
 * The file that marks a directory as made by our caches (`<cache dir>/.aiwg-cache`). Cache
 * commands touch a directory only when it holds this marker, and within it only files that
 * are our entries: `AIWG_CACHE_DIR=.` must never cost the user a file.
 */
export const CACHE_MARKER = '.aiwg-cache';

/** Write the marker of a cache directory once (the directory must exist). */
export function writeCacheMarker(dir: string): void {
  const path = join(dir, CACHE_MARKER);
  if (existsSync(path)) return;
  try {
    writeFileSync(path, `${JSON.stringify({ format: CACHE_FORMAT_NAME, note: 'made by aiwg-context; aiwg cache clear removes only its own entries here' })}\n`, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

export function hasCacheMarker(dir: string): boolean {
  return existsSync(join(dir, CACHE_MARKER));
}

/** The envelope written to disk around each value. */
export interface CacheEnvelope {
  format: typeof CACHE_FORMAT_NAME;
  v: number;
  ns: string;
  key: string;
  /** When the entry was written, epoch ms from the injected clock. */
  createdMs: number;
  value: string;
}

export interface DiskCacheOptions {
  /** Directory of this cache, e.g. `.aiwg/rag/summaries`. */
  dir: string;
  /** Injected clock, epoch ms. */
  now?: () => number;
  /** Entries older than this are misses; 0 = no expiry. */
  maxAgeMs?: number;
  /** For tests of foreign versions; default CACHE_FORMAT_VERSION. */
  formatVersion?: number;
  /**
   * Write entries on the thread pool instead of this thread: for a long-lived process, whose
   * writes go on behind its answers (createLayeredCache's writeBehind). Default: synchronous.
   */
  asyncWrites?: boolean;
}

/**
 * A content-addressed cache on disk: one JSON file per entry at
 * `<dir>/<namespace>/<key[0..2]>/<key>.json` (sharded by the key's hash prefix). Writes go to a
 * unique temp file renamed over the entry, so readers see a whole old or a whole new entry and
 * concurrent writers never interleave. Anything unreadable, of another format version or expired
 * is a miss, and the next `set` rewrites it.
 */
export function createDiskCache(options: DiskCacheOptions): KeyValueCache {
  const { dir, now = Date.now, maxAgeMs = 0, formatVersion = CACHE_FORMAT_VERSION, asyncWrites = false } = options;
  const madeDirs = new Set<string>();
  return {
    async get(namespace, key) {
      const file = entryPath(dir, namespace, key);
      let text: string;
      try {
        // Entries are small (a few KB): a synchronous read skips the thread-pool round trip and
        // makes a warm lookup several times cheaper than fs/promises; the event loop blocks for
        // microseconds.
        text = readFileSync(file, 'utf8');
      } catch {
        return undefined;
      }
      const entry = parseEnvelope(text);
      if (!entry || entry.v !== formatVersion || entry.ns !== namespace || entry.key !== key) return undefined;
      if (isExpired(entry.createdMs, now(), maxAgeMs)) return undefined;
      return entry.value;
    },
    async set(namespace, key, value) {
      const file = entryPath(dir, namespace, key);
      const shard = join(file, '..');
      if (!madeDirs.has(shard)) {
        ensureDir(shard);
        writeCacheMarker(dir);
        madeDirs.add(shard);
      }
      const envelope: CacheEnvelope = { format: CACHE_FORMAT_NAME, v: formatVersion, ns: namespace, key, createdMs: now(), value };
      const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
      // Synchronous unless asked otherwise, for the same reason as reads: small files, no thread-pool round trips.
      try {
        if (asyncWrites) {
          await writeFile(temp, JSON.stringify(envelope));
          await rename(temp, file);
        } else {
          writeFileSync(temp, JSON.stringify(envelope));
          renameSync(temp, file);
        }
      } catch (error) {
        if (asyncWrites) await rm(temp, { force: true });
        else rmSync(temp, { force: true });
        // The shard may have been removed by `aiwg cache clear` since we made it.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') madeDirs.delete(shard);
        throw error;
      }
    },
  };
}

/** Path of an entry; unsafe namespaces or keys are replaced by their sha256. */
export function entryPath(dir: string, namespace: string, key: string): string {
  const ns = safeSegment(namespace);
  const k = safeSegment(key);
  return join(dir, ns, k.slice(0, 2), `${k}${ENTRY_SUFFIX}`);
}

/** A file-name-safe form of a key: itself when already safe, else its sha256. */
export function safeSegment(value: string): string {
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(value) ? value : sha256Hex(value);
}

/** The envelope of an entry file's text, or undefined when it is not one (garbage, truncated). */
export function parseEnvelope(text: string): CacheEnvelope | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const e = parsed as Partial<CacheEnvelope>;
  const valid =
    e.format === CACHE_FORMAT_NAME &&
    typeof e.v === 'number' &&
    typeof e.ns === 'string' &&
    typeof e.key === 'string' &&
    typeof e.createdMs === 'number' &&
    typeof e.value === 'string';
  return valid ? (e as CacheEnvelope) : undefined;
}

/** Age check; an entry from the future (clock skew) counts as fresh. */
export function isExpired(createdMs: number, nowMs: number, maxAgeMs: number): boolean {
  return maxAgeMs > 0 && nowMs - createdMs > maxAgeMs;
}
