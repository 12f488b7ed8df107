import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../util/atomic-write.js';
import { decodeFramed, encodeFramed } from '../../util/framed-file.js';

/**
 * A static model in one file, beside the model in a directory the tool built (never in a user's
 * model_dir): tokenizer.json without its vocabulary, the vocabulary as two arrays, and the
 * embeddings table. Loading it is one read, a checksum and a structured-clone copy (~65 ms here
 * for the default model) instead of parsing 2 MB of JSON, compiling the vocabulary from it and
 * decoding the ONNX protobuf (~175 ms). It records the sizes of the four model files it was made
 * from: a model rebuilt since, or a pack that fails its frame, is a miss.
 */
export const STATIC_PACK_FILE = 'aiwg-static.pack';
const MAGIC = Buffer.from('AIWGSEM1', 'latin1');
const PACK_VERSION = 1;
/** The files of a model directory (what isBuiltModelDir checks), and what a pack is made from, in the order of its stamps. */
export const MODEL_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', join('onnx', 'model.onnx')] as const;

export interface StaticModelPack {
  /** tokenizer.json with `model.vocab` emptied: the vocabulary is in `vocabKeys`/`vocabIds`. */
  tokenizer: Record<string, unknown>;
  vocabKeys: string[];
  vocabIds: Int32Array;
  /** tokenizer_config.json model_max_length, as read (checked by the loader). */
  maxLength: unknown;
  /** config.json hidden_size, as read. */
  hiddenSize: unknown;
  table: Float32Array;
  rows: number;
  dimensions: number;
}

interface Stored extends StaticModelPack {
  stamps: string;
}

/** The pack of the model in `dir`, or undefined when there is none or it does not match the model files. */
export async function readStaticModelPack(dir: string): Promise<StaticModelPack | undefined> {
  try {
    const [data, stamps] = await Promise.all([readFile(join(dir, STATIC_PACK_FILE)), modelStamps(dir)]);
    const framed = decodeFramed(data, MAGIC, PACK_VERSION, 'aiwg model pack');
    if ('problem' in framed) return undefined;
    const value = framed.value as Partial<Stored>;
    const valid =
      value.stamps === stamps &&
      typeof value.tokenizer === 'object' && value.tokenizer !== null &&
      Array.isArray(value.vocabKeys) && value.vocabIds instanceof Int32Array && value.vocabIds.length === value.vocabKeys.length &&
      value.table instanceof Float32Array && Number.isInteger(value.rows) && Number.isInteger(value.dimensions) &&
      value.table.length === value.rows! * value.dimensions!;
    return valid ? (value as StaticModelPack) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Write the pack of the model in `dir` (temp file and rename), stamped with `stamps`: what
 * modelStamps said before the model files were read. The caller decides what a failure costs.
 */
export async function writeStaticModelPack(dir: string, pack: StaticModelPack, stamps: string): Promise<void> {
  const stored: Stored = { ...pack, stamps };
  await writeFileAtomic(join(dir, STATIC_PACK_FILE), encodeFramed(MAGIC, PACK_VERSION, stored));
}

/**
 * The size of each model file: what a pack must have been made from. Not mtimes: a copied or
 * restored cache directory keeps its pack. The directory is the tool's own and named by model
 * version; a rebuild that changed the model changes the table's or the vocabulary's size.
 */
export async function modelStamps(dir: string): Promise<string> {
  const stats = await Promise.all(MODEL_FILES.map((name) => stat(join(dir, name))));
  return stats.map((s) => String(s.size)).join('|');
}
