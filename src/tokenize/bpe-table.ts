import { closeSync, fstatSync, openSync, read, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { endianness } from 'node:os';
import { dirname, join } from 'node:path';
import { indexDirOf } from '../cache/cache-dir.js';
import { ensureDir, writeFileAtomic } from '../util/atomic-write.js';
import { encodeFramed, readLeadingFrameSync } from '../util/framed-file.js';
import { PagedBody, pageCrcs } from '../util/paged-body.js';
import type { BpeEncodingId } from './bpe-encoding.js';

/**
 * A GPT encoding's merge ranks as one flat, open-addressed hash table over the tokens' bytes, in
 * a file beside the embedding models (resolveModelCacheBase in cache-dir.ts:
 * `<model base>/models/bpe-<id>-v<n>-gpt-tokenizer-<version>.bin`, once per machine, not once per
 * repository, so a run on a fresh clone does not build it again; the version of gpt-tokenizer is
 * in the name, so two installs on one machine never take each other's table; where the model
 * cache cannot be written, under the repository cache's index directory instead). The file is a
 * small leading frame (util/framed-file.ts: the section sizes and a crc32 per page) and the
 * table raw after it, read a page at a time on first use (util/paged-body.ts): a warm run, which
 * counts one new line or two (its header's session id), reads a few dozen 4 KB pages of the 4.5 MB
 * o200k table; gpt-tokenizer's own table is 2.4 MB of JavaScript compiled and turned into a
 * 200k-entry Map on every load (~250 ms of CPU). The file is made from gpt-tokenizer's own ranks
 * the first time a run with a cache directory loads that encoding, and the counts are
 * gpt-tokenizer's exactly: the same split pattern (imported from it), the same merge (lowest rank
 * first, leftmost among equals), and a test compares the two on real and arbitrary text. A file
 * whose frame fails a check is a miss (gpt-tokenizer is loaded); a page that fails its check is
 * found when it is read: the table is then filled from gpt-tokenizer's ranks, so the counts stay
 * exact, and the file goes, to be written again by the next load.
 */
export interface BpeTable {
  countTokens(text: string): number;
}

/** The first bytes of a kept BPE table. */
export const BPE_TABLE_MAGIC = Buffer.from('AIWGBPE1');
const MAGIC = BPE_TABLE_MAGIC;
/** 2: the sections raw after a leading frame, read page by page (1: one structured-clone frame). */
const BPE_TABLE_VERSION = 2;
/** Bytes per checked page of the raw sections. */
const PAGE_BYTES = 4096;
/**
 * Pages read one by one before the rest of the table is read at once: a run that counts much
 * (cold, or a checkout with hundreds of new files) soon reads it all, and then counts without a
 * check per lookup.
 */
const READ_ALL_SHARE = 1 / 8;

interface TablePayload {
  id: BpeEncodingId;
  /** Every token's bytes, concatenated in rank order. */
  bytes: Uint8Array;
  /** Rank r's bytes are bytes[offsets[r] .. offsets[r + 1]). */
  offsets: Uint32Array;
  /** Open addressing (linear probing): the rank + 1 in each used slot, 0 in a free one; power-of-two size. */
  slots: Uint32Array;
  /** 1 for a token gpt-tokenizer keeps as bytes (not UTF-8, or not a string its decoder gives back), 0 for one it keeps as a string. */
  binary: Uint8Array;
}

const require = createRequire(import.meta.url);
/** A UTF-16 surrogate not in a pair (in a `u` pattern, a pair is one astral code point). */
const LONE_SURROGATE = /\p{Cs}/u;

/** The split pattern gpt-tokenizer applies before merging (one home: its own constant). */
function splitPattern(id: BpeEncodingId): RegExp {
  const constants = require('gpt-tokenizer/cjs/encodingParams/constants') as { O200K_TOKEN_SPLIT_REGEX: RegExp; CL100K_TOKEN_SPLIT_REGEX: RegExp };
  const pattern = id === 'o200k' ? constants.O200K_TOKEN_SPLIT_REGEX : constants.CL100K_TOKEN_SPLIT_REGEX;
  return new RegExp(pattern.source, pattern.flags);
}

/** The version of gpt-tokenizer installed: part of the table's file name. Read when first asked (a command's --help reads nothing of the package). */
let gptTokenizerVersion: string | undefined;
function installedGptTokenizerVersion(): string {
  return (gptTokenizerVersion ??= (require('gpt-tokenizer/package.json') as { version: string }).version);
}

/** Where the table of encoding `id` is kept under a model cache base (resolveModelCacheBase). */
export function bpeTablePath(modelBase: string, id: BpeEncodingId): string {
  return join(modelBase, 'models', bpeTableName(id));
}

/**
 * Where a repository's cache keeps the table when the model cache cannot be written (a read-only
 * home): its index directory, whose files `aiwg cache clear` removes (the table's magic is known there).
 */
export function repositoryBpeTablePath(cacheDir: string, id: BpeEncodingId): string {
  return join(indexDirOf(cacheDir), bpeTableName(id));
}

function bpeTableName(id: BpeEncodingId): string {
  return `bpe-${id}-v${BPE_TABLE_VERSION}-gpt-tokenizer-${installedGptTokenizerVersion()}.bin`;
}

/**
 * The leading frame of a table file: the sections' sizes (the raw body is slots, offsets, binary
 * and bytes, in that order, each as the typed array's own bytes in the byte order `endian` names),
 * and a crc32 per PAGE_BYTES of the body.
 */
interface TableHead {
  id: BpeEncodingId;
  endian: 'LE' | 'BE';
  ranks: number;
  slots: number;
  bytes: number;
  pageCrcs: Uint32Array;
}

/** Where each section of the raw body starts, for a table of `ranks` ranks and `slots` slots. */
function sectionsOf(ranks: number, slots: number, bytes: number) {
  const offsets = slots * 4;
  const binary = offsets + (ranks + 1) * 4;
  const text = binary + ranks;
  return { slots: 0, offsets, binary, bytes: text, end: text + bytes };
}

/** The raw body of a payload: what is written after the frame, and what fills a damaged table. */
function bodyOf(payload: TablePayload): Uint8Array {
  const at = sectionsOf(payload.binary.length, payload.slots.length, payload.bytes.length);
  const body = new Uint8Array(at.end);
  body.set(new Uint8Array(payload.slots.buffer, payload.slots.byteOffset, payload.slots.byteLength), at.slots);
  body.set(new Uint8Array(payload.offsets.buffer, payload.offsets.byteOffset, payload.offsets.byteLength), at.offsets);
  body.set(payload.binary, at.binary);
  body.set(payload.bytes, at.bytes);
  return body;
}

/** Tables being read ahead, by path: the bytes once they arrived. */
const readsAhead = new Map<string, { bytes?: Buffer }>();

/**
 * Start reading the table in `path` off this thread, for readBpeTable to take its pages from
 * instead of reading them one by one: a run counts its first text late (after scoring), and on
 * this project's machine a 4 KB read costs ~100-160 us, so the ~150 pages a warm run's first
 * counts touch cost more than the whole file read on the thread pool meanwhile. Resolves once
 * the read is done (callers need not wait); undefined when the file is missing (nothing read).
 */
export function readBpeTableAhead(path: string): Promise<void> | undefined {
  if (readsAhead.has(path)) return Promise.resolve();
  let fd: number;
  let size: number;
  try {
    fd = openSync(path, 'r');
    size = fstatSync(fd).size;
  } catch {
    return undefined;
  }
  const entry: { bytes?: Buffer } = {};
  readsAhead.set(path, entry);
  // one read of the whole file: the thread pool finishes it without waiting for this thread's
  // turns (a chunked readFile would, and this thread is busy scoring meanwhile)
  const bytes = Buffer.allocUnsafe(size);
  return new Promise((done) => {
    read(fd, bytes, 0, size, 0, (error, got) => {
      closeSync(fd);
      if (error === null && got === size) entry.bytes = bytes;
      else if (readsAhead.get(path) === entry) readsAhead.delete(path);
      done();
    });
  });
}

/**
 * The table in `path`, or undefined when it is missing or its frame fails a check (then load
 * gpt-tokenizer). Only the frame is read here; the table's pages are read as counting needs them
 * (copied from the file read ahead, when readBpeTableAhead started that and it has arrived).
 */
export function readBpeTable(path: string, id: BpeEncodingId): BpeTable | undefined {
  // the read ahead is this load's alone (its pages are checked as they are copied)
  const ahead = readsAhead.get(path);
  readsAhead.delete(path);
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const frame = readLeadingFrameSync(fd, MAGIC, BPE_TABLE_VERSION, 'aiwg BPE table');
    if ('problem' in frame) return undefined;
    const head = frame.value as Partial<TableHead>;
    const { ranks, slots, bytes } = head;
    const valid =
      head.id === id &&
      head.endian === endianness() &&
      Number.isInteger(ranks) && ranks! > 0 &&
      Number.isInteger(slots) && slots! > 0 && (slots! & (slots! - 1)) === 0 &&
      Number.isInteger(bytes) && bytes! >= 0 &&
      head.pageCrcs instanceof Uint32Array;
    if (!valid) return undefined;
    const at = sectionsOf(ranks!, slots!, bytes!);
    if (fstatSync(fd).size !== frame.end + at.end || head.pageCrcs!.length !== Math.ceil(at.end / PAGE_BYTES)) return undefined;
    // a damaged page: the body from gpt-tokenizer's ranks (the same layout), and the file goes
    const refill = (body: Uint8Array) => {
      const built = bodyOf(buildPayload(id));
      if (built.length !== body.length) throw new Error(`the BPE table ${path} is damaged and gpt-tokenizer's ranks do not match its layout: delete it`);
      body.set(built);
      rmSync(path, { force: true });
    };
    const body = new PagedBody(fd, frame.end, at.end, PAGE_BYTES, head.pageCrcs!, refill, READ_ALL_SHARE, ahead && (() => ahead.bytes));
    fd = undefined; // the body's now
    // the body may be a place in the file read ahead: sections are views from where it starts
    const { buffer, byteOffset: base } = body.bytes;
    return tableCounter(
      {
        id,
        slots: new Uint32Array(buffer, base + at.slots, slots!),
        offsets: new Uint32Array(buffer, base + at.offsets, ranks! + 1),
        binary: new Uint8Array(buffer, base + at.binary, ranks!),
        bytes: new Uint8Array(buffer, base + at.bytes, bytes!),
      },
      { body, at },
    );
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Write the table of encoding `id` made from gpt-tokenizer's ranks (temp file and rename); false
 * when it could not be written, which leaves no file and is not an error (the table is a cache).
 */
export async function writeBpeTable(path: string, id: BpeEncodingId): Promise<boolean> {
  try {
    ensureDir(dirname(path));
    const payload = buildPayload(id);
    const body = bodyOf(payload);
    const head: TableHead = { id, endian: endianness(), ranks: payload.binary.length, slots: payload.slots.length, bytes: payload.bytes.length, pageCrcs: pageCrcs(body, PAGE_BYTES) };
    await writeFileAtomic(path, Buffer.concat([encodeFramed(MAGIC, BPE_TABLE_VERSION, head), body]));
    return true;
  } catch {
    // the next run loads gpt-tokenizer again and tries again
    return false;
  }
}

/** The payload from gpt-tokenizer's rank list (index = rank; a string token, or the bytes of one that is not UTF-8). */
export function buildPayload(id: BpeEncodingId): TablePayload {
  const ranks = (require(id === 'o200k' ? 'gpt-tokenizer/cjs/bpeRanks/o200k_base' : 'gpt-tokenizer/cjs/bpeRanks/cl100k_base') as { default: Array<string | number[] | undefined> }).default;
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  const offsets = new Uint32Array(ranks.length + 1);
  const binary = new Uint8Array(ranks.length);
  let total = 0;
  for (let rank = 0; rank < ranks.length; rank++) {
    const value = ranks[rank];
    if (value !== undefined && typeof value !== 'string') binary[rank] = 1;
    const bytes = value === undefined ? new Uint8Array(0) : typeof value === 'string' ? encoder.encode(value) : Uint8Array.from(value);
    parts.push(bytes);
    offsets[rank] = total;
    total += bytes.length;
  }
  offsets[ranks.length] = total;
  const bytes = new Uint8Array(total);
  parts.forEach((part, rank) => bytes.set(part, offsets[rank]!));
  let size = 1;
  while (size < ranks.length * 2) size <<= 1;
  const slots = new Uint32Array(size);
  for (let rank = 0; rank < ranks.length; rank++) {
    const start = offsets[rank]!;
    const end = offsets[rank + 1]!;
    if (end === start) continue;
    let slot = hashBytes(bytes, start, end) & (size - 1);
    while (slots[slot] !== 0) slot = (slot + 1) & (size - 1);
    slots[slot] = rank + 1;
  }
  return { id, bytes, offsets, slots, binary };
}

/** Whether bytes[start .. end) is UTF-8 by gpt-tokenizer's test (no overlong forms, surrogates or code points past U+10FFFF). */
function isUtf8(bytes: Uint8Array, start: number, end: number): boolean {
  let i = start;
  while (i < end) {
    const first = bytes[i]!;
    let length: number;
    let point: number;
    if (first <= 0x7f) {
      i++;
      continue;
    } else if ((first & 0xe0) === 0xc0) {
      if (first <= 0xc1) return false;
      length = 2;
      point = first & 0x1f;
    } else if ((first & 0xf0) === 0xe0) {
      length = 3;
      point = first & 0x0f;
    } else if ((first & 0xf8) === 0xf0) {
      if (first > 0xf4) return false;
      length = 4;
      point = first & 0x07;
    } else return false;
    if (i + length > end) return false;
    for (let j = 1; j < length; j++) {
      const next = bytes[i + j]!;
      if ((next & 0xc0) !== 0x80) return false;
      point = (point << 6) | (next & 0x3f);
    }
    if ((length === 3 && point < 0x800) || (length === 4 && point < 0x10000) || (point >= 0xd800 && point <= 0xdfff) || point > 0x10ffff) return false;
    i += length;
  }
  return true;
}

/** FNV-1a over bytes[start .. end). */
function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

/** A table read page by page: the body its arrays view, and where each section starts in it. */
interface Paged {
  body: PagedBody;
  at: ReturnType<typeof sectionsOf>;
}

function tableCounter({ id, bytes, offsets, slots, binary }: TablePayload, paged?: Paged): BpeTable {
  const mask = slots.length - 1;
  // while the table is read page by page, each read of the arrays below first makes its bytes
  // readable; once it is all in (`complete`), nothing is asked
  const at = paged?.at;
  let body = paged?.body;
  const split = splitPattern(id);
  const encoder = new TextEncoder();
  let buffer = new Uint8Array(1024);
  /** The rank of the token of kind `kind` (binary or string, as gpt-tokenizer keeps it) with the bytes buffer[start .. end), or -1. */
  const find = (start: number, end: number, kind: number): number => {
    const length = end - start;
    for (let slot = hashBytes(buffer, start, end) & mask; ; slot = (slot + 1) & mask) {
      body?.need(at!.slots + slot * 4, at!.slots + slot * 4 + 4);
      const entry = slots[slot]!;
      if (entry === 0) return -1;
      const rank = entry - 1;
      body?.need(at!.offsets + rank * 4, at!.offsets + rank * 4 + 8);
      const from = offsets[rank]!;
      if (offsets[rank + 1]! - from !== length) continue;
      body?.need(at!.bytes + from, at!.bytes + from + length);
      let i = 0;
      while (i < length && bytes[from + i] === buffer[start + i]) i++;
      if (i !== length) continue;
      body?.need(at!.binary + rank, at!.binary + rank + 1);
      return binary[rank] === kind ? rank : -1;
    }
  };
  /**
   * The rank gpt-tokenizer finds for a byte pair: bytes that are UTF-8 are looked up as the string
   * its decoder makes of them (which drops a leading byte order mark), other bytes among the tokens
   * it keeps as bytes.
   */
  const rankOf = (start: number, end: number): number => {
    if (!isUtf8(buffer, start, end)) return find(start, end, 1);
    if (end - start >= 3 && buffer[start] === 0xef && buffer[start + 1] === 0xbb && buffer[start + 2] === 0xbf) start += 3;
    return start === end ? -1 : find(start, end, 0);
  };
  // the merge's working arrays, grown as needed: part starts, and the rank of each part with the next
  let starts = new Int32Array(64);
  let ranks = new Float64Array(64);
  /** Tokens of buffer[0 .. n): byte pairs merged lowest rank first, the leftmost of equal ranks. */
  const mergeCount = (n: number): number => {
    if (starts.length < n + 1) {
      starts = new Int32Array(n + 1);
      ranks = new Float64Array(n + 1);
    }
    const pairRank = (i: number, count: number): number => {
      if (i + 2 >= count) return Infinity;
      const rank = rankOf(starts[i]!, starts[i + 2]!);
      return rank === -1 ? Infinity : rank;
    };
    let count = n + 1;
    for (let i = 0; i < count; i++) starts[i] = i;
    for (let i = 0; i < count; i++) ranks[i] = pairRank(i, count);
    while (count > 1) {
      let lowest = Infinity;
      let at = -1;
      for (let i = 0; i < count - 1; i++) {
        if (ranks[i]! < lowest) {
          lowest = ranks[i]!;
          at = i;
        }
      }
      if (at === -1) break;
      starts.copyWithin(at + 1, at + 2, count);
      ranks.copyWithin(at, at + 1, count);
      count--;
      ranks[at] = pairRank(at, count);
      if (at > 0) ranks[at - 1] = pairRank(at - 1, count);
    }
    return count - 1;
  };
  /** The tokens of one pre-token. */
  const countPiece = (piece: string): number => {
    if (buffer.length < piece.length * 3) buffer = new Uint8Array(piece.length * 3);
    const { written } = encoder.encodeInto(piece, buffer);
    // a piece with a lone surrogate is merged from its replacement bytes, as gpt-tokenizer does
    return !LONE_SURROGATE.test(piece) && find(0, written, 0) !== -1 ? 1 : mergeCount(written);
  };
  // Pre-tokens repeat: vite's 2.0 MB of TypeScript sources split into 458,598 of them, 14,841
  // distinct. Each is counted once and remembered for the life of the counter.
  const memo = new Map<string, number>();
  return {
    countTokens(text) {
      if (body?.complete) body = undefined;
      let tokens = 0;
      split.lastIndex = 0;
      for (let match = split.exec(text); match !== null; match = split.exec(text)) {
        const piece = match[0];
        let count = memo.get(piece);
        if (count === undefined) {
          count = countPiece(piece);
          if (piece.length <= PRE_TOKEN_MEMO_MAX_CHARS) {
            if (memo.size >= PRE_TOKEN_MEMO_MAX) memo.clear();
            memo.set(piece, count);
          }
        }
        tokens += count;
      }
      return tokens;
    },
  };
}

/** Pre-tokens remembered per counter; a long-lived process starts again from none beyond it. */
const PRE_TOKEN_MEMO_MAX = 200_000;
/** Longer pre-tokens (a run of spaces, a minified bundle's identifier) are counted every time. */
const PRE_TOKEN_MEMO_MAX_CHARS = 128;
