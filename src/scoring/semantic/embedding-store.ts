import { open, readFile, rename, rm } from 'node:fs/promises';
import { sha256Hex } from '../../util/hash.js';
import { dirname, join } from 'node:path';
import { writeCacheMarker } from '../../cache/disk-cache.js';
import { ensureDir } from '../../util/atomic-write.js';
import { crc32 } from 'node:zlib';

/**
 * The embedding cache of one model: one append-only pack file, `<cacheDir>/embeddings/<slug>/vectors.pack`,
 * read whole at start (20k x 100-d vectors is ~10 MB, ~30 ms), appended at the end of a run.
 *
 * Record: magic "AIWE" | u8 format | u8 kind | u16 key bytes | u32 payload bytes | key | pad | payload |
 * pad | u32 crc32, padded so every record and payload starts 4-byte aligned: vectors are then
 * Float32Array views into the one pack buffer, not 20k copies.
 * Kinds: 1 = vector (key: chunk hash, payload: float32 LE), 2 = file map (key: file key, payload: the
 * file's chunk hashes joined by "\n"), so a warm run skips chunking.
 *
 * Records are written in groups: a group is a record of its own (format GROUP_FORMAT_VERSION, kind
 * KIND_GROUP, no key) whose payload is whole records, and whose checksum covers them all. A reader
 * checks one checksum per group instead of one per record (babel's 70k records: ~50-90 ms of each
 * warm run); when a group's checksum fails (a flipped bit, a torn tail) its records are checked one
 * by one, so one bad record is still one miss. A reader that predates groups takes a group for one
 * damaged record and reads the records inside it on their own.
 *
 * Safety: records are appended through O_APPEND in whole-group writes of at most
 * MAX_APPEND_BYTES, so concurrent writers interleave groups, never bytes. A reader that meets a
 * bad record (torn tail, flipped bits, another format version) skips to the next magic: a corrupt
 * entry is a miss. The pack is compacted (rewritten to a temp file and renamed) when more than
 * half of its records are dead.
 */
export const EMBEDDING_FORMAT_VERSION = 1;
/** First bytes of every pack record, so `aiwg cache clear` can tell a pack of ours from a user's file. */
export const EMBEDDING_PACK_MAGIC = 'AIWE';
export const EMBEDDING_PACK_FILE = 'vectors.pack';
const MAGIC = Buffer.from(EMBEDDING_PACK_MAGIC, 'latin1');
const HEADER_BYTES = 4 + 1 + 1 + 2 + 4;
const MAX_APPEND_BYTES = 256 * 1024;
const KIND_VECTOR = 1;
const KIND_FILE = 2;
const KIND_GROUP = 3;
/** The format byte of a group record (its records inside carry EMBEDDING_FORMAT_VERSION). */
const GROUP_FORMAT_VERSION = 2;
const COMPACT_MIN_RECORDS = 1000;
const STALE_FACTOR = 4;

export interface EmbeddingStore {
  readonly dir: string;
  getVector(chunkHash: string): Float32Array | undefined;
  /** Whether the store holds a vector for `chunkHash`, without making its view (a warm babel run asks for 70k). */
  hasVector(chunkHash: string): boolean;
  getFileChunks(fileKey: string): string[] | undefined;
  putVector(chunkHash: string, vector: Float32Array): void;
  putFileChunks(fileKey: string, chunkHashes: string[]): void;
  /**
   * Append what was put since opening. Compacts when the pack is mostly dead (overwritten)
   * records, or, given the keys this run used, when unused entries outnumber them STALE_FACTOR to 1.
   */
  flush(used?: KeySet): Promise<void>;
  readonly stats: { vectors: number; files: number; corrupt: number; records: number };
}

/** The keys a run used, as a compaction asks for them (a ReadonlySet is one). */
export interface KeySet {
  readonly size: number;
  has(key: string): boolean;
}

