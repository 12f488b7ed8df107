import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { indexDirOf } from '../cache/cache-dir.js';
import { ensureDir, writeFileAtomic } from '../util/atomic-write.js';
import { decodeFramed, encodeFramed } from '../util/framed-file.js';
import { fmix32 } from '../util/mix32.js';

/**
 * Token counts of text pieces (the tokenizer's pieces between safe split points), remembered
 * across runs in one file per tokenizer under the index directory:
 * `<cache dir>/index/pieces-<tokenizer>.bin`. A warm run then counts the blocks of files it has
 * counted before without the BPE table: a lookup per piece.
 *
 * A piece is keyed by two independent 32-bit hashes of its UTF-16 code units and its length
 * (an accidental match of all three needs ~2^64 pieces). The file holds records sorted by key
 * (h1, h2, length, count: four uint32), found by binary search, in the frame of
 * util/framed-file.ts (magic, version, length, CRC-32): a file that fails any check is an empty table
 * (a miss), never an error. New counts are merged in and written back (temp file + rename) by
 * `save`, only when there are any.
 */
export interface PieceCounts {
  /** Pieces the file held when opened. */
  readonly remembered: number;
  /** Pieces set since opening or the last save: what a save would add. */
  readonly learnt: number;
  get(piece: string): number | undefined;
  set(piece: string, count: number): void;
  /** Write the counts learnt since opening; a failure leaves the old file (the counts are a cache). */
  save(): Promise<void>;
}

/** The first bytes of a piece-count file. */
export const PIECE_COUNTS_MAGIC = Buffer.from('AIWGPC01');
const MAGIC = PIECE_COUNTS_MAGIC;
/** The records in the frame of util/framed-file.ts; 1 was a header of its own. */
const PIECE_COUNTS_VERSION = 2;
const WORDS = 4;
/** Records kept at most (16 bytes each): beyond it the table starts again from this run's counts. */
export const MAX_PIECE_RECORDS = 4_000_000;

export function pieceCountsPath(cacheDir: string, tokenizerId: string): string {
  return join(indexDirOf(cacheDir), `pieces-${tokenizerId}.bin`);
}

export async function openPieceCounts(path: string): Promise<PieceCounts> {
  let base = decode(await readFile(path).catch(() => Buffer.alloc(0)));
  const added = new Map<string, [number, number, number, number]>();
  return {
    remembered: base.length / WORDS,
    get learnt() {
      return added.size;
    },
    get(piece) {
      hashes(piece);
      const h1 = hashed[0]!;
      const h2 = hashed[1]!;
      const found = search(base, h1, h2, piece.length);
      return found ?? (added.size === 0 ? undefined : added.get(`${h1}:${h2}:${piece.length}`)?.[3]);
    },
    set(piece, count) {
      hashes(piece);
      const h1 = hashed[0]!;
      const h2 = hashed[1]!;
      if (search(base, h1, h2, piece.length) !== undefined) return;
      added.set(`${h1}:${h2}:${piece.length}`, [h1, h2, piece.length, count]);
    },
    async save() {
      if (added.size === 0) return;
      const fresh = [...added.values()].sort((a, b) => compareKeys(a, 0, b, 0));
      const keepBase = base.length / WORDS + fresh.length <= MAX_PIECE_RECORDS;
      const table = merge(keepBase ? base : new Uint32Array(0), fresh);
      ensureDir(dirname(path));
      await writeFileAtomic(path, encode(table));
      // what was written is what this store knows now: a later save keeps it
      base = table;
      added.clear();
    },
  };
}

function decode(data: Buffer): Uint32Array {
  const framed = decodeFramed(data, MAGIC, PIECE_COUNTS_VERSION, 'aiwg piece-count file');
  if ('problem' in framed) return new Uint32Array(0);
  const table = framed.value;
  return table instanceof Uint32Array && table.length % WORDS === 0 ? table : new Uint32Array(0);
}

function encode(table: Uint32Array): Buffer {
  return encodeFramed(MAGIC, PIECE_COUNTS_VERSION, table);
}

/** The count of the record with this key, by binary search over the sorted table. */
function search(table: Uint32Array, h1: number, h2: number, length: number): number | undefined {
  let lo = 0;
  let hi = table.length / WORDS - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = mid * WORDS;
    const order = table[at]! - h1 || table[at + 1]! - h2 || table[at + 2]! - length;
    if (order === 0) return table[at + 3];
    if (order < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

/** Order of two records by key (h1, h2, length), each an array and the index its record starts at. */
function compareKeys(a: ArrayLike<number>, ai: number, b: ArrayLike<number>, bi: number): number {
  return a[ai]! - b[bi]! || a[ai + 1]! - b[bi + 1]! || a[ai + 2]! - b[bi + 2]!;
}

/** Merge sorted new records into the sorted table (keys never repeat: `set` skips known ones); records are copied in place, no view per record. */
function merge(table: Uint32Array, fresh: ReadonlyArray<readonly number[]>): Uint32Array {
  const out = new Uint32Array(table.length + fresh.length * WORDS);
  let i = 0;
  let j = 0;
  let o = 0;
  const rows = table.length / WORDS;
  while (i < rows || j < fresh.length) {
    const at = i * WORDS;
    const next = fresh[j];
    const takeTable = next === undefined || (i < rows && compareKeys(table, at, next, 0) < 0);
    if (takeTable) {
      for (let w = 0; w < WORDS; w++) out[o + w] = table[at + w]!;
      i++;
    } else {
      for (let w = 0; w < WORDS; w++) out[o + w] = next[w]!;
      j++;
    }
    o += WORDS;
  }
  return out;
}

/** The two hashes of the last text given to `hashes` (one pass, no allocation per piece). */
const hashed = new Uint32Array(2);

/**
 * Two independent 32-bit hashes of a text's UTF-16 code units, in one pass: FNV-1a with a
 * murmur3 finaliser, and multiply-rotate with other constants (murmur3-style).
 */
function hashes(text: string): void {
  let h1 = 0x811c9dc5;
  let h2 = 0x9747b28c;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    let k = Math.imul(c, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    h2 ^= Math.imul(k, 0x1b873593);
    h2 = ((h2 << 13) | (h2 >>> 19)) * 5 + 0xe6546b64;
  }
  hashed[0] = fmix32(h1);
  hashed[1] = fmix32(h2 ^ text.length);
}
