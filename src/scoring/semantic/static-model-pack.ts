import { closeSync, fstatSync, openSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../util/atomic-write.js';
import { encodeFramed, readLeadingFrameSync } from '../../util/framed-file.js';
import { PagedBody, pageCrcs } from '../../util/paged-body.js';
import { isPackedVocab, type PackedVocab } from './vocab-table.js';

/**
 * A static model in one file, beside the model in a directory the tool built (never in a user's
 * model_dir): a frame holding tokenizer.json without its vocabulary, the vocabulary as a hash table
 * and a crc32 per page of the embeddings table, then the table itself, raw float32. Loading it
 * reads the frame (~2 MB for the default model) and none of the table: a page of rows is read
 * and checked the first time a token of it is embedded (PagedTable), so a run that embeds a few
 * new chunks or one task reads a few hundred KB of the 40 MB table instead of all of it. The
 * frame records the sizes of the four model files the pack was made from: a model rebuilt since,
 * or a frame that fails its check, is a miss; a page that fails its check makes the table load
 * from the model files and the pack go, to be written again by the next load.
 */
export const STATIC_PACK_FILE = 'aiwg-static.pack';
const MAGIC = Buffer.from('AIWGSEM1', 'latin1');
/** 2: the table follows the frame, raw, checked page by page. 3: the vocabulary as a hash table. */
const PACK_VERSION = 3;
/** Rows per checked page of the table (12.8 KB at 100 dims). */
export const PACK_PAGE_ROWS = 32;
/** The files of a model directory (what isBuiltModelDir checks), and what a pack is made from, in the order of its stamps. */
export const MODEL_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', join('onnx', 'model.onnx')] as const;

export interface StaticModelPack {
  /** tokenizer.json with `model.vocab` emptied: the vocabulary is in `vocab`. */
  tokenizer: Record<string, unknown>;
  /** `model.vocab` as a ready hash table (vocab-table.ts): loads without building a Map. */
  vocab: PackedVocab;
  /** tokenizer_config.json model_max_length, as read (checked by the loader). */
  maxLength: unknown;
  /** config.json hidden_size, as read. */
  hiddenSize: unknown;
  rows: number;
  dimensions: number;
}

interface Head extends StaticModelPack {
  stamps: string;
  /** crc32 of each page of PACK_PAGE_ROWS rows (the last may be short). */
  pageCrcs: Uint32Array;
}

/**
 * The rows of a pack's table, read a page at a time on first use (util/paged-body.ts). `table` is
 * the whole table's size from the start; `need(id)` makes the row of a token id readable there. A
 * page that is short or fails its crc calls `damaged`, which must fill `table` whole (from the
 * model files) or throw.
 */
export class PagedTable {
  readonly table: Float32Array;
  private readonly body: PagedBody;

  constructor(fd: number, offset: number, private readonly dimensions: number, crcs: Uint32Array, rows: number, damaged: (table: Float32Array) => void) {
    const rowBytes = dimensions * Float32Array.BYTES_PER_ELEMENT;
    this.body = new PagedBody(fd, offset, rows * rowBytes, PACK_PAGE_ROWS * rowBytes, crcs, () => damaged(this.table));
    this.table = new Float32Array(this.body.bytes.buffer, this.body.bytes.byteOffset, rows * dimensions);
  }

  need(id: number): void {
    const rowBytes = this.dimensions * Float32Array.BYTES_PER_ELEMENT;
    this.body.need(id * rowBytes, (id + 1) * rowBytes);
  }
}

/** The pack of the model in `dir`, or undefined when there is none or it does not match the model files. */
export async function readStaticModelPack(dir: string, damaged: (table: Float32Array) => void): Promise<(StaticModelPack & { table: PagedTable }) | undefined> {
  let fd: number | undefined;
  try {
    const stamps = await modelStamps(dir);
    fd = openSync(join(dir, STATIC_PACK_FILE), 'r');
    const frame = readLeadingFrameSync(fd, MAGIC, PACK_VERSION, 'aiwg model pack');
    if ('problem' in frame) return undefined;
    const value = frame.value as Partial<Head>;
    const valid =
      value.stamps === stamps &&
      typeof value.tokenizer === 'object' && value.tokenizer !== null &&
      isPackedVocab(value.vocab) &&
      Number.isInteger(value.rows) && Number.isInteger(value.dimensions) && value.rows! > 0 && value.dimensions! > 0 &&
      value.pageCrcs instanceof Uint32Array && value.pageCrcs.length === Math.ceil(value.rows! / PACK_PAGE_ROWS) &&
      fstatSync(fd).size === frame.end + value.rows! * value.dimensions! * 4;
    if (!valid) return undefined;
    const { stamps: _stamps, pageCrcs: crcs, ...pack } = value as Head;
    const table = new PagedTable(fd, frame.end, pack.dimensions, crcs, pack.rows, damaged);
    fd = undefined; // the table's now
    return { ...pack, table };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Write the pack of the model in `dir` (temp file and rename), stamped with `stamps`: what
 * modelStamps said before the model files were read. The caller decides what a failure costs.
 */
export async function writeStaticModelPack(dir: string, pack: StaticModelPack & { table: Float32Array }, stamps: string): Promise<void> {
  const { table, ...rest } = pack;
  const bytes = Buffer.from(table.buffer, table.byteOffset, table.byteLength);
  const head: Head = { ...rest, stamps, pageCrcs: pageCrcs(bytes, PACK_PAGE_ROWS * pack.dimensions * 4) };
  await writeFileAtomic(join(dir, STATIC_PACK_FILE), Buffer.concat([encodeFramed(MAGIC, PACK_VERSION, head), bytes]));
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
