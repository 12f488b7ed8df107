import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { encodeGatherModel } from './onnx-gather-graph.js';

/**
 * Builds a "static embedding" model that transformers.js loads like any feature-extraction model:
 * config.json, tokenizer.json, tokenizer_config.json and onnx/model.onnx (a Gather over a word
 * table, summed over the sequence). A text's vector is the sum of its word rows, L2-normalised by
 * the embedder (the same direction as their mean); rows are unit word vectors scaled by a frequency weight, so the mean is a weighted
 * average in which frequent words count less.
 *
 * The tokenizer is written for code (see TOKENIZER_RULES): camelCase and acronym boundaries become
 * spaces, text is lower-cased, and only letter runs of 2+ characters are looked up, so
 * `parseHTTPResponse`, `parse_http_response` and "parse the HTTP response" share their tokens.
 * Unknown compounds (`eventemitter`) split WordPiece-style into known words through `##` aliases
 * that point at the same rows as the words themselves.
 */
export interface StaticModelSpec {
  /** Words, most frequent first when `weighting` is `zipf`. Lower-case letter runs; others are skipped. */
  vocab: readonly string[];
  /** One vector per word, or a lookup; a word without a vector is skipped. */
  vectors: readonly Float32Array[] | ((word: string, index: number) => Float32Array | undefined);
  /** Directory to create. Written beside it first, then renamed into place (atomic). */
  outDir: string;
  /**
   * Row weights: `zipf` (smooth inverse frequency a/(a+p(rank)) with p Zipfian over the vocabulary
   * order; needs a frequency-ordered vocab), `none`, or one explicit weight per vocab entry.
   */
  weighting?: 'zipf' | 'none' | Float32Array;
  /** SIF smoothing constant of the `zipf` weighting. */
  zipfA?: number;
  /** Words multiplied by `downweightFactor` (e.g. programming-language keywords). */
  downweight?: Iterable<string>;
  downweightFactor?: number;
  /** How many of the first vocab words also match as `##` continuation pieces. */
  continuationWords?: number;
  /** Longest token sequence the tokenizer keeps. */
  modelMaxLength?: number;
  /** Recorded in config.json and the ONNX producer field. */
  name?: string;
  /** Replace an existing outDir instead of keeping it. */
  overwrite?: boolean;
}

export interface StaticModelInfo {
  dir: string;
  /** Words that got a row. */
  words: number;
  dimensions: number;
  /** Bytes of onnx/model.onnx. */
  modelBytes: number;
  /** False when another process finished the same directory first and its copy was kept. */
  built: boolean;
}

/** The tokenizer rules, in the order the tokenizer applies them. */
export const TOKENIZER_RULES = {
  /** Boundaries turned into spaces: lower/digit→Upper (`fooBar`), acronym end (`HTTPServer`). */
  camelBoundary: '(?<=[\\p{Ll}\\p{Nd}])(?=\\p{Lu})|(?<=\\p{Lu})(?=\\p{Lu}\\p{Ll})',
  /** Only these runs reach the vocabulary: digits, `_`, `-` and punctuation split and vanish. */
  wordPattern: '\\p{L}{2,}',
} as const;

/** tokenizer.json's normalizer and pre-tokenizer: TOKENIZER_RULES as the tokenizer applies them. */
export const TOKENIZER_NORMALIZER = {
  type: 'Sequence',
  normalizers: [{ type: 'NFKC' }, { type: 'Replace', pattern: { Regex: TOKENIZER_RULES.camelBoundary }, content: ' ' }, { type: 'Lowercase' }],
} as const;
export const TOKENIZER_PRE_TOKENIZER = { type: 'Split', pattern: { Regex: TOKENIZER_RULES.wordPattern }, behavior: 'Removed', invert: true } as const;

/** Format of the files this builder writes (2: pooling inside the ONNX graph). */
export const STATIC_MODEL_FORMAT = 2;
const WORD_RE = new RegExp(`^${TOKENIZER_RULES.wordPattern}$`, 'u');
const SPECIAL_TOKENS = ['[PAD]', '[UNK]'] as const;
const DEFAULT_ZIPF_A = 1e-3;
const DEFAULT_DOWNWEIGHT_FACTOR = 0.15;
const DEFAULT_CONTINUATION_WORDS = 30000;
const MIN_CONTINUATION_CHARS = 3;

