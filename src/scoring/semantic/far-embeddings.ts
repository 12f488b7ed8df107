import type { Embedder, KeyValueCache } from '../../types.js';
import { modelSlug, type EmbeddingStore } from './embedding-store.js';

/** Lookups and writes in flight at once: the Redis client pipelines them on one connection. */
const FAR_BATCH = 256;

export interface FarTier {
  /** Copy what the far cache holds for these file keys and vector keys into the store; returns the hits. */
  fill(store: EmbeddingStore, fileKeys: string[], vectorKeys: string[]): Promise<number>;
  /** Put what this run added to the store (and did not get from far) into the far cache. */
  publish(store: EmbeddingStore): Promise<void>;
}

/**
 * The embedding cache past one machine: the pack file stays in front, a KeyValueCache (Redis with
 * cache.redis_url) behind it, with the pack's own content-addressed keys. Namespaces carry the
 * model (`embeddings/<model>/vectors`, `.../files`), values are base64 float32 LE or the chunk
 * hashes joined by newlines. A value of the wrong size is a miss; the far cache's own failures are
 * misses too (createRedisCache never throws), so a Redis that is down costs nothing but the hits.
 */
export function createFarTier(far: KeyValueCache, embedder: Pick<Embedder, 'id' | 'dimensions'>): FarTier {
  const vectorsNs = `embeddings/${modelSlug(embedder.id)}/vectors`;
  const filesNs = `embeddings/${modelSlug(embedder.id)}/files`;
  const newVectors = new Set<string>();
  const newFiles = new Set<string>();
  return {
    async fill(store, fileKeys, vectorKeys) {
      let hits = 0;
      const chunkKeys = new Set(vectorKeys);
      await inBatches(fileKeys, async (key) => {
        const value = await far.get(filesNs, key);
        if (value === undefined) return void newFiles.add(key);
        const hashes = value === '' ? [] : value.split('\n');
        store.putFileChunks(key, hashes);
        // The file's vectors come along, so the file need not be chunked again.
        for (const hash of hashes) if (!store.hasVector(hash)) chunkKeys.add(hash);
        hits++;
      });
      await inBatches([...chunkKeys], async (key) => {
        const value = await far.get(vectorsNs, key);
        const bytes = value === undefined ? undefined : Buffer.from(value, 'base64');
        if (bytes === undefined || bytes.length !== embedder.dimensions * 4) return void newVectors.add(key);
        store.putVector(key, new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)));
        hits++;
      });
      return hits;
    },
    async publish(store) {
      await inBatches([...newFiles], async (key) => {
        const hashes = store.getFileChunks(key);
        if (hashes !== undefined) await far.set(filesNs, key, hashes.join('\n'));
      });
      await inBatches([...newVectors], async (key) => {
        const vector = store.getVector(key);
        if (vector !== undefined) await far.set(vectorsNs, key, Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64'));
      });
    },
  };
}

async function inBatches<T>(items: T[], fn: (item: T) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < items.length; start += FAR_BATCH) await Promise.all(items.slice(start, start + FAR_BATCH).map(fn));
}
