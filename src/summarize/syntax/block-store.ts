import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { indexDirOf } from '../../cache/cache-dir.js';
import { writeFileAtomic } from '../../util/atomic-write.js';
import { encodeFramed, readFramedSync } from '../../util/framed-file.js';
import { OUTLINE_VERSION, type BlockOutline } from './outline.js';

/**
 * The outlines of top-level blocks (blocks.ts) the outliner parsed, kept in
 * `<cache dir>/index/outline-blocks.bin` and keyed by language, the code-before flag and the
 * block's text, so a file that changed is parsed only in the blocks that changed (a checkout 20
 * commits away changes 16% of the bytes of vite's changed files that a run shows). The file is
 * read on the first lookup, once per process; each entry is decoded when asked for. A save writes
 * the entries this process used or made first, then the others in their order, up to
 * MAX_STORE_BYTES: the least recently used go. Another version or a damaged file is a miss, never
 * an error; two processes saving at once lose one's new entries, which only costs a parse.
 */
export interface OutlineBlockStore {
  get(languageId: string, codeBefore: boolean, text: string): BlockOutline | undefined;
  put(languageId: string, codeBefore: boolean, text: string, block: BlockOutline): void;
  /** Write the store when this process added to it since the last save; resolves when written (a failure only costs parses). */
  save(): Promise<void>;
}

export interface OutlineBlockStoreOptions {
  /** Serialised outlines kept, in bytes; default MAX_STORE_BYTES. */
  maxBytes?: number;
}

/** Serialised outlines kept, in bytes: a few runs' worth of shown files on a large repository. */
export const MAX_STORE_BYTES = 32 * 1024 * 1024;
const MAGIC = Buffer.from('AIWGOBLK', 'latin1');
/** The file's format and the outline version (its entries are outlines): either changing is a miss. */
const FORMAT = 1;
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
  let added = false;

  const load = (): Map<string, Entry> => {
    if (entries) return entries;
    entries = new Map();
    const stored = readFramedSync(path, MAGIC, VERSION, 'aiwg outline block store') as Partial<Stored> | undefined;
    if (!isStored(stored)) return entries;
    let start = 0;
    for (let i = 0; i < stored.ends.length; i++) {
      const end = stored.ends[i]!;
      entries.set(stored.keys.toString('latin1', i * KEY_BYTES, (i + 1) * KEY_BYTES), { bytes: stored.data.subarray(start, end) });
      start = end;
    }
    return entries;
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
      load().set(key, { block });
      touch(key);
      added = true;
    },
    async save() {
      if (!added || entries === undefined) return;
      added = false;
      let data: Buffer;
      try {
        const stored = storedOf(entries, used, maxBytes);
        data = encodeFramed(MAGIC, VERSION, stored);
        forgetDropped(entries, used, stored);
      } catch {
        return;
      }
      await writeFileAtomic(path, data).catch(() => undefined);
    },
  };
}

function keyOf(languageId: string, codeBefore: boolean, text: string): string {
  return createHash('sha256').update(`${languageId}\0${codeBefore ? 1 : 0}\0`).update(text).digest().toString('latin1', 0, KEY_BYTES);
}

/** The entries to write: the used ones, most recent first, then the rest, within `maxBytes`. */
function storedOf(entries: Map<string, Entry>, used: ReadonlySet<string>, maxBytes: number): Stored {
  const order = [...used].reverse();
  for (const key of entries.keys()) if (!used.has(key)) order.push(key);
  const keys: Buffer[] = [];
  const parts: Buffer[] = [];
  const ends: number[] = [];
  let total = 0;
  for (const key of order) {
    const entry = entries.get(key)!;
    const bytes = entry.bytes ?? serialize(entry.block);
    if (total + bytes.length > maxBytes) break;
    total += bytes.length;
    keys.push(Buffer.from(key, 'latin1'));
    parts.push(bytes);
    ends.push(total);
  }
  return { keys: Buffer.concat(keys), ends: Uint32Array.from(ends), data: Buffer.concat(parts) };
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
    const value = deserialize(bytes) as Partial<BlockOutline> | undefined;
    return value !== undefined && Array.isArray(value.items) && typeof value.codeSeen === 'boolean' && typeof value.error === 'boolean' ? (value as BlockOutline) : undefined;
  } catch {
    return undefined;
  }
}

function isStored(value: Partial<Stored> | undefined): value is Stored {
  if (value === undefined || !Buffer.isBuffer(value.keys) || !(value.ends instanceof Uint32Array) || !Buffer.isBuffer(value.data)) return false;
  const { keys, ends, data } = value;
  return keys.length === ends.length * KEY_BYTES && (ends.length === 0 || ends[ends.length - 1] === data.length) && ends.every((end, i) => i === 0 || end >= ends[i - 1]!);
}
