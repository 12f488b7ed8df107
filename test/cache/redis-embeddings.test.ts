import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/types.js';
import { makeFixtureRepo, makeTempDir, type Fixture } from '../helpers/fixture-repo.js';
import { captureReporter, testContext } from '../helpers/fakes.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { createRedisCache } from '../../src/cache/redis-cache.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { runContextBudget } from '../../src/pipeline.js';
import { createScoreStage } from '../../src/scoring/score-files.js';
import { createEmbedder } from '../../src/scoring/semantic/embedder.js';
import { openEmbeddingStore } from '../../src/scoring/semantic/embedding-store.js';
import { semanticAlignment } from '../../src/scoring/semantic/semantic-alignment.js';
import { createFarTier } from '../../src/scoring/semantic/far-embeddings.js';
import { plainScores } from '../helpers/plain-scores.js';
import { buildTinyModel, candidateFile, configWith, countingEmbedder } from '../scoring/semantic/tiny-model.js';

/**
 * The embedding cache past one machine (issue 14): host A embeds and fills a real redis-server;
 * host B, with its own empty cache directory and the same Redis, embeds nothing (the tiny model
 * runs through real transformers.js; a counting wrapper sees what reaches it) and gets the same scores.
 */

const corpus = [
  candidateFile('src/http/client.ts', 'export async function fetchWithRetry(request) {\n  // retry with backoff on timeout\n  return httpClient.fetch(request);\n}\n'),
  candidateFile('src/config/load.ts', 'export function loadConfig(path) {\n  return parseYaml(readSettings(path));\n}\n'),
  candidateFile('src/ui/button.tsx', 'export function Button() {\n  return renderView({ style, color, onClick });\n}\n'),
];
const TASK = 'add retry with backoff to the http client';

let redis: RedisServer;
let tmp: Fixture;
let embedder: Embedder;
let modelDir: string;

beforeAll(async () => {
  redis = await startRedisServer();
  tmp = makeTempDir('aiwg-redis-embed-');
  modelDir = await buildTinyModel(tmp.root);
  embedder = (await createEmbedder(configWith({ model_dir: modelDir }), { root: tmp.root, cacheDir: join(tmp.root, 'cache'), reporter: captureReporter() }))!;
}, 60_000);
afterAll(async () => {
  await redis?.close();
  tmp?.cleanup();
});

describe('embeddings through Redis', () => {
  it("host B embeds nothing that host A put in Redis, keeps a copy in its own pack, and scores the same", async () => {
    const ctx = testContext({ config: configWith({ chunk_chars: 80 }) });
    const far = () => createRedisCache({ url: redis.url, idleMs: 10 });
    const a = countingEmbedder(embedder);
    const ra = await semanticAlignment({ task: TASK, files: corpus }, ctx, { embedder: a, cacheDir: join(tmp.root, 'host-a'), far: far() });
    expect(ra.embedded).toBe(ra.chunks);
    expect(ra.farHits).toBe(0);

    const b = countingEmbedder(embedder);
    const rb = await semanticAlignment({ task: TASK, files: corpus }, ctx, { embedder: b, cacheDir: join(tmp.root, 'host-b'), far: far() });
    expect(b.texts).toEqual([]);
    expect(rb.embedded).toBe(0);
    // Every file's chunk list, every chunk vector and the task vector came from Redis.
    expect(rb.farHits).toBe(corpus.length + ra.chunks + 1);
    expect([...rb.scores]).toEqual([...ra.scores]);
    const packB = await openEmbeddingStore(join(tmp.root, 'host-b'), embedder.id, embedder.dimensions);
    expect(packB.stats.vectors).toBe(ra.chunks + 1);

    // A host without Redis embeds everything again: the baseline B was spared.
    const c = countingEmbedder(embedder);
    await semanticAlignment({ task: TASK, files: corpus }, ctx, { embedder: c, cacheDir: join(tmp.root, 'host-c') });
    expect(c.texts.length).toBe(ra.chunks + 1);
  });

  it('a vector of the wrong size in Redis is a miss, and only what this run made is put there', async () => {
    const cache = createRedisCache({ url: redis.url, idleMs: 10 });
    const tier = createFarTier(cache, { id: 'm/one', dimensions: 4 });
    await cache.set('embeddings/m_one/vectors', 'short', Buffer.alloc(8).toString('base64'));
    await cache.set('embeddings/m_one/vectors', 'good', Buffer.from(new Float32Array([1, 0, 0, 0]).buffer).toString('base64'));
    const store = await openEmbeddingStore(join(tmp.root, 'tier'), 'm/one', 4);
    expect(await tier.fill(store, [], ['short', 'good', 'absent'])).toBe(1);
    expect(store.getVector('short')).toBeUndefined();
    expect([...store.getVector('good')!]).toEqual([1, 0, 0, 0]);
    store.putVector('absent', new Float32Array([0, 1, 0, 0]));
    store.putVector('short', new Float32Array([0, 0, 1, 0]));
    await tier.publish(store);
    const again = await openEmbeddingStore(join(tmp.root, 'tier-2'), 'm/one', 4);
    expect(await createFarTier(cache, { id: 'm/one', dimensions: 4 }).fill(again, [], ['absent', 'short'])).toBe(2);
    expect([...again.getVector('short')!]).toEqual([0, 0, 1, 0]);
  });

  it('the pipeline shares embeddings through cache.redis_url: a second host with an empty cache gets the same record', async () => {
    const repo = makeFixtureRepo([{ date: '2026-01-05T10:00:00Z', files: Object.fromEntries(corpus.map((f) => [f.path, `${f.content}// pipeline host test\n`])) }]);
    try {
      const configFor = (dir: string) =>
        ConfigSchema.parse({
          relevance_scoring: { scoring_method: 'semantic', embedding: { model_dir: modelDir } },
          tokenizer: 'chars4',
          cache: { dir: join(tmp.root, dir), redis_url: redis.url },
        });
      // The real score stage, with the real embedder wrapped so the test sees what reaches it.
      const seen: string[] = [];
      const embedderFactory = async () => ({ ...embedder, embed: (t: string[]) => (seen.push(...t), embedder.embed(t)) });
      const deps = (dir: string) => ({
        now: () => Date.UTC(2026, 1, 1),
        newRunId: () => 'run',
        score: createScoreStage({ root: repo.root, config: configFor(dir) }, { embedderFactory }),
      });
      const a = await runContextBudget({ task: TASK, root: repo.root, config: configFor('pipe-a') }, deps('pipe-a'));
      expect(seen.length).toBeGreaterThanOrEqual(corpus.length);
      seen.length = 0;
      const b = await runContextBudget({ task: TASK, root: repo.root, config: configFor('pipe-b') }, deps('pipe-b'));
      expect(seen).toEqual([]);
      expect(b.record.scoring).toEqual(a.record.scoring);
      expect(plainScores(b.scored)).toEqual(plainScores(a.scored));
      // Host B's vectors arrived from Redis (its embedder saw nothing) and were kept near.
      const packB = await openEmbeddingStore(join(tmp.root, 'pipe-b'), embedder.id, embedder.dimensions);
      expect(packB.stats.vectors).toBeGreaterThanOrEqual(corpus.length + 1);
      expect(b.record.warnings.filter((w) => w.includes('embedding'))).toEqual([]);
    } finally {
      repo.cleanup();
    }
  }, 60_000);
});
