import { existsSync, mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheStats, clearCache, pruneCache } from '../../src/cache/cache-admin.js';
import { CACHE_FORMAT_VERSION, createDiskCache, entryPath } from '../../src/cache/disk-cache.js';
import { fakeClock } from '../helpers/fakes.js';

const HOUR = 3_600_000;
const k = (n: number) => `${String(n).padStart(2, '0')}${'a'.repeat(30)}`;

async function filledCache() {
  const dir = mkdtempSync(join(tmpdir(), 'aiwg-cache-admin-'));
  const clock = fakeClock();
  const cache = createDiskCache({ dir, now: clock.now });
  await cache.set('summary', k(1), 'old');
  clock.advance(30 * HOUR);
  await cache.set('summary', k(2), 'fresh');
  await cache.set('detailed', k(3), 'fresh too');
  await cache.set('detailed', k(4), 'will be corrupted');
  writeFileSync(entryPath(dir, 'detailed', k(4)), '{"format":"aiwg-cache","v":1,"ns":"deta');
  await createDiskCache({ dir, now: clock.now, formatVersion: CACHE_FORMAT_VERSION + 1 }).set('detailed', k(5), 'foreign');
  // A temp file of a writer that died long ago, and one being written right now.
  const shard = join(dir, 'summary', '02');
  writeFileSync(join(shard, `${k(2)}.json.123.dead.tmp`), '{');
  utimesSync(join(shard, `${k(2)}.json.123.dead.tmp`), new Date(0), new Date(0));
  writeFileSync(join(shard, `${k(2)}.json.456.live.tmp`), '{');
  // Not ours: never touched.
  writeFileSync(join(dir, 'README.txt'), 'keep me');
  mkdirSync(join(dir, 'notes'));
  writeFileSync(join(dir, 'notes', 'package.json'), 'not an entry');
  return { dir, clock };
}

describe('cache administration', () => {
  it('stats counts entries, bytes and ages', async () => {
    const { dir } = await filledCache();
    const stats = await cacheStats('summaries', dir);
    expect(stats).toMatchObject({ name: 'summaries', exists: true, entries: 5 });
    expect(stats.bytes).toBeGreaterThan(0);
    expect(stats.oldestMs).not.toBeNull();
    expect(await cacheStats('absent', join(dir, 'nope'))).toMatchObject({ exists: false, entries: 0, bytes: 0, oldestMs: null });
  });

  it('prune removes expired, corrupt, foreign-version entries and stale temp files, nothing else', async () => {
    const { dir, clock } = await filledCache();
    const result = await pruneCache('summaries', dir, { nowMs: clock.now(), maxAgeMs: 24 * HOUR });
    expect(result).toMatchObject({ removed: 4, kept: 3 });
    const cache = createDiskCache({ dir, now: clock.now });
    expect(await cache.get('summary', k(2))).toBe('fresh');
    expect(await cache.get('detailed', k(3))).toBe('fresh too');
    expect(existsSync(entryPath(dir, 'summary', k(1)))).toBe(false);
    expect(existsSync(entryPath(dir, 'detailed', k(4)))).toBe(false);
    expect(existsSync(entryPath(dir, 'detailed', k(5)))).toBe(false);
    expect(existsSync(join(dir, 'summary', '02', `${k(2)}.json.123.dead.tmp`))).toBe(false);
    expect(existsSync(join(dir, 'summary', '02', `${k(2)}.json.456.live.tmp`))).toBe(true);
    expect(readFileSync(join(dir, 'README.txt'), 'utf8')).toBe('keep me');
    expect(readFileSync(join(dir, 'notes', 'package.json'), 'utf8')).toBe('not an entry');
    // The emptied shard of entry 1 is gone; the cache directory itself stays.
    expect(existsSync(join(dir, 'summary', '01'))).toBe(false);
    expect(existsSync(dir)).toBe(true);
  });

  it('clear removes every entry and temp file but leaves files that are not ours', async () => {
    const { dir } = await filledCache();
    const result = await clearCache('summaries', dir);
    expect(result.removed).toBe(7);
    expect((await cacheStats('summaries', dir)).entries).toBe(0);
    expect(readFileSync(join(dir, 'README.txt'), 'utf8')).toBe('keep me');
  });

  it('clear of the embeddings cache removes its packs and nothing else (issue 15, defect 4)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aiwg-emb-'));
    mkdirSync(join(dir, 'model'));
    writeFileSync(join(dir, 'model', 'vectors.pack'), Buffer.concat([Buffer.from('AIWE'), Buffer.alloc(60)]));
    // The user's own files in a directory that happens to be called embeddings/.
    writeFileSync(join(dir, 'model', 'vectors.bin'), Buffer.alloc(64));
    mkdirSync(join(dir, 'mine'));
    writeFileSync(join(dir, 'mine', 'vectors.pack'), 'my own pack, not an aiwg one');
    expect(await cacheStats('embeddings', dir, false)).toMatchObject({ entries: 3 });
    expect(await clearCache('embeddings', dir, false)).toMatchObject({ removed: 1, freedBytes: 64, kept: 2 });
    expect(existsSync(join(dir, 'model', 'vectors.pack'))).toBe(false);
    expect(readFileSync(join(dir, 'model', 'vectors.bin'))).toHaveLength(64);
    expect(readFileSync(join(dir, 'mine', 'vectors.pack'), 'utf8')).toBe('my own pack, not an aiwg one');
  });

  it('clear leaves an unmarked directory of look-alike files alone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aiwg-unmarked-'));
    mkdirSync(join(dir, 'summary', '01'), { recursive: true });
    writeFileSync(join(dir, 'summary', '01', `${k(1)}.json`), '{"mine": true}');
    writeFileSync(join(dir, 'summary', '01', `${k(1)}.json.1.x.tmp`), 'draft');
    expect(await clearCache('summaries', dir)).toMatchObject({ removed: 0, kept: 2 });
    expect(await pruneCache('summaries', dir, { nowMs: Date.now(), maxAgeMs: HOUR })).toMatchObject({ removed: 0 });
    expect(readFileSync(join(dir, 'summary', '01', `${k(1)}.json`), 'utf8')).toBe('{"mine": true}');
    expect(readFileSync(join(dir, 'summary', '01', `${k(1)}.json.1.x.tmp`), 'utf8')).toBe('draft');
  });
});