/** Packs read by packHoldsKey and readStoredVector (heldPackRead), handed to an open of the same pack soon after instead of a second read. */
const readAhead = new Map<string, { data: Promise<Buffer | undefined>; atMs: number }>();
/** A read older than this is not handed on (a long-lived process's later open reads the pack as it is then). */
const READ_AHEAD_MS = 10_000;

/**
 * A model's pack as read for the next openEmbeddingStore to take: a read held from the last
 * READ_AHEAD_MS, else (or with `anew`) one started now and held.
 */
function heldPackRead(cacheDir: string, modelId: string, options: { anew?: boolean } = {}): Promise<Buffer | undefined> {
  const packPath = join(embeddingStoreDir(cacheDir, modelId), EMBEDDING_PACK_FILE);
  const held = readAhead.get(packPath);
  if (options.anew !== true && held !== undefined && Date.now() - held.atMs <= READ_AHEAD_MS) return held.data;
  const data = readFile(packPath).catch(() => undefined);
  readAhead.set(packPath, { data, atMs: Date.now() });
  return data;
}

/**
 * Whether the pack of a model holds a record with `key` (a whole-buffer search for the key's
 * bytes; a damaged record may answer yes, which only costs the caller its head start), read at
 * the start of a run off the main thread (babel's 21 MB pack took 90-160 ms read synchronously);
 * the next openEmbeddingStore of that pack takes this read, even while it is under way, instead of
 * reading again.
 */
export async function packHoldsKey(cacheDir: string, modelId: string, key: string): Promise<boolean> {
  const data = await heldPackRead(cacheDir, modelId, { anew: true });
  // a Buffer needle: searching with the string itself took 40 ms in babel's 21 MB pack, this 3 ms
  return data !== undefined && data.includes(Buffer.from(key, 'latin1'));
}

/**
 * One vector of the pack, found by its key without reading the whole store: the pack as
 * packHoldsKey read it ahead (left for the next open), else read now (and left for it). A record
 * counts only when it is whole and its checksum holds; undefined when none does.
 */
export async function readStoredVector(cacheDir: string, modelId: string, dimensions: number, key: string): Promise<Float32Array | undefined> {
  const data = await heldPackRead(cacheDir, modelId);
  if (data === undefined) return undefined;
  const needle = Buffer.from(key, 'utf8');
  for (let at = data.indexOf(needle); at !== -1; at = data.indexOf(needle, at + 1)) {
    const pos = at - HEADER_BYTES;
    if (pos < 0 || data.readUInt32LE(pos) !== MAGIC_U32 || data.readUInt16LE(pos + 6) !== needle.length) continue;
    let vector: Float32Array | undefined;
    scanRecords(
      data,
      (kind, _key, payloadAt, length) => {
        if (kind === KIND_VECTOR && length === dimensions * 4) vector ??= new Float32Array(Uint8Array.prototype.slice.call(data, payloadAt, payloadAt + length).buffer);
      },
      () => undefined,
      pos,
      pos + align4(HEADER_BYTES + needle.length) + align4(data.readUInt32LE(pos + 8)) + 4,
    );
    if (vector !== undefined) return vector;
  }
  return undefined;
}

/**
 * Append one vector to a model's pack without opening the store (what putVector and a flush of
 * it write); a read of the pack held for the next open is dropped, since it lacks the vector.
 */
export async function appendStoredVector(cacheDir: string, modelId: string, key: string, vector: Float32Array): Promise<void> {
  const dir = embeddingStoreDir(cacheDir, modelId);
  const packPath = join(dir, EMBEDDING_PACK_FILE);
  readAhead.delete(packPath);
  ensureDir(dir);
  writeCacheMarker(dirname(dir));
  await appendRecords(packPath, [encodeRecord(KIND_VECTOR, key, vectorBytes(vector))]);
}

/** The key of a task's vector in the pack (its text's hash: the task itself is never stored). */
export function taskVectorKey(task: string): string {
  return `task:${keyHash(task)}`;
}

