import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { indexDirOf } from '../../cache/cache-dir.js';
import { writeFileAtomic } from '../../util/atomic-write.js';
import { appendFrame, decodeFrameAt, eachAppendedFrame, encodeFramed } from '../../util/framed-file.js';
import { readFileSync } from 'node:fs';
import { OUTLINE_VERSION, type BlockOutline } from './outline.js';

/**
 * The outlines of top-level blocks (blocks.ts) the outliner parsed, kept in
 * `<cache dir>/index/outline-blocks.bin` and keyed by language, the code-before flag and the
 * block's text, so a file that changed is parsed only in the blocks that changed (a checkout 20
 * commits away changes 16% of the bytes of vite's changed files that a run shows). The file is
 * read on the first lookup, once per process; each entry is decoded when asked for. It is a run of
 * self-contained frames: a save appends one frame with the entries it made, in one write, while
 * the file stays within MAX_STORE_BYTES; past that it rewrites the file with the entries this
 * process used first, then the others newest first, up to REWRITE_SHARE of it: the least recently
 * used go. Another version or a damaged file is a miss, never an error (a damaged frame loses only
 * its own entries); two processes rewriting at once lose one's new entries, which only costs parses.
 */
export interface OutlineBlockStore {
  get(languageId: string, codeBefore: boolean, text: string): BlockOutline | undefined;
  put(languageId: string, codeBefore: boolean, text: string, block: BlockOutline): void;
  /** Write the store when this process added to it since the last save; resolves when written (a failure only costs parses). */
  save(): Promise<void>;
}

export interface OutlineBlockStoreOptions {
  /** The file's size at most, in bytes; default MAX_STORE_BYTES. */
  maxBytes?: number;
}

/** The file's size at most: a few runs' worth of shown files on a large repository (~16 ms to load). */
export const MAX_STORE_BYTES = 16 * 1024 * 1024;
/** A rewrite keeps this share of MAX_STORE_BYTES, leaving room for the frames of later saves. */
const REWRITE_SHARE = 0.75;
/** The first bytes of the store file (each frame's). */
export const OUTLINE_BLOCKS_MAGIC = Buffer.from('AIWGOBLK', 'latin1');
const MAGIC = OUTLINE_BLOCKS_MAGIC;
/**
 * The file's format and the outline version (its entries are outlines): either changing is a miss.
 * 2: each entry is its outline's JSON (1: v8.serialize, which a cold vite run paid ~110 ms of the
 * main thread for on its ~2,400 new blocks, against ~40 ms for JSON; decoding costs the same).
 */
const FORMAT = 2;
const VERSION = FORMAT * 1000 + OUTLINE_VERSION;
const FILE_NAME = 'outline-blocks.bin';
const KEY_BYTES = 16;

interface Stored {
  /** KEY_BYTES per entry, in order. */
  keys: Buffer;
  /** Where each entry's serialised outline ends in `data` (it starts where the one before ends). */
  ends: Uint32Array;
  data: Buffer;
}

/** An entry: its outline once decoded or made here, else its place in the file read. */
interface Entry {
  block?: BlockOutline;
  bytes?: Buffer;
}

