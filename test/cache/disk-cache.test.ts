import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CACHE_FORMAT_VERSION, createDiskCache, entryPath } from '../../src/cache/disk-cache.js';
import { createLayeredCache } from '../../src/cache/layered-cache.js';
import { fakeClock, memoryCache } from '../helpers/fakes.js';

const HOUR = 3_600_000;
const KEY = 'ab12cd34ef.0123456789abcdef';
const tempDir = () => mkdtempSync(join(tmpdir(), 'aiwg-disk-cache-'));

describe('createDiskCache', () => {
  it('round-trips values, sharded by key prefix, with no temp files left', async () => {
    const dir = tempDir();
    const cache = createDiskCache({ dir });
    expect(await cache.get('detailed', KEY)).toBeUndefined();
    await cache.set('detailed', KEY, 'outline text');
    expect(await cache.get('detailed', KEY)).toBe('outline text');
    expect(relative(dir, entryPath(dir, 'detailed', KEY))).toBe(join('detailed', 'ab', `${KEY}.json`));
    expect(readdirSync(join(dir, 'detailed', 'ab'))).toEqual([`${KEY}.json`]);
    const envelope = JSON.parse(readFileSync(entryPath(dir, 'detailed', KEY), 'utf8'));
    expect(envelope).toMatchObject({ format: 'aiwg-cache', v: CACHE_FORMAT_VERSION, ns: 'detailed', key: KEY, value: 'outline text' });
  });

  it('with asyncWrites, writes the same entry on the thread pool, with no temp files left', async () => {
    const dir = tempDir();
    await createDiskCache({ dir, asyncWrites: true }).set('detailed', KEY, 'outline text');
    expect(await createDiskCache({ dir }).get('detailed', KEY)).toBe('outline text');
    expect(readdirSync(join(dir, 'detailed', 'ab'))).toEqual([`${KEY}.json`]);
  });

  it('hashes unsafe namespaces and keys into safe path segments', async () => {
    const dir = tempDir();
    const cache = createDiskCache({ dir });
    await cache.set('../escape', '../../etc/passwd', 'x');
    expect(await cache.get('../escape', '../../etc/passwd')).toBe('x');
    expect(relative(dir, entryPath(dir, '../escape', '../../etc/passwd')).startsWith('..')).toBe(false);
  });

  it.each([
    ['truncated', (text: string) => text.slice(0, text.length - 7)],
    ['garbage', () => '\u0000\u0001 not json at all'],
    ['empty', () => ''],
    ['foreign version', (text: string) => text.replace(`"v":${CACHE_FORMAT_VERSION}`, '"v":999')],
    ['another key', (text: string) => text.replace(`"key":"${KEY}"`, '"key":"other"')],
    ['wrong shape', () => JSON.stringify({ format: 'aiwg-cache', v: CACHE_FORMAT_VERSION, ns: 'detailed', key: KEY, createdMs: 1, value: 42 })],
  ])('a %s entry is a miss and the next set rewrites it', async (_name, corrupt) => {
    const dir = tempDir();
    const cache = createDiskCache({ dir });
    await cache.set('detailed', KEY, 'good');
    const file = entryPath(dir, 'detailed', KEY);
    writeFileSync(file, corrupt(readFileSync(file, 'utf8')));
    expect(await cache.get('detailed', KEY)).toBeUndefined();
    await cache.set('detailed', KEY, 'rewritten');
    expect(await cache.get('detailed', KEY)).toBe('rewritten');
  });

  it('expires entries after maxAgeMs by the injected clock', async () => {
    const clock = fakeClock();
    const cache = createDiskCache({ dir: tempDir(), now: clock.now, maxAgeMs: 24 * HOUR });
    await cache.set('summary', KEY, 'fresh');
    clock.advance(24 * HOUR);
    expect(await cache.get('summary', KEY)).toBe('fresh');
    clock.advance(1);
    expect(await cache.get('summary', KEY)).toBeUndefined();
    await cache.set('summary', KEY, 'renewed');
    expect(await cache.get('summary', KEY)).toBe('renewed');
  });

  it('maxAgeMs 0 never expires', async () => {
    const clock = fakeClock();
    const cache = createDiskCache({ dir: tempDir(), now: clock.now, maxAgeMs: 0 });
    await cache.set('summary', KEY, 'kept');
    clock.advance(10_000 * HOUR);
    expect(await cache.get('summary', KEY)).toBe('kept');
  });

  it('an entry written by another format version is a miss', async () => {
    const dir = tempDir();
    await createDiskCache({ dir, formatVersion: CACHE_FORMAT_VERSION + 1 }).set('detailed', KEY, 'from the future');
    expect(await createDiskCache({ dir }).get('detailed', KEY)).toBeUndefined();
  });
});

