import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Embedder } from '../../types.js';
import { loadOnnxProto } from './onnx-gather-graph.js';
import { compileStaticTokenizer, type StaticTokenizer } from './static-tokenizer.js';
import { normalizeLikeTransformers, sanitize } from './unit-vector.js';

/**
 * The Embedder of a static-model-builder model (config.json `aiwg_static_embedding.pooled`), run
 * directly: its tokenizer (static-tokenizer.ts), the sum of the token rows of the `embeddings`
 * table in float32 in sequence order (what onnxruntime's ReduceSum over the Gather does), then
 * transformers.js' normalisation and `sanitize`. The vectors equal the transformers.js
 * pipeline's, so ids and caches are shared; what is gone is loading transformers.js and
 * onnxruntime and their per-call tokenizer objects and tensors.
 */
export interface StaticEmbedderOptions {
  /** The model directory (config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx). */
  dir: string;
  /** Recorded in budget records and cache keys. */
  id: string;
  /** config.json `hidden_size`; when known, nothing loads until the first embed() or load(). */
  dimensions?: number;
  /** How to repair a broken model, appended to load errors (e.g. "delete DIR to rebuild it"). */
  fix?: string;
}

/** An embedder over a static model; with `dimensions` given it loads lazily (errors surface from embed()). */
export async function createStaticEmbedder(options: StaticEmbedderOptions): Promise<Embedder> {
  let loading: Promise<StaticModel> | null = null;
  const model = () => (loading ??= loadStaticModel(options));
  const dimensions = options.dimensions ?? (await model()).dimensions;
  return {
    id: options.id,
    dimensions,
    async load() {
      await model();
    },
    async embed(texts) {
      const loaded = await model();
      if (loaded.dimensions !== dimensions) throw new Error(`model ${options.dir} has ${loaded.dimensions} dims, its config says ${dimensions}`);
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i++) {
        // A turn of the event loop now and then, as onnxruntime's asynchronous run gave: otherwise
        // a cold run's embedding would hold I/O callbacks (git pipes, worker messages) throughout.
        if (i % TEXTS_PER_TURN === 0) await nextTurn();
        out.push(embedOne(loaded, texts[i]!));
      }
      return out;
    },
  };
}

/** Texts embedded between two turns of the event loop (~10-30 ms of work). */
const TEXTS_PER_TURN = 128;

export interface StaticModel {
  tokenizer: StaticTokenizer;
  /** Row-major [rows, dimensions] float32. */
  table: Float32Array;
  rows: number;
  dimensions: number;
}

/** Read and check the four files; every failure names the file and how to fix it. */
export async function loadStaticModel(options: Pick<StaticEmbedderOptions, 'dir' | 'fix'>): Promise<StaticModel> {
  const { dir } = options;
  const fix = options.fix ?? `rebuild the model in ${dir}`;
  const file = (name: string) => join(dir, name);
  try {
    const [config, tokenizerJson, tokenizerConfig, onnxBytes] = await Promise.all([
      readJson(file('config.json')),
      readJson(file('tokenizer.json')),
      readJson(file('tokenizer_config.json')),
      readFile(file(join('onnx', 'model.onnx'))),
    ]);
    // Parsed JSON: only these keys are read, and each is checked before use.
    const hiddenSize = (config as { hidden_size?: unknown }).hidden_size;
    const maxLength = (tokenizerConfig as { model_max_length?: unknown }).model_max_length;
    const tokenizer = compileStaticTokenizer(tokenizerJson, typeof maxLength === 'number' && maxLength > 0 ? maxLength : Infinity, file('tokenizer.json'));
    const { table, rows, dimensions } = readEmbeddingTable(onnxBytes, file(join('onnx', 'model.onnx')));
    if (hiddenSize !== dimensions) {
      throw new Error(`${file(join('onnx', 'model.onnx'))}: the embeddings table has ${dimensions} dims but config.json hidden_size is ${String(hiddenSize)}`);
    }
    if (tokenizer.maxId >= rows) {
      throw new Error(`${file('tokenizer.json')}: token id ${tokenizer.maxId} is outside the embeddings table's ${rows} rows`);
    }
    return { tokenizer, table, rows, dimensions };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`static embedding model ${dir} cannot be loaded: ${reason}; ${fix}`, { cause: error });
  }
}

/**
 * The `embeddings` initializer of onnx/model.onnx as an aligned Float32Array [rows, dims].
 * protobufjs hands raw_data out as a view into the file buffer at any byte offset, so it is copied.
 */
export function readEmbeddingTable(bytes: Uint8Array, file: string): { table: Float32Array; rows: number; dimensions: number } {
  const { onnx } = loadOnnxProto();
  let model: ReturnType<typeof onnx.ModelProto.decode>;
  try {
    model = onnx.ModelProto.decode(bytes);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`${file} is not a readable ONNX model (${reason}): it is truncated or corrupt`, { cause: error });
  }
  const init = model.graph?.initializer?.find((t) => t.name === 'embeddings');
  if (!init) throw new Error(`${file} has no "embeddings" initializer: it is truncated or not a static embedding model`);
  const dims = (init.dims ?? []).map(Number);
  if (dims.length !== 2 || init.dataType !== onnx.TensorProto.DataType.FLOAT) {
    throw new Error(`${file}: "embeddings" is not a 2-d float32 table (dims [${dims.join(', ')}], data type ${init.dataType})`);
  }
  const [rows, dimensions] = dims as [number, number]; // length checked just above
  const table = new Float32Array(rows * dimensions);
  const raw = init.rawData;
  if (raw && raw.byteLength > 0) {
    if (raw.byteLength !== table.byteLength) throw new Error(`${file}: "embeddings" holds ${raw.byteLength} bytes, ${rows} x ${dimensions} float32 need ${table.byteLength}: it is truncated or corrupt`);
    // raw_data is little-endian by the ONNX spec, like every platform Node ships on.
    new Uint8Array(table.buffer).set(raw);
  } else {
    const floats = init.floatData ?? [];
    if (floats.length !== table.length) throw new Error(`${file}: "embeddings" holds ${floats.length} floats, ${rows} x ${dimensions} need ${table.length}`);
    table.set(floats);
  }
  return { table, rows, dimensions };
}

/** Sum the token rows in float32, in sequence order, then normalise like the transformers.js path. */
export function embedOne(model: StaticModel, text: string): Float32Array {
  const { table, dimensions } = model;
  const sum = new Float32Array(dimensions);
  for (const id of model.tokenizer.encode(text)) {
    const offset = id * dimensions;
    // A Float32Array store rounds each addition to float32, as onnxruntime's float32 ReduceSum does.
    for (let d = 0; d < dimensions; d++) sum[d]! += table[offset + d]!;
  }
  return sanitize(normalizeLikeTransformers(sum));
}

async function readJson(path: string): Promise<unknown> {
  const text = await readFile(path, 'utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new Error(`${path} is not valid JSON (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  }
}