/** The pack's keys: 128 bits of sha256, hex: collision-safe for any repository, half the key bytes of a full digest. */
export function keyHash(text: string): string {
  return sha256Hex(text).slice(0, 32);
}

/** A file-system-safe directory name for a model id. */
export function modelSlug(modelId: string): string {
  const slug = modelId.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '');
  return slug.length > 0 ? slug.slice(0, 120) : 'model';
}

export function embeddingStoreDir(cacheDir: string, modelId: string): string {
  return join(cacheDir, 'embeddings', modelSlug(modelId));
}

/** A chunk list read from the pack is kept as `payload offset * CHUNK_LIST_LENGTHS + length` until asked for; a longer one is split at once. */
const CHUNK_LIST_LENGTHS = 2 ** 21;
/** The offsets that encoding holds exactly (a pack past 4 GB splits the lists beyond at once). */
const MAX_LAZY_OFFSET = Math.floor(Number.MAX_SAFE_INTEGER / CHUNK_LIST_LENGTHS);

/** Open (read) the store of one model; a missing or unreadable pack is an empty store. */
export async function openEmbeddingStore(cacheDir: string, modelId: string, dimensions: number): Promise<EmbeddingStore> {
  const dir = embeddingStoreDir(cacheDir, modelId);
  const packPath = join(dir, EMBEDDING_PACK_FILE);
  // a vector as read is the offset of its payload in `data`, made a Float32Array view on first use
  // (70k views made up front were half the cost of opening babel's pack)
  const vectors = new Map<string, Float32Array | number>();
  // a file's chunk list as read is where its payload is in `data` (see chunksOf), split on first
  // use: a run over a changed file set asks for a few of babel's 27k lists
  const files = new Map<string, string[] | number>();
  // what was put since opening, encoded only when flushed: holding each record's bytes beside its
  // vector doubled the memory of a cold run (~100 MB on 109k chunks)
  const pending = { vectors: new Set<string>(), files: new Set<string>() };
  const stats = { vectors: 0, files: 0, corrupt: 0, records: 0 };
  const early = readAhead.get(packPath);
  readAhead.delete(packPath);
  const fresh = early !== undefined && Date.now() - early.atMs <= READ_AHEAD_MS ? await early.data : undefined;
  const data = fresh ?? (await readFile(packPath).catch(() => Buffer.alloc(0)));
  scanRecords(data, (kind, key, at, length) => {
    stats.records++;
    if (kind === KIND_VECTOR && length === dimensions * 4) {
      // A view when aligned (the normal case); a copy after garbage shifted the alignment.
      vectors.set(key, (data.byteOffset + at) % 4 === 0 ? at : new Float32Array(Uint8Array.prototype.slice.call(data, at, at + length).buffer));
    } else if (kind === KIND_FILE) {
      files.set(key, length === 0 ? [] : length < CHUNK_LIST_LENGTHS && at < MAX_LAZY_OFFSET ? at * CHUNK_LIST_LENGTHS + length : data.toString('utf8', at, at + length).split('\n'));
    } else {
      stats.corrupt++;
    }
  }, () => stats.corrupt++);
  stats.vectors = vectors.size;
  stats.files = files.size;
  const vectorOf = (hash: string): Float32Array | undefined => {
    const found = vectors.get(hash);
    if (typeof found !== 'number') return found;
    const view = new Float32Array(data.buffer, data.byteOffset + found, dimensions);
    vectors.set(hash, view);
    return view;
  };
  const allVectors = () => new Map([...vectors.keys()].map((hash) => [hash, vectorOf(hash)!]));
  const chunksOf = (key: string): string[] | undefined => {
    const found = files.get(key);
    if (typeof found !== 'number') return found;
    const at = Math.floor(found / CHUNK_LIST_LENGTHS);
    const list = data.toString('utf8', at, at + (found % CHUNK_LIST_LENGTHS)).split('\n');
    files.set(key, list);
    return list;
  };
  const allFiles = () => new Map([...files.keys()].map((key) => [key, chunksOf(key)!]));
  const pendingRecords = () => storeRecords(pending.vectors, (hash) => vectorOf(hash)!, pending.files, (key) => chunksOf(key)!);

  return {
    dir,
    stats,
    getVector: vectorOf,
    hasVector: (hash) => vectors.has(hash),
    getFileChunks: chunksOf,
    putVector(hash, vector) {
      if (vector.length !== dimensions) throw new Error(`vector for ${hash} has ${vector.length} dims, the store holds ${dimensions}`);
      vectors.set(hash, vector);
      pending.vectors.add(hash);
    },
    putFileChunks(key, hashes) {
      files.set(key, hashes);
      pending.files.add(key);
    },
    async flush(used) {
      const live = vectors.size + files.size;
      const added = pending.vectors.size + pending.files.size;
      const total = stats.records + added;
      // Entries from old versions of files pile up as a repository changes: once they outnumber
      // what this run used STALE_FACTOR to 1, keep only what it used (a cache shared by several
      // checkouts of one repository shares most chunks, so the slack is generous).
      const stale = used !== undefined && total >= COMPACT_MIN_RECORDS && live > STALE_FACTOR * used.size;
      if (added === 0 && !stale) return;
      ensureDir(dir);
      writeCacheMarker(dirname(dir));
      if (stale) {
        const keep = <T>(map: Map<string, T>) => new Map([...map].filter(([key]) => used.has(key)));
        await compact(packPath, keep(allVectors()), keep(allFiles()));
        stats.records = [...vectors.keys(), ...files.keys()].filter((k) => used.has(k)).length;
      } else if (total >= COMPACT_MIN_RECORDS && total > 2 * live) {
        await compact(packPath, allVectors(), allFiles());
        stats.records = live;
      } else {
        await appendRecords(packPath, pendingRecords());
        stats.records = total;
      }
      pending.vectors.clear();
      pending.files.clear();
    },
  };
}