export function outlineBlockStore(cacheDir: string, options: OutlineBlockStoreOptions = {}): OutlineBlockStore {
  const path = join(indexDirOf(cacheDir), FILE_NAME);
  const maxBytes = options.maxBytes ?? MAX_STORE_BYTES;
  let entries: Map<string, Entry> | undefined;
  /** Keys used or made since the file was read, most recent last. */
  const used = new Set<string>();
  /** Keys made since the last save, in order: the next frame. */
  let fresh: string[] = [];
  /** Whether the file starts with a frame this version reads (or was last written here): frames may follow it. */
  let appendable = false;

  const load = (): Map<string, Entry> => {
    if (entries) return entries;
    const loaded = new Map<string, Entry>();
    entries = loaded;
    let data: Buffer;
    try {
      data = readFileSync(path);
    } catch {
      return loaded;
    }
    const what = 'aiwg outline block store';
    const add = (value: unknown): boolean => {
      const stored = value as Partial<Stored> | undefined;
      if (!isStored(stored)) return false;
      let start = 0;
      for (let i = 0; i < stored.ends.length; i++) {
        const end = stored.ends[i]!;
        loaded.set(stored.keys.toString('latin1', i * KEY_BYTES, (i + 1) * KEY_BYTES), { bytes: stored.data.subarray(start, end) });
        start = end;
      }
      return true;
    };
    const first = decodeFrameAt(data, 0, MAGIC, VERSION, what);
    if ('problem' in first || !add(first.value)) return loaded;
    appendable = true;
    eachAppendedFrame(data, first.end, MAGIC, VERSION, what, add);
    return loaded;
  };
  const touch = (key: string) => {
    used.delete(key);
    used.add(key);
  };

  return {
    get(languageId, codeBefore, text) {
      const key = keyOf(languageId, codeBefore, text);
      const entry = load().get(key);
      if (entry === undefined) return undefined;
      if (entry.block === undefined) {
        const block = decode(entry.bytes!);
        if (block === undefined) {
          entries!.delete(key);
          return undefined;
        }
        entry.block = block;
      }
      touch(key);
      return entry.block;
    },
    put(languageId, codeBefore, text, block) {
      const key = keyOf(languageId, codeBefore, text);
      const known = load();
      if (!known.has(key)) fresh.push(key);
      known.set(key, { block });
      touch(key);
    },
    async save() {
      if (fresh.length === 0 || entries === undefined) return;
      const current = entries;
      const made = fresh;
      fresh = [];
      let record: Buffer;
      try {
        record = encodeFramed(MAGIC, VERSION, storedOf(made, current, Infinity));
      } catch {
        return;
      }
      // appended while the file (ours, or another process's rewrite: frames stand alone) stays within
      // the limit; a file of another version, a damaged or a missing one is rewritten instead
      if (appendable && (await appendFrame(path, record, ({ size }) => size > 0 && size + record.length <= maxBytes))) return;
      let data: Buffer;
      try {
        const stored = storedOf(rewriteOrder(current, used), current, maxBytes * REWRITE_SHARE);
        data = encodeFramed(MAGIC, VERSION, stored);
        forgetDropped(current, used, stored);
      } catch {
        return;
      }
      appendable = await writeFileAtomic(path, data).then(
        () => true,
        () => false,
      );
    },
  };
}

function keyOf(languageId: string, codeBefore: boolean, text: string): string {
  return createHash('sha256').update(`${languageId}\0${codeBefore ? 1 : 0}\0`).update(text).digest().toString('latin1', 0, KEY_BYTES);
}

/** A rewrite's order: the entries used, most recent first, then the rest, newest first. */
function rewriteOrder(entries: Map<string, Entry>, used: ReadonlySet<string>): string[] {
  const order = [...used].reverse();
  const rest = [...entries.keys()].filter((key) => !used.has(key));
  for (let i = rest.length - 1; i >= 0; i--) order.push(rest[i]!);
  return order;
}

/** The entries of `keys`, in order, while their outlines fit in `maxBytes`. */
function storedOf(keys: readonly string[], entries: Map<string, Entry>, maxBytes: number): Stored {
  const keyBytes: Buffer[] = [];
  const parts: Buffer[] = [];
  const ends: number[] = [];
  let total = 0;
  for (const key of keys) {
    const entry = entries.get(key);
    if (entry === undefined) continue;
    const bytes = entry.bytes ?? Buffer.from(JSON.stringify(entry.block));
    if (total + bytes.length > maxBytes) break;
    total += bytes.length;
    keyBytes.push(Buffer.from(key, 'latin1'));
    parts.push(bytes);
    ends.push(total);
  }
  return { keys: Buffer.concat(keyBytes), ends: Uint32Array.from(ends), data: Buffer.concat(parts) };
}

/** Drop from memory what the save left out, so a long-lived process holds no more than the file. */
function forgetDropped(entries: Map<string, Entry>, used: Set<string>, stored: Stored): void {
  if (stored.ends.length === entries.size) return;
  const kept = new Set<string>();
  for (let i = 0; i < stored.ends.length; i++) kept.add(stored.keys.toString('latin1', i * KEY_BYTES, (i + 1) * KEY_BYTES));
  for (const key of entries.keys()) {
    if (kept.has(key)) continue;
    entries.delete(key);
    used.delete(key);
  }
}

function decode(bytes: Buffer): BlockOutline | undefined {
  try {
    const value = JSON.parse(bytes.toString('utf8')) as Partial<BlockOutline> | null;
    return value !== null && typeof value === 'object' && Array.isArray(value.items) && typeof value.codeSeen === 'boolean' && typeof value.error === 'boolean' ? (value as BlockOutline) : undefined;
  } catch {
    return undefined;
  }
}

function isStored(value: Partial<Stored> | undefined): value is Stored {
  if (value === undefined || !Buffer.isBuffer(value.keys) || !(value.ends instanceof Uint32Array) || !Buffer.isBuffer(value.data)) return false;
  const { keys, ends, data } = value;
  return keys.length === ends.length * KEY_BYTES && (ends.length === 0 || ends[ends.length - 1] === data.length) && ends.every((end, i) => i === 0 || end >= ends[i - 1]!);
}
