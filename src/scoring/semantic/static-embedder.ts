import { readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Embedder } from '../../types.js';
import { loadOnnxProto } from './onnx-gather-graph.js';
import { modelStamps, readStaticModelPack, STATIC_PACK_FILE, writeStaticModelPack, type StaticModelPack } from './static-model-pack.js';
import { startStaticEmbedThread, type StaticEmbedThread } from './static-embed-thread.js';
import { WorkerGone } from '../../util/worker-calls.js';
import { compileStaticTokenizer, type StaticTokenizer } from './static-tokenizer.js';
import { normalizeLikeTransformers, sanitize } from './unit-vector.js';
import { packVocab, vocabLookup } from './vocab-table.js';

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
  /** The directory is the tool's own (a built default model): load from, and keep, a model pack there (static-model-pack.ts). */
  pack?: boolean;
}

/**
 * An embedder over a static model; with `dimensions` given it loads lazily (errors surface from
 * embed()). The model loads and runs on a worker thread (static-embed-thread.ts) unless `thread`
 * is false or no worker can start; if the worker stops, this thread takes over.
 */
export async function createStaticEmbedder(options: StaticEmbedderOptions & { thread?: boolean }): Promise<Embedder> {
  let loading: Promise<StaticModel> | null = null;
  const model = () => (loading ??= loadStaticModel(options));
  let thread: StaticEmbedThread | undefined | null = options.thread === false ? null : undefined;
  /** The thread, started on first use; null once it is gone or could not start. */
  const threadOrNull = () => (thread === undefined ? (thread = startStaticEmbedThread(options) ?? null) : thread);
  /** Through the thread while it is there; a thread that stopped hands over to this one. */
  const viaThread = async <T>(use: (t: StaticEmbedThread) => Promise<T>): Promise<T | undefined> => {
    const current = threadOrNull();
    if (current === null) return undefined;
    try {
      return await use(current);
    } catch (error) {
      if (!(error instanceof WorkerGone)) throw error;
      thread = null;
      return undefined;
    }
  };
  const dimensions = options.dimensions ?? ((await viaThread((t) => t.load())) ?? (await model())).dimensions;
  const checkDimensions = (loaded: number) => {
    if (loaded !== dimensions) throw new Error(`model ${options.dir} has ${loaded} dims, its config says ${dimensions}`);
  };
  return {
    id: options.id,
    dimensions,
    async load() {
      if ((await viaThread((t) => t.load())) === undefined) await model();
    },
    async release() {
      // the next call starts a thread (or loads in this one) again
      const stopping = thread ? thread.stop() : undefined;
      thread = options.thread === false ? null : undefined;
      loading = null;
      await stopping;
    },
    async embed(texts) {
      const answered = await viaThread((t) => t.embed(texts));
      if (answered !== undefined) {
        checkDimensions(answered.dimensions);
        return answered.vectors;
      }
      const loaded = await model();
      checkDimensions(loaded.dimensions);
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
  /** Row-major [rows, dimensions] float32; from a pack, a row is there once `pages.need(id)` ran. */
  table: Float32Array;
  /** A table read from a pack page by page (static-model-pack.ts PagedTable); absent when it is all in. */
  pages?: { need(id: number): void };
  rows: number;
  dimensions: number;
}

/**
 * Read and check the four files, or with `pack` the model pack made from them (written after
 * the first load from the files); every failure names the file and how to fix it.
 */
export async function loadStaticModel(options: Pick<StaticEmbedderOptions, 'dir' | 'fix' | 'pack'>): Promise<StaticModel> {
  const { dir } = options;
  const fix = options.fix ?? `rebuild the model in ${dir}`;
  const file = (name: string) => join(dir, name);
  try {
    const packed = options.pack ? await readStaticModelPack(dir, (table) => fillFromModelFile(table, dir, fix)) : undefined;
    const stamps = options.pack && !packed ? await modelStamps(dir).catch(() => undefined) : undefined;
    const fromFiles = packed ? undefined : await readModelFiles(dir);
    const { hiddenSize, maxLength } = packed ?? fromFiles!;
    const tokenizerJson = packed ? packed.tokenizer : fromFiles!.tokenizerJson;
    const vocab = packed ? vocabLookup(packed.vocab) : undefined;
    const tokenizer = compileStaticTokenizer(tokenizerJson, typeof maxLength === 'number' && maxLength > 0 ? maxLength : Infinity, file('tokenizer.json'), undefined, vocab);
    const { table, rows, dimensions } = packed ? { ...packed, table: packed.table.table } : readEmbeddingTable(fromFiles!.onnxBytes, file(join('onnx', 'model.onnx')));
    if (hiddenSize !== dimensions) {
      throw new Error(`${file(join('onnx', 'model.onnx'))}: the embeddings table has ${dimensions} dims but config.json hidden_size is ${String(hiddenSize)}`);
    }
    if (tokenizer.maxId >= rows) {
      throw new Error(`${file('tokenizer.json')}: token id ${tokenizer.maxId} is outside the embeddings table's ${rows} rows`);
    }
    if (stamps !== undefined) {
      // kept for the next load; a pack that cannot be written costs only the slower load
      const json = tokenizerJson as { model?: { vocab?: Record<string, number> } };
      const keys = Object.keys(json.model?.vocab ?? {});
      const pack: StaticModelPack & { table: Float32Array } = {
        tokenizer: { ...json, model: { ...json.model, vocab: {} } },
        vocab: packVocab(keys, Int32Array.from(keys, (key) => json.model!.vocab![key]!)),
        maxLength,
        hiddenSize,
        table,
        rows,
        dimensions,
      };
      await writeStaticModelPack(dir, pack, stamps).catch(() => undefined);
    }
    return { tokenizer, table, ...(packed ? { pages: packed.table } : {}), rows, dimensions };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`static embedding model ${dir} cannot be loaded: ${reason}; ${fix}`, { cause: error });
  }
}

/**
 * Fill a pack's table whole from the model file after a page of the pack failed its check, and
 * remove the pack: the next load writes it again. Synchronous, as embedding a text is.
 */
function fillFromModelFile(table: Float32Array, dir: string, fix: string): void {
  const onnx = join(dir, 'onnx', 'model.onnx');
  try {
    rmSync(join(dir, STATIC_PACK_FILE), { force: true });
    const fromFile = readEmbeddingTable(readFileSync(onnx), onnx);
    if (fromFile.table.length !== table.length) throw new Error(`${onnx}: the embeddings table has ${fromFile.rows} x ${fromFile.dimensions} values, the model pack had ${table.length}`);
    table.set(fromFile.table);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`static embedding model ${dir} cannot be loaded: its model pack is damaged and ${reason}; ${fix}`, { cause: error });
  }
}

/** The four model files, read and parsed. */
async function readModelFiles(dir: string) {
  const file = (name: string) => join(dir, name);
  // read at once; a failure is reported for the first file in this order, whichever failed first
  const settled = await Promise.allSettled([
    readJson(file('config.json')),
    readJson(file('tokenizer.json')),
    readJson(file('tokenizer_config.json')),
    readFile(file(join('onnx', 'model.onnx'))),
  ]);
  for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
  const [config, tokenizerJson, tokenizerConfig, onnxBytes] = settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as [unknown, unknown, unknown, Buffer];
  // Parsed JSON: only these keys are read, and each is checked before use.
  return {
    hiddenSize: (config as { hidden_size?: unknown }).hidden_size,
    maxLength: (tokenizerConfig as { model_max_length?: unknown }).model_max_length,
    tokenizerJson,
    onnxBytes,
  };
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
  const { table, dimensions, pages } = model;
  const sum = new Float32Array(dimensions);
  for (const id of model.tokenizer.encode(text)) {
    pages?.need(id);
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