/** Build the model files; see StaticModelSpec. */
export async function buildStaticEmbeddingModel(spec: StaticModelSpec): Promise<StaticModelInfo> {
  const table = buildTable(spec);
  const tmpDir = `${spec.outDir}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  await mkdir(join(tmpDir, 'onnx'), { recursive: true });
  try {
    const name = spec.name ?? 'static-embedding';
    const onnxBytes = encodeGatherModel(table.rows, table.words.length + SPECIAL_TOKENS.length, table.dimensions, name);
    await writeFile(join(tmpDir, 'onnx', 'model.onnx'), onnxBytes);
    await writeFile(join(tmpDir, 'config.json'), json(modelConfig(name, table.dimensions, spec.modelMaxLength ?? 512)));
    await writeFile(join(tmpDir, 'tokenizer.json'), json(tokenizerJson(table.words, spec.continuationWords ?? DEFAULT_CONTINUATION_WORDS)));
    await writeFile(join(tmpDir, 'tokenizer_config.json'), json(tokenizerConfig(spec.modelMaxLength ?? 512)));
    const built = await renameIntoPlace(tmpDir, spec.outDir, spec.overwrite ?? false);
    return { dir: spec.outDir, words: table.words.length, dimensions: table.dimensions, modelBytes: onnxBytes.byteLength, built };
  } finally {
    await rm(tmpDir, { recursive: true, force: true });
  }
}

/** Smooth inverse frequency weight of the word at 0-based `rank` in a Zipfian vocabulary of `size` words. */
export function zipfWeight(rank: number, size: number, a = DEFAULT_ZIPF_A): number {
  const harmonic = Math.log(size) + 0.5772156649;
  const p = 1 / ((rank + 1) * harmonic);
  return a / (a + p);
}

interface Table {
  words: string[];
  rows: Float32Array;
  dimensions: number;
}

function buildTable(spec: StaticModelSpec): Table {
  const lookup = typeof spec.vectors === 'function' ? spec.vectors : (_w: string, i: number) => (spec.vectors as readonly Float32Array[])[i];
  const down = new Set(spec.downweight ?? []);
  const downFactor = spec.downweightFactor ?? DEFAULT_DOWNWEIGHT_FACTOR;
  const weighting = spec.weighting ?? 'zipf';
  const seen = new Set<string>();
  const picked: Array<{ word: string; vector: Float32Array; weight: number }> = [];
  let dimensions = 0;
  spec.vocab.forEach((word, index) => {
    if (!WORD_RE.test(word) || word !== word.toLowerCase() || seen.has(word)) return;
    const vector = lookup(word, index);
    if (vector === undefined) return;
    if (dimensions === 0) dimensions = vector.length;
    if (vector.length !== dimensions) throw new Error(`vector of "${word}" has ${vector.length} dims, expected ${dimensions}`);
    seen.add(word);
    let weight = weighting === 'zipf' ? zipfWeight(index, spec.vocab.length, spec.zipfA) : weighting === 'none' ? 1 : (weighting[index] ?? 1);
    if (down.has(word)) weight *= downFactor;
    picked.push({ word, vector, weight });
  });
  if (picked.length === 0) throw new Error('no usable word: the vocabulary needs lower-case letter runs of 2+ characters with vectors');
  const rows = new Float32Array((picked.length + SPECIAL_TOKENS.length) * dimensions);
  picked.forEach(({ vector, weight }, i) => {
    let norm = 0;
    for (let d = 0; d < dimensions; d++) norm += vector[d]! * vector[d]!;
    const scale = norm > 0 ? weight / Math.sqrt(norm) : 0;
    const offset = (i + SPECIAL_TOKENS.length) * dimensions;
    for (let d = 0; d < dimensions; d++) rows[offset + d] = vector[d]! * scale;
  });
  return { words: picked.map((p) => p.word), rows, dimensions };
}

function modelConfig(name: string, dimensions: number, maxLength: number) {
  return {
    // `bert` selects transformers.js' plain encoder forward (feed what the graph asks for).
    model_type: 'bert',
    architectures: ['BertModel'],
    hidden_size: dimensions,
    max_position_embeddings: maxLength,
    // Read by the embedder: the graph pools itself, so the pipeline must not pool again.
    aiwg_static_embedding: { name, format: STATIC_MODEL_FORMAT, pooled: true },
  };
}

function tokenizerConfig(maxLength: number) {
  return {
    tokenizer_class: 'PreTrainedTokenizer',
    model_max_length: maxLength,
    pad_token: SPECIAL_TOKENS[0],
    unk_token: SPECIAL_TOKENS[1],
    clean_up_tokenization_spaces: true,
  };
}

function tokenizerJson(words: string[], continuationWords: number) {
  const vocab: Record<string, number> = {};
  SPECIAL_TOKENS.forEach((token, id) => (vocab[token] = id));
  words.forEach((word, i) => (vocab[word] = i + SPECIAL_TOKENS.length));
  // `##word` shares the row of `word`: WordPiece then splits unknown compounds into known words.
  words.slice(0, continuationWords).forEach((word, i) => {
    if (word.length >= MIN_CONTINUATION_CHARS) vocab[`##${word}`] = i + SPECIAL_TOKENS.length;
  });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map((content, id) => ({
      id,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: TOKENIZER_NORMALIZER,
    pre_tokenizer: TOKENIZER_PRE_TOKENIZER,
    post_processor: null,
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: SPECIAL_TOKENS[1], continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
  };
}

function json(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

/** Rename a finished directory into place; if another process won the race, keep theirs. */
async function renameIntoPlace(tmpDir: string, outDir: string, overwrite: boolean): Promise<boolean> {
  await mkdir(dirname(outDir), { recursive: true });
  if (overwrite) await rm(outDir, { recursive: true, force: true });
  try {
    await rename(tmpDir, outDir);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const exists = await stat(outDir).then((s) => s.isDirectory(), () => false);
    if (exists && (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'EPERM')) return false;
    throw error;
  }
}
