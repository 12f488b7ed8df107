import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, type Fixture } from '../../helpers/fixture-repo.js';
import { embeddingStoreDir, modelSlug, openEmbeddingStore, packHoldsKey, taskVectorKey } from '../../../src/scoring/semantic/embedding-store.js';

/** Where the pack's records and groups start (their magic). */
const magicsIn = (bytes: Buffer): number[] => {
  const at: number[] = [];
  for (let i = bytes.indexOf('AIWE'); i !== -1; i = bytes.indexOf('AIWE', i + 1)) at.push(i);
  return at;
};

const vec = (seed: number, dims = 4) => Float32Array.from({ length: dims }, (_, i) => Math.sin(seed * 7 + i));

describe('embedding store', () => {
  let tmp: Fixture;
  beforeEach(() => (tmp = makeTempDir('aiwg-store-')));
  afterEach(() => tmp.cleanup());

  it('round-trips vectors and file maps through the pack', async () => {
    const a = await openEmbeddingStore(tmp.root, 'm@1', 4);
    a.putVector('h1', vec(1));
    a.putVector('h2', vec(2));
    a.putFileChunks('f1', ['h1', 'h2']);
    a.putFileChunks('empty', []);
    await a.flush();
    const b = await openEmbeddingStore(tmp.root, 'm@1', 4);
    expect(Array.from(b.getVector('h2')!)).toEqual(Array.from(vec(2)));
    expect(b.getFileChunks('f1')).toEqual(['h1', 'h2']);
    expect(b.getFileChunks('empty')).toEqual([]);
    expect(b.getVector('nope')).toBeUndefined();
    expect([b.hasVector('h2'), b.hasVector('nope'), b.hasVector('f1')]).toEqual([true, false, false]);
    expect(b.stats).toMatchObject({ vectors: 2, files: 2, corrupt: 0 });
  });

  it('writes a key put twice in one run once, with its last value, and nothing a second flush already wrote', async () => {
    const a = await openEmbeddingStore(tmp.root, 'm@1', 4);
    a.putVector('h1', vec(1));
    a.putVector('h1', vec(5));
    a.putFileChunks('f1', ['h1']);
    a.putFileChunks('f1', ['h1', 'h1']);
    await a.flush();
    await a.flush();
    const pack = readFileSync(join(embeddingStoreDir(tmp.root, 'm@1'), 'vectors.pack'));
    const b = await openEmbeddingStore(tmp.root, 'm@1', 4);
    expect(b.stats).toMatchObject({ records: 2, vectors: 1, files: 1, corrupt: 0 });
    expect(Array.from(b.getVector('h1')!)).toEqual(Array.from(vec(5)));
    expect(b.getFileChunks('f1')).toEqual(['h1', 'h1']);
    // one group holding the two records, the vector first (kind byte 1, then the list's 2)
    const magics = magicsIn(pack);
    expect(magics).toHaveLength(3);
    expect([pack[magics[1]! + 5], pack[magics[2]! + 5]]).toEqual([1, 2]);
  });

  it("tells whether the pack holds a task's vector before any store is open, and the next open takes that read", async () => {
    expect(await packHoldsKey(tmp.root, 'm@1', taskVectorKey('first task'))).toBe(false);
    const a = await openEmbeddingStore(tmp.root, 'm@1', 4);
    a.putVector(taskVectorKey('first task'), vec(1));
    a.putVector('h1', vec(2));
    await a.flush();
    const c = await openEmbeddingStore(tmp.root, 'm@1', 4);
    expect(await packHoldsKey(tmp.root, 'm@1', taskVectorKey('another task'))).toBe(false);
    expect(await packHoldsKey(tmp.root, 'm@2', taskVectorKey('first task'))).toBe(false);
    expect(await packHoldsKey(tmp.root, 'm@1', taskVectorKey('first task'))).toBe(true);
    // the pack changes after that read: the next open sees the pack as read (a cache), the one after reads it again
    c.putVector('h2', vec(3));
    await c.flush();
    const b = await openEmbeddingStore(tmp.root, 'm@1', 4);
    expect(b.getVector('h2')).toBeUndefined();
    expect(Array.from(b.getVector(taskVectorKey('first task'))!)).toEqual(Array.from(vec(1)));
    expect((await openEmbeddingStore(tmp.root, 'm@1', 4)).getVector('h2')).toBeDefined();
  });

  it('treats a corrupted record as a miss and still reads the records after it', async () => {
    const a = await openEmbeddingStore(tmp.root, 'm@1', 4);
    for (let i = 0; i < 3; i++) a.putVector(`h${i}`, vec(i));
    await a.flush();
    const pack = join(embeddingStoreDir(tmp.root, 'm@1'), 'vectors.pack');
    const bytes = readFileSync(pack);
    // one group (its magic first), then the three records in it
    const at = magicsIn(bytes);
    expect(at).toHaveLength(4);
    bytes[at[2]! + 20] = bytes[at[2]! + 20]! ^ 0xff; // inside the second record's payload
    writeFileSync(pack, bytes);
    const b = await openEmbeddingStore(tmp.root, 'm@1', 4);
    expect(b.getVector('h0')).toBeDefined();
    expect(b.getVector('h1')).toBeUndefined();
    expect(b.getVector('h2')).toBeDefined();
    expect(b.stats.corrupt).toBeGreaterThan(0);
  });

  it('checks one checksum per group, and still reads records written one by one (before groups)', async () => {
    const a = await openEmbeddingStore(tmp.root, 'm@1', 4);
    for (let i = 0; i < 3; i++) a.putVector(`h${i}`, vec(i));
    await a.flush();
    const pack = join(embeddingStoreDir(tmp.root, 'm@1'), 'vectors.pack');
    const grouped = readFileSync(pack);
    const at = magicsIn(grouped);
    // a record's own checksum is not read while its group's holds: spoil one, then mend the group's
    const spoiled = Buffer.from(grouped);
    const recordEnd = at[3]! - 4;
    spoiled.writeUInt32LE((spoiled.readUInt32LE(recordEnd) ^ 1) >>> 0, recordEnd);
    spoiled.writeUInt32LE(crc32(spoiled.subarray(4, spoiled.length - 4)), spoiled.length - 4);
    writeFileSync(pack, spoiled);
    const b = await openEmbeddingStore(tmp.root, 'm@1', 4);
    expect(b.stats).toMatchObject({ vectors: 3, corrupt: 0 });
    // the records alone, as earlier versions wrote them
    writeFileSync(pack, grouped.subarray(at[1]!, grouped.length - 4));
    const c = await openEmbeddingStore(tmp.root, 'm@1', 4);
    expect(c.stats).toMatchObject({ vectors: 3, corrupt: 0 });
    expect(Array.from(c.getVector('h2')!)).toEqual(Array.from(vec(2)));
  });

  it('ignores a torn tail and garbage, and vectors of another dimension', async () => {
    const a = await openEmbeddingStore(tmp.root, 'm@1', 4);
    a.putVector('h0', vec(0));
    await a.flush();
    const pack = join(embeddingStoreDir(tmp.root, 'm@1'), 'vectors.pack');
    const bytes = readFileSync(pack);
    writeFileSync(pack, Buffer.concat([Buffer.from('garbage'), bytes, bytes.subarray(0, bytes.length - 5)]));
    const b = await openEmbeddingStore(tmp.root, 'm@1', 4);
    expect(b.getVector('h0')).toBeDefined();
    const c = await openEmbeddingStore(tmp.root, 'm@1', 8);
    expect(c.getVector('h0')).toBeUndefined();
  });

  it('keeps both writers\' records when two processes append concurrently', async () => {
    const a = await openEmbeddingStore(tmp.root, 'm@1', 4);
    const b = await openEmbeddingStore(tmp.root, 'm@1', 4);
    for (let i = 0; i < 500; i++) a.putVector(`a${i}`, vec(i));
    for (let i = 0; i < 500; i++) b.putVector(`b${i}`, vec(i + 1000));
    await Promise.all([a.flush(), b.flush()]);
    const c = await openEmbeddingStore(tmp.root, 'm@1', 4);
    expect(c.stats).toMatchObject({ vectors: 1000, corrupt: 0 });
  });

  it('compacts a pack that is mostly dead records', async () => {
    for (let round = 0; round < 3; round++) {
      const s = await openEmbeddingStore(tmp.root, 'm@1', 4);
      for (let i = 0; i < 600; i++) s.putVector(`h${i}`, vec(i + round));
      await s.flush();
    }
    const s = await openEmbeddingStore(tmp.root, 'm@1', 4);
    expect(s.stats.records).toBe(600);
    expect(Array.from(s.getVector('h5')!)).toEqual(Array.from(vec(7)));
  });

  it('drops entries the run did not use once they outnumber the used ones 4 to 1', async () => {
    const s = await openEmbeddingStore(tmp.root, 'm@1', 4);
    for (let i = 0; i < 1200; i++) s.putVector(`h${i}`, vec(i));
    await s.flush(new Set(Array.from({ length: 1200 }, (_, i) => `h${i}`)));
    const t = await openEmbeddingStore(tmp.root, 'm@1', 4);
    expect(t.stats.records).toBe(1200);
    await t.flush(new Set(['h1', 'h2', 'h3']));
    const u = await openEmbeddingStore(tmp.root, 'm@1', 4);
    expect(u.stats).toMatchObject({ records: 3, vectors: 3 });
    expect(Array.from(u.getVector('h2')!)).toEqual(Array.from(vec(2)));
  });

  it('keeps the chunk lists it read (split only when asked for) through both compactions', async () => {
    const s = await openEmbeddingStore(tmp.root, 'm@1', 4);
    for (let i = 0; i < 1200; i++) s.putVector(`h${i}`, vec(i));
    s.putFileChunks('f1', ['h1', 'h2', 'h2']);
    s.putFileChunks('f2', ['h3']);
    await s.flush();
    // mostly dead records: every vector again in two later runs, the lists as read
    for (let round = 1; round <= 2; round++) {
      const t = await openEmbeddingStore(tmp.root, 'm@1', 4);
      for (let i = 0; i < 1200; i++) t.putVector(`h${i}`, vec(i + round));
      await t.flush();
    }
    const u = await openEmbeddingStore(tmp.root, 'm@1', 4);
    expect(u.stats).toMatchObject({ records: 1202, files: 2 });
    expect([u.getFileChunks('f2'), u.getFileChunks('f1')]).toEqual([['h3'], ['h1', 'h2', 'h2']]);
    // only what the run used: one list of the two, not yet asked for in this store
    const v = await openEmbeddingStore(tmp.root, 'm@1', 4);
    await v.flush(new Set(['h1', 'h2', 'f1']));
    const w = await openEmbeddingStore(tmp.root, 'm@1', 4);
    expect(w.stats).toMatchObject({ records: 3, vectors: 2, files: 1 });
    expect([w.getFileChunks('f1'), w.getFileChunks('f2')]).toEqual([['h1', 'h2', 'h2'], undefined]);
  });

  it.each([
    ['aiwg/glove-100d@1', 'aiwg_glove-100d_1'],
    ['../../etc', 'etc'],
    ['dir:my model#abc', 'dir_my_model_abc'],
  ])('slugs %j as %j', (id, slug) => expect(modelSlug(id)).toBe(slug));
});
