import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, type Fixture } from '../../helpers/fixture-repo.js';
import { annIndexFiles, annSearch, detachAnnIndex, readIndexAhead, type AnnHandle } from '../../../src/scoring/semantic/ann-index.js';

const DIMS = 32;
function unitVectors(count: number, seed: number): Map<string, Float32Array> {
  let s = seed;
  const rand = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648 - 0.5;
  const out = new Map<string, Float32Array>();
  for (let i = 0; i < count; i++) {
    const v = Float32Array.from({ length: DIMS }, rand);
    const n = Math.hypot(...v);
    out.set(`k${seed}-${i}`, v.map((x) => x / n));
  }
  return out;
}
const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe('annSearch (hnswlib-node)', () => {
  let tmp: Fixture;
  beforeEach(() => (tmp = makeTempDir('aiwg-ann-')));
  afterEach(() => tmp.cleanup());

  it('finds the exact top 10 with recall >= 0.95 and reuses its persisted index incrementally', async () => {
    const vectors = unitVectors(2000, 1);
    const queries = [...unitVectors(20, 2).values()];
    const base = { indexDir: tmp.root, modelId: 'm@1', dimensions: DIMS, vectorOf: (k: string) => vectors.get(k)! };
    let found = 0;
    for (const [i, query] of queries.entries()) {
      const keys = [...vectors.keys()];
      const result = await annSearch({ ...base, keys, query, k: 10 });
      if (i === 0) expect(result.rebuilt).toBe(true);
      else expect(result).toMatchObject({ rebuilt: false, added: 0, removed: 0 });
      const exact = keys.map((k) => [k, dot(query, vectors.get(k)!)] as const).sort((a, b) => b[1] - a[1]).slice(0, 10);
      const got = new Set(result.hits.map((h) => h.key));
      found += exact.filter(([k]) => got.has(k)).length;
      expect(result.hits[0]!.similarity).toBeCloseTo(dot(query, vectors.get(result.hits[0]!.key)!), 4);
    }
    expect(found / (10 * queries.length)).toBeGreaterThanOrEqual(0.95);
  });

  it('a detached index leaves the handle, is freed once saved, and the next search reads the saved one with the same hits', async () => {
    const vectors = unitVectors(400, 11);
    const query = [...unitVectors(1, 12).values()][0]!;
    const q = { indexDir: tmp.root, modelId: 'm@1', dimensions: DIMS, vectorOf: (k: string) => vectors.get(k)!, keys: [...vectors.keys()], query, k: 10 };
    const handle: AnnHandle = { deferSave: true };
    const first = await annSearch(q, handle);
    const index = handle.state!.index;
    expect(index.getCurrentCount()).toBe(400);
    const free = detachAnnIndex(handle);
    expect([handle.state, handle.ahead]).toEqual([undefined, undefined]);
    await handle.saving;
    await free();
    // freed: re-initialised to room for one element, none in it
    expect([index.getMaxElements(), index.getCurrentCount()]).toEqual([1, 0]);
    const again = await annSearch(q, handle);
    expect(again).toMatchObject({ rebuilt: false, added: 0, removed: 0 });
    expect(again.hits).toEqual(first.hits);
  });

  it('names its own files in the index directory (what aiwg cache counts and clears), never another file', async () => {
    const vectors = unitVectors(60, 7);
    await annSearch({ indexDir: tmp.root, modelId: 'm@1', dimensions: DIMS, vectorOf: (k) => vectors.get(k)!, keys: [...vectors.keys()], query: [...vectors.values()][0]!, k: 3 });
    writeFileSync(join(tmp.root, 'notes.json'), '{"format": 1, "mine": true}\n');
    writeFileSync(join(tmp.root, 'notes-abcdefabcdef.hnsw'), 'not an index of ours\n');
    writeFileSync(join(tmp.root, 'facts.bin'), 'another writer\n');
    const ours = (await annIndexFiles(tmp.root)).map((p) => basename(p)).sort();
    expect(ours).toHaveLength(2);
    expect(ours[0]).toMatch(/-[0-9a-f]{12}\.hnsw$/);
    expect(ours[1]!.endsWith('.json')).toBe(true);
    expect(readdirSync(tmp.root).sort()).toEqual([...ours, 'facts.bin', 'notes-abcdefabcdef.hnsw', 'notes.json'].sort());
  });

  it('adds new chunks, drops vanished ones, rebuilds when most are gone', async () => {
    const first = unitVectors(300, 3);
    const more = unitVectors(50, 4);
    const all = new Map([...first, ...more]);
    const q = { indexDir: tmp.root, modelId: 'm@1', dimensions: DIMS, vectorOf: (k: string) => all.get(k)!, query: [...more.values()][0]!, k: 5 };
    await annSearch({ ...q, keys: [...first.keys()] });
    const keys = [...first.keys()].slice(20).concat([...more.keys()]);
    const grown = await annSearch({ ...q, keys });
    expect(grown).toMatchObject({ rebuilt: false, added: 50, removed: 20 });
    expect(grown.hits[0]!.key).toBe([...more.keys()][0]);
    const shrunk = await annSearch({ ...q, keys: [...more.keys()] });
    expect(shrunk.rebuilt).toBe(true);
    expect(shrunk.hits.every((h) => more.has(h.key))).toBe(true);
    expect(readdirSync(tmp.root).filter((n) => n.endsWith('.hnsw'))).toHaveLength(1);
  });

  it('a held index answers like the one on disk, keeps the disk in step when chunks change, and is not read again', async () => {
    const first = unitVectors(300, 6);
    const more = unitVectors(40, 7);
    const all = new Map([...first, ...more]);
    const queries = [...unitVectors(5, 8).values()];
    const q = { indexDir: tmp.root, modelId: 'm@1', dimensions: DIMS, vectorOf: (k: string) => all.get(k)!, k: 8 };
    const handle: AnnHandle = {};
    const keys = [...first.keys()];
    await annSearch({ ...q, keys, query: queries[0]! }, handle);
    const held = handle.state;
    for (const query of queries) {
      const fromMemory = await annSearch({ ...q, keys, query }, handle);
      expect(fromMemory).toMatchObject({ rebuilt: false, added: 0, removed: 0 });
      expect(fromMemory.hits).toEqual((await annSearch({ ...q, keys, query })).hits);
    }
    expect(handle.state).toBe(held);
    // the held index lives in memory: its files on disk are no longer needed to search it
    for (const name of readdirSync(tmp.root)) rmSync(join(tmp.root, name));
    expect((await annSearch({ ...q, keys, query: queries[1]! }, handle)).hits.length).toBe(8);
    // new chunks: added to the held index and saved, so a new process starts from them
    const grown = [...keys.slice(10), ...more.keys()];
    expect(await annSearch({ ...q, keys: grown, query: queries[2]! }, handle)).toMatchObject({ rebuilt: false, added: 40, removed: 10 });
    expect(await annSearch({ ...q, keys: grown, query: queries[2]! })).toMatchObject({ rebuilt: false, added: 0, removed: 0 });
  });

  it('an index read ahead is the one the first search takes: the disk is not read again', async () => {
    const vectors = unitVectors(200, 11);
    const q = { indexDir: tmp.root, modelId: 'm@1', dimensions: DIMS, vectorOf: (k: string) => vectors.get(k)!, keys: [...vectors.keys()], query: [...vectors.values()][0]!, k: 5 };
    const made = await annSearch(q);
    expect(made.rebuilt).toBe(true);
    const handle: AnnHandle = {};
    readIndexAhead(q, handle);
    await handle.ahead?.reading;
    // the files go once the read is done: a search that read them again would build a new index
    for (const file of await annIndexFiles(tmp.root)) rmSync(file);
    const taken = await annSearch(q, handle);
    expect(taken).toMatchObject({ rebuilt: false, added: 0, removed: 0 });
    expect(taken.hits).toEqual(made.hits);
    expect(handle.ahead).toBeUndefined();
    // a read ahead finding nothing on disk: the first search builds the index
    const none: AnnHandle = {};
    readIndexAhead(q, none);
    expect((await annSearch(q, none)).rebuilt).toBe(true);
  });

  it('rebuilds for another model and survives a missing index file', async () => {
    const v = unitVectors(100, 5);
    const q = { indexDir: tmp.root, dimensions: DIMS, keys: [...v.keys()], vectorOf: (k: string) => v.get(k)!, query: [...v.values()][3]!, k: 3 };
    await annSearch({ ...q, modelId: 'a@1' });
    expect((await annSearch({ ...q, modelId: 'b@1' })).rebuilt).toBe(true);
    for (const n of readdirSync(tmp.root)) if (n.startsWith('a_1-')) (await import('node:fs')).rmSync(`${tmp.root}/${n}`);
    const again = await annSearch({ ...q, modelId: 'a@1' });
    expect(again.rebuilt).toBe(true);
    expect(again.hits[0]!.key).toBe([...v.keys()][3]);
  });
});
