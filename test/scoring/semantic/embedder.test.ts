import { cpSync, mkdirSync, readFileSync, truncateSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, type Fixture } from '../../helpers/fixture-repo.js';
import { captureReporter, testContext } from '../../helpers/fakes.js';
import { candidates, signalInput } from '../helpers.js';
import { createEmbedder } from '../../../src/scoring/semantic/embedder.js';
import { bindSemanticAlignment } from '../../../src/scoring/semantic-adapter.js';
import { createTaskAlignmentSignal } from '../../../src/scoring/signals/task-alignment.js';
import { buildTinyModel, configWith, TINY_DIMS, unpooledCopy } from './tiny-model.js';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

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

  it('runs a static model directly and any other model through transformers.js, to the same vectors', async () => {
    const transformers = await import('@huggingface/transformers');
    const unpooled = unpooledCopy(modelDir, join(tmp.root, 'unpooled-tiny'));
    const options = { root: tmp.root, cacheDir: join(tmp.root, 'cache'), reporter: captureReporter() };
    const direct = (await createEmbedder(configWith({ model_dir: modelDir }), options))!;
    const pipeline = (await createEmbedder(configWith({ model_dir: unpooled }), options))!;
    const texts = ['fix the httpClient retry', 'renderButton click modal', 'yaml config loader', '12345 ;;'];
    // transformers.js' process-wide switch: every transformers.js load sets it to false for a
    // local model, so it staying true shows the static model never went through transformers.js.
    transformers.env.allowRemoteModels = true;
    const a = await direct.embed(texts);
    expect(transformers.env.allowRemoteModels).toBe(true);
    const b = await pipeline.embed(texts);
    expect(transformers.env.allowRemoteModels).toBe(false);
    a.forEach((v, i) => {
      if (i === 3) expect([...v, ...b[i]!].every((x) => x === 0)).toBe(true);
      else expect(dot(v, b[i]!)).toBeGreaterThan(0.99999);
    });
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
      // A static copy runs without transformers.js; a non-static copy runs through it, local only.
      const staticCopy = join(tmp.root, 'copy-of-tiny');
      cpSync(modelDir, staticCopy, { recursive: true });
      const pipelineCopy = unpooledCopy(modelDir, join(tmp.root, 'unpooled-copy-of-tiny'));
      for (const copy of [staticCopy, pipelineCopy]) {
        const local = await createEmbedder(configWith({ model_dir: copy }), { root: tmp.root, cacheDir: join(tmp.root, 'cache'), reporter: captureReporter() });
        await local!.embed(['retry the request']);
      }
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

  it.each([
    ['a truncated model.onnx', (dir: string) => truncateSync(join(dir, 'onnx', 'model.onnx'), Math.floor(statSync(join(dir, 'onnx', 'model.onnx')).size / 2)), /onnx\/model\.onnx is not a readable ONNX model \(.+\): it is truncated or corrupt/],
    ['a model.onnx of garbage', (dir: string) => writeFileSync(join(dir, 'onnx', 'model.onnx'), 'not a model at all'), /onnx\/model\.onnx (is not a readable ONNX model|has no "embeddings" initializer)/],
    ['a config.json whose hidden_size is not the table\'s', (dir: string) => {
      const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, hidden_size: TINY_DIMS + 1 }));
    }, new RegExp(`the embeddings table has ${TINY_DIMS} dims but config.json hidden_size is ${TINY_DIMS + 1}`)],
  ])('a static model with %s fails on embed() with a clear error, and task_alignment falls back to keyword with a warning', async (what, breakIt, message) => {
    const dir = join(tmp.root, `broken-${what.replace(/\W+/g, '-')}`);
    cpSync(modelDir, dir, { recursive: true });
    breakIt(dir);
    const embedder = await createEmbedder(configWith({ model_dir: dir }), { root: tmp.root, cacheDir: join(tmp.root, 'cache'), reporter: captureReporter() });
    // Lazy: the broken file is only read on the first embed().
    expect(embedder).not.toBeNull();
    await expect(embedder!.embed(['retry'])).rejects.toThrow(message);
    await expect(embedder!.embed(['retry'])).rejects.toThrow(`static embedding model ${dir} cannot be loaded`);
    await expect(embedder!.embed(['retry'])).rejects.toThrow(`rebuild the model in ${dir}`);

    const files = candidates({ 'src/http/client.ts': 'export class HttpClient { retryLoop() {} }', 'src/ui/button.ts': 'export function renderButton() {}' });
    const ctx = testContext();
    const semantic = bindSemanticAlignment(embedder!, { cacheDir: join(tmp.root, `cache-${what.length}`) });
    const result = await createTaskAlignmentSignal({ semantic }).score(signalInput(files, { task: 'the http client retry loop' }), ctx, {});
    expect(result.get('src/http/client.ts')?.score).toBe(1);
    expect(result.get('src/ui/button.ts')?.score).toBe(0);
    expect(ctx.warnings).toEqual([expect.stringMatching(/^task_alignment: semantic alignment failed \(static embedding model .*\); fell back to keyword \(BM25\) alignment$/)]);
    expect(ctx.warnings[0]).toMatch(message);
  });
});