describe('createLayeredCache', () => {
  function countingBacking() {
    const backing = memoryCache();
    const counts = { get: 0, set: 0 };
    return {
      counts,
      backing,
      cache: {
        get: (ns: string, key: string) => (counts.get++, backing.get(ns, key)),
        set: (ns: string, key: string, value: string) => (counts.set++, backing.set(ns, key, value)),
      },
    };
  }

  it('serves repeated reads from memory and writes through', async () => {
    const { cache, counts, backing } = countingBacking();
    const layered = createLayeredCache(cache);
    await layered.set('ns', 'k', 'v');
    expect(backing.entries.get('ns/k')).toBe('v');
    for (let i = 0; i < 5; i++) expect(await layered.get('ns', 'k')).toBe('v');
    expect(counts.get).toBe(0);
  });

  it('reads through on a miss, then holds the value', async () => {
    const { cache, counts, backing } = countingBacking();
    backing.entries.set('ns/k', 'from disk');
    const layered = createLayeredCache(cache);
    expect(await layered.get('ns', 'k')).toBe('from disk');
    expect(await layered.get('ns', 'k')).toBe('from disk');
    expect(counts.get).toBe(1);
  });

  it('is bounded: the least recently used entry leaves memory', async () => {
    const { cache, counts } = countingBacking();
    const layered = createLayeredCache(cache, { maxEntries: 2 });
    await layered.set('ns', 'a', '1');
    await layered.set('ns', 'b', '2');
    await layered.set('ns', 'c', '3');
    expect(await layered.get('ns', 'c')).toBe('3');
    expect(counts.get).toBe(0);
    expect(await layered.get('ns', 'a')).toBe('1');
    expect(counts.get).toBe(1);
  });

  it('writes behind: set returns while the backing write waits, the value is served from memory, and a failed write is thrown by the next set', async () => {
    const written = new Map<string, string>();
    const waiting: Array<() => void> = [];
    let fail = false;
    const slow = {
      get: async () => undefined,
      set: (ns: string, key: string, value: string) =>
        new Promise<void>((resolve, reject) => waiting.push(() => (fail ? reject(Object.assign(new Error('disk full'), { code: 'ENOSPC' })) : (written.set(`${ns}/${key}`, value), resolve())))),
    };
    const layered = createLayeredCache(slow, { writeBehind: true });
    await layered.set('ns', 'a', '1');
    expect(written.size).toBe(0);
    expect(await layered.get('ns', 'a')).toBe('1');
    waiting.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
    expect(written.get('ns/a')).toBe('1');
    fail = true;
    await layered.set('ns', 'b', '2');
    waiting.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
    await expect(layered.set('ns', 'c', '3')).rejects.toThrow('disk full');
    // reported once: the set after that one goes on
    fail = false;
    await layered.set('ns', 'd', '4');
    expect(await layered.get('ns', 'c')).toBe('3');
  });

  it('memory entries expire with the same clock as the disk', async () => {
    const clock = fakeClock();
    const { cache, counts } = countingBacking();
    const layered = createLayeredCache(cache, { now: clock.now, maxAgeMs: HOUR });
    await layered.set('ns', 'k', 'v');
    clock.advance(HOUR + 1);
    await layered.get('ns', 'k');
    expect(counts.get).toBe(1);
  });
});
