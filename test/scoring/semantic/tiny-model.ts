import { createHash } from 'node:crypto';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildStaticEmbeddingModel } from '../../../src/scoring/semantic/static-model-builder.js';
import { loadOnnxProto } from '../../../src/scoring/semantic/onnx-gather-graph.js';
import { ConfigSchema, type Config } from '../../../src/config/schema.js';
import type { CandidateFile, Embedder } from '../../../src/types.js';
import { createEmbedder } from '../../../src/scoring/semantic/embedder.js';
import { captureReporter } from '../../helpers/fakes.js';

/** Three topics: a text's vector leans to the topic its words come from. */
export const TOPICS: Record<string, string[]> = {
  network: ['http', 'client', 'retry', 'request', 'response', 'fetch', 'timeout', 'socket', 'server', 'backoff'],
  config: ['yaml', 'config', 'parse', 'load', 'settings', 'schema', 'default', 'option', 'file', 'path'],
  ui: ['button', 'render', 'click', 'view', 'style', 'color', 'layout', 'modal', 'theme', 'icon'],
};
export const TINY_DIMS = 24;
/** Filler words with hashed vectors, frequent first (the Zipf weights down-weight "the"). */
const FILLER = ['the', 'and', 'of', 'to', 'in', 'is', 'it', 'for', 'with', 'on', 'event', 'emitter', 'user', 'name', 'get', 'read'];

/** A deterministic pseudo-random unit-ish vector from a word. */
export function hashedVector(word: string, dims = TINY_DIMS): Float32Array {
  const out = new Float32Array(dims);
  let seed = createHash('sha256').update(word).digest();
  for (let d = 0; d < dims; d++) {
    if (d % 32 === 0 && d > 0) seed = createHash('sha256').update(seed).digest();
    out[d] = (seed[d % 32]! / 255) * 2 - 1;
  }
  return out;
}

/** Topic words share their topic's axis block plus a small hashed part. */
function topicVector(topicIndex: number, word: string): Float32Array {
  const v = hashedVector(word).map((x) => x * 0.3);
  const block = TINY_DIMS / 3;
  for (let d = topicIndex * block; d < (topicIndex + 1) * block; d++) v[d]! += 1;
  return v;
}

/** Build the tiny model into `dir/<name>` with the real builder. */
export async function buildTinyModel(dir: string, name = 'tiny-model'): Promise<string> {
  const vocab = [...FILLER, ...Object.values(TOPICS).flat()];
  const topicOf = new Map(Object.entries(TOPICS).flatMap(([, words], t) => words.map((w) => [w, t] as const)));
  const vectors = vocab.map((w) => (topicOf.has(w) ? topicVector(topicOf.get(w)!, w) : hashedVector(w)));
  const outDir = join(dir, name);
  await buildStaticEmbeddingModel({ vocab, vectors, outDir, name });
  return outDir;
}

/** The tiny model built under `root` and its embedder, with the embedder's cache in `root/<cacheName>`. */
export async function tinyEmbedder(root: string, cacheName = 'cache'): Promise<Embedder> {
  const modelDir = await buildTinyModel(root);
  const embedder = await createEmbedder(configWith({ model_dir: modelDir }), { root, cacheDir: join(root, cacheName), reporter: captureReporter() });
  if (!embedder) throw new Error(`no embedder for the tiny model in ${modelDir}`);
  return embedder;
}

/**
 * A copy of a built static model that is NOT static: its graph stops after the Gather (output
 * [batch, sequence, dims]) and its config.json has no `aiwg_static_embedding`, so it is an
 * ordinary feature-extraction model that transformers.js mean-pools. Same table, same tokenizer:
 * its vectors point the same way as the static model's.
 */
export function unpooledCopy(staticDir: string, outDir: string): string {
  cpSync(staticDir, outDir, { recursive: true });
  const { onnx } = loadOnnxProto();
  const onnxPath = join(outDir, 'onnx', 'model.onnx');
  const model = onnx.ModelProto.decode(readFileSync(onnxPath));
  const graph = model.graph!;
  const gather = graph.node!.find((n) => n.opType === 'Gather')!;
  gather.output = ['last_hidden_state'];
  graph.node = [gather];
  graph.initializer = graph.initializer!.filter((t) => t.name === 'embeddings');
  const dims = graph.output![0]!.type!.tensorType!.shape!.dim!;
  graph.output![0]!.type!.tensorType!.shape!.dim = [dims[0]!, { dimParam: 'sequence_length' }, dims[1]!];
  writeFileSync(onnxPath, onnx.ModelProto.encode(model).finish());
  const config = JSON.parse(readFileSync(join(outDir, 'config.json'), 'utf8')) as Record<string, unknown>;
  delete config.aiwg_static_embedding;
  writeFileSync(join(outDir, 'config.json'), JSON.stringify(config));
  return outDir;
}

export function configWith(embedding: Record<string, unknown>): Config {
  return ConfigSchema.parse({ relevance_scoring: { embedding } });
}

/** A candidate file with a content hash, as the collect stage would give it. */
export function candidateFile(path: string, content: string): CandidateFile {
  const hash = createHash('sha256').update(content).digest('hex');
  return { path, content, size: content.length, mtimeMs: 0, hash, lineCount: content.split('\n').length };
}

/** The real embedder, wrapped so a test sees every text that reaches it. */
export function countingEmbedder(embedder: Embedder): Embedder & { texts: string[] } {
  const texts: string[] = [];
  return { id: embedder.id, dimensions: embedder.dimensions, texts, embed: (t) => (texts.push(...t), embedder.embed(t)) };
}