/**
 * The records of some vectors, then of some chunk lists (a torn tail then loses lists before the
 * vectors they name), each encoded as the writer reaches it: what is written is never held twice.
 */
function* storeRecords(vectorKeys: Iterable<string>, vectorOf: (key: string) => Float32Array, fileKeys: Iterable<string>, chunksOf: (key: string) => string[]): Generator<Buffer> {
  for (const key of vectorKeys) yield encodeRecord(KIND_VECTOR, key, vectorBytes(vectorOf(key)));
  for (const key of fileKeys) yield encodeRecord(KIND_FILE, key, Buffer.from(chunksOf(key).join('\n'), 'utf8'));
}

/** float32 little-endian (the byte order of every platform Node ships on): a view of the vector's bytes, which encodeRecord copies. */
function vectorBytes(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

function encodeRecord(kind: number, key: string, payload: Buffer, format = EMBEDDING_FORMAT_VERSION): Buffer {
  const keyBytes = Buffer.from(key, 'utf8');
  const payloadAt = align4(HEADER_BYTES + keyBytes.length);
  const crcAt = align4(payloadAt + payload.length);
  const record = Buffer.alloc(crcAt + 4);
  MAGIC.copy(record, 0);
  record.writeUInt8(format, 4);
  record.writeUInt8(kind, 5);
  record.writeUInt16LE(keyBytes.length, 6);
  record.writeUInt32LE(payload.length, 8);
  keyBytes.copy(record, HEADER_BYTES);
  payload.copy(record, payloadAt);
  record.writeUInt32LE(crc32(record.subarray(4, crcAt)), crcAt);
  return record;
}

const align4 = (n: number) => (n + 3) & ~3;
/** A group's own header and checksum. */
const GROUP_OVERHEAD_BYTES = align4(HEADER_BYTES) + 4;

const MAGIC_U32 = MAGIC.readUInt32LE(0);

/**
 * Walk the records of `data[from, to)` (each payload as its offset and length in `data`), a
 * group's records in order in its place; on anything invalid, report it and resume at the next
 * magic. `checked`: the records lie in a group whose checksum held, so theirs are not checked again.
 */
function scanRecords(
  data: Buffer,
  onRecord: (kind: number, key: string, payloadAt: number, payloadLength: number) => void,
  onCorrupt: () => void,
  from = 0,
  to = data.length,
  checked = false,
): void {
  let pos = from;
  while (pos + HEADER_BYTES + 4 <= to) {
    if (data.readUInt32LE(pos) !== MAGIC_U32) {
      onCorrupt();
      const next = data.indexOf(MAGIC, pos + 1);
      if (next < 0 || next >= to) return;
      pos = next;
      continue;
    }
    const keyLength = data.readUInt16LE(pos + 6);
    const payloadLength = data.readUInt32LE(pos + 8);
    const payloadAt = pos + align4(HEADER_BYTES + keyLength);
    const end = pos + align4(payloadAt - pos + payloadLength);
    const format = data.readUInt8(pos + 4);
    const intact = () => end + 4 <= to && crc32(data.subarray(pos + 4, end)) === data.readUInt32LE(end);
    if (format === GROUP_FORMAT_VERSION && data.readUInt8(pos + 5) === KIND_GROUP && keyLength === 0 && !checked) {
      // a torn group (its end past the data) still holds the whole records before the tear
      const whole = intact();
      scanRecords(data, onRecord, onCorrupt, payloadAt, Math.min(payloadAt + payloadLength, to), whole);
      if (!whole && end + 4 > to) return;
      pos = end + 4;
      continue;
    }
    const valid = end + 4 <= to && format === EMBEDDING_FORMAT_VERSION && (checked || intact());
    if (!valid) {
      onCorrupt();
      const next = data.indexOf(MAGIC, pos + 1);
      if (next < 0 || next >= to) return;
      pos = next;
      continue;
    }
    const key = data.toString('utf8', pos + HEADER_BYTES, pos + HEADER_BYTES + keyLength);
    onRecord(data[pos + 5]!, key, payloadAt, payloadLength);
    pos = end + 4;
  }
}

async function appendRecords(packPath: string, records: Iterable<Buffer>): Promise<void> {
  const handle = await open(packPath, 'a');
  try {
    let group: Buffer[] = [];
    let size = 0;
    const writeGroup = async () => {
      if (group.length === 0) return;
      const buffer = encodeRecord(KIND_GROUP, '', Buffer.concat(group, size), GROUP_FORMAT_VERSION);
      // One write() per group: O_APPEND places it at the end as a unit.
      let written = 0;
      while (written < buffer.length) written += (await handle.write(buffer, written)).bytesWritten;
      group = [];
      size = 0;
    };
    for (const record of records) {
      if (size + record.length > MAX_APPEND_BYTES - GROUP_OVERHEAD_BYTES) await writeGroup();
      group.push(record);
      size += record.length;
    }
    await writeGroup();
  } finally {
    await handle.close();
  }
}

/**
 * Rewrite only live records, atomically. Records another process appended between our read and
 * the rename are lost, which only costs that process's vectors a re-embed later.
 */
async function compact(packPath: string, vectors: Map<string, Float32Array>, files: Map<string, string[]>): Promise<void> {
  const tmp = `${packPath}.${process.pid}.${Date.now()}.tmp`;
  const records = storeRecords([...vectors.keys()].sort(), (key) => vectors.get(key)!, [...files.keys()].sort(), (key) => files.get(key)!);
  try {
    await appendRecords(tmp, records);
    await rename(tmp, packPath);
  } finally {
    await rm(tmp, { force: true });
  }
}
