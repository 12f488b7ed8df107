import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, type Fixture } from '../../helpers/fixture-repo.js';
import { captureReporter } from '../../helpers/fakes.js';
import { createEmbedder } from '../../../src/scoring/semantic/embedder.js';
import { buildTinyModel, configWith, TINY_DIMS } from './tiny-model.js';

describe('createEmbedder', () => {
  let tmp: Fixture;
  let modelDir: string;
  beforeAll(async () => {
    tmp = makeTempDir('aiwg-embedder-');
    modelDir = await buildTinyModel(tmp.root);
  });
  afterAll(() => tmp.cleanup());

  it('loads a local model_dir (relative to the root) with a fingerprinted id', async () => {
    const embedder = await createEmbedder(configWith({ model_dir: 'tiny-model' }), { root: tmp.root, cacheDir: join(tmp.root, 'cache'), reporter: captureReporter() });
    expect(embedder).not.toBeNull();
    expect(embedder!.id).toMatch(/^dir:tiny-model#[0-9a-f]{12}$/);
    expect(embedder!.dimensions).toBe(TINY_DIMS);
    const [v] = await embedder!.embed(['http client']);
    expect(v).toHaveLength(TINY_DIMS);
  });

  it('returns null with a warning for a missing model directory, never throws', async () => {
    const warnings: string[] = [];
    const reporter = captureReporter();
    const embedder = await createEmbedder(configWith({ model_dir: 'no/such/model' }), { root: tmp.root, cacheDir: join(tmp.root, 'cache'), reporter, warnings });
    expect(embedder).toBeNull();
    expect(warnings[0]).toMatch(/model_dir .*no\/such\/model is not a transformers.js model directory/);
    expect(reporter.lines.some((l) => l.startsWith('warn:'))).toBe(true);
  });

  it('returns null with a warning when the model files are broken', async () => {
    const broken = join(tmp.root, 'broken');
    mkdirSync(join(broken, 'onnx'), { recursive: true });
    writeFileSync(join(broken, 'config.json'), '{"model_type":"bert"}');
    writeFileSync(join(broken, 'tokenizer.json'), '{}');
    writeFileSync(join(broken, 'tokenizer_config.json'), '{}');
    writeFileSync(join(broken, 'onnx', 'model.onnx'), 'not a model');
    const warnings: string[] = [];
    const embedder = await createEmbedder(configWith({ model_dir: broken }), { root: tmp.root, cacheDir: join(tmp.root, 'cache'), reporter: captureReporter(), warnings });
    expect(embedder).toBeNull();
    expect(warnings[0]).toMatch(/could not load model/);
  });

  it('never touches the network for a local model, and fails softly for a hub id when offline', async () => {
    const transformers = await import('@huggingface/transformers');
    const originalFetch = transformers.env.fetch;
    const requested: string[] = [];
    transformers.env.fetch = (async (url: string) => {
      requested.push(String(url));
      throw new Error('network disabled in tests');
    }) as typeof transformers.env.fetch;
    try {
      const copy = join(tmp.root, 'copy-of-tiny');
      cpSync(modelDir, copy, { recursive: true });
      const local = await createEmbedder(configWith({ model_dir: copy }), { root: tmp.root, cacheDir: join(tmp.root, 'cache'), reporter: captureReporter() });
      await local!.embed(['retry the request']);
      expect(requested).toEqual([]);
      expect(transformers.env.allowRemoteModels).toBe(false);

      const warnings: string[] = [];
      const hub = await createEmbedder(configWith({ model: 'example-org/not-cached-model' }), { root: tmp.root, cacheDir: join(tmp.root, 'cache'), reporter: captureReporter(), warnings });
      expect(hub).toBeNull();
      expect(warnings[0]).toMatch(/could not load model example-org\/not-cached-model.*network connection on first use, or set model_dir/);
    } finally {
      transformers.env.fetch = originalFetch;
    }
  });
});
