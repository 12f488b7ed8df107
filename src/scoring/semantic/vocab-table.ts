import { fmix32 } from '../../util/mix32.js';

/**
 * A WordPiece vocabulary as a ready-made open-addressing hash table over one string, so a model
 * pack loads it as a few flat values (one string, three typed arrays) instead of ~130,000
 * strings put into a Map one by one: that build was most of a static model's load (~80 ms on
 * this 2-core machine, on the critical path of every run that embeds a new task or new chunks).
 *
 * Layout: the words in `text`, word i at [offsets[i], offsets[i + 1]) in UTF-16 units, with its
 * id ids[i]; `slots` (a power of two, at least twice the words) holds i + 1 at the first free
 * slot from the word's hash, linear probing, 0 for empty.
 */
export interface PackedVocab {
  text: string;
  offsets: Uint32Array;
  ids: Int32Array;
  slots: Int32Array;
}

/** What the WordPiece model asks of a vocabulary. */
export interface Vocabulary {
  get(word: string): number | undefined;
  /**
   * The longest entry `head + word.slice(start, end)` with start < end <= word.length (UTF-16
   * units), as [id, end]; undefined when there is none. WordPiece's greedy step, with `head`
   * its continuation prefix after the first piece.
   */
  longest(word: string, start: number, head: string): readonly [id: number, end: number] | undefined;
  /** Largest id; -1 when empty. */
  readonly maxId: number;
}

/** The table of `words` with their ids (each an integer >= 0; a word given twice keeps its last id, as a Map would). */
export function packVocab(words: readonly string[], ids: ArrayLike<number>): PackedVocab {
  const last = new Map<string, number>();
  words.forEach((word, i) => last.set(word, ids[i]!));
  const keys = [...last.keys()];
  const offsets = new Uint32Array(keys.length + 1);
  for (let i = 0; i < keys.length; i++) offsets[i + 1] = offsets[i]! + keys[i]!.length;
  const slots = new Int32Array(slotCount(keys.length));
  const mask = slots.length - 1;
  keys.forEach((word, i) => {
    let at = hashWord(word) & mask;
    while (slots[at] !== 0) at = (at + 1) & mask;
    slots[at] = i + 1;
  });
  return { text: keys.join(''), offsets, ids: Int32Array.from(keys, (key) => last.get(key)!), slots };
}

/** Whether a value read back (from a pack) has the table's shape; the content itself is checked by its frame's CRC. */
export function isPackedVocab(value: unknown): value is PackedVocab {
  const v = value as Partial<PackedVocab> | null;
  if (v === null || typeof v !== 'object') return false;
  if (typeof v.text !== 'string' || !(v.offsets instanceof Uint32Array) || !(v.ids instanceof Int32Array) || !(v.slots instanceof Int32Array)) return false;
  const n = v.ids.length;
  const size = v.slots.length;
  if (v.offsets.length !== n + 1 || v.offsets[n] !== v.text.length || size < 2 * n || size === 0 || (size & (size - 1)) !== 0) return false;
  for (let i = 0; i < n; i++) if (v.ids[i]! < 0 || v.offsets[i + 1]! < v.offsets[i]!) return false;
  // every word in exactly one slot, so probes always reach an empty one
  let used = 0;
  for (let at = 0; at < size; at++) {
    const entry = v.slots[at]!;
    if (entry < 0 || entry > n) return false;
    if (entry !== 0) used++;
  }
  return used === n;
}

/** Lookups in a packed vocabulary: a hash of the word, then a compare at each probed slot. */
export function vocabLookup(packed: PackedVocab): Vocabulary {
  const { text, offsets, ids, slots } = packed;
  const mask = slots.length - 1;
  // WordPiece tries every prefix of a word, longest first: those longer than any entry are no lookup at all
  let maxId = -1;
  let maxChars = 0;
  for (let i = 0; i < ids.length; i++) {
    maxId = Math.max(maxId, ids[i]!);
    maxChars = Math.max(maxChars, offsets[i + 1]! - offsets[i]!);
  }
  const find = (hash: number, word: string, start: number, end: number, head: string): number | undefined => {
    const length = head.length + end - start;
    for (let at = hash & mask; ; at = (at + 1) & mask) {
      const entry = slots[at]!;
      // a table holds at most half its slots, so an empty one always ends the probe
      if (entry === 0) return undefined;
      const i = entry - 1;
      const from = offsets[i]!;
      if (offsets[i + 1]! - from === length && text.startsWith(head, from) && sameUnits(text, from + head.length, word, start, end)) return ids[i];
    }
  };
  // hashes of head + word[start, end) for each end, reused between calls
  let hashes = new Int32Array(64);
  return {
    maxId,
    get(word) {
      if (word.length > maxChars) return undefined;
      return find(hashWord(word), word, 0, word.length, '');
    },
    longest(word, start, head) {
      const last = Math.min(word.length, start + maxChars - head.length);
      if (last <= start) return undefined;
      if (hashes.length <= last - start) hashes = new Int32Array(2 * (last - start));
      let h = extend(FNV_OFFSET, head, 0, head.length);
      for (let end = start + 1; end <= last; end++) {
        h = extend(h, word, end - 1, end);
        hashes[end - start] = h;
      }
      for (let end = last; end > start; end--) {
        const id = find(fmix32(hashes[end - start]!), word, start, end, head);
        if (id !== undefined) return [id, end];
      }
      return undefined;
    },
  };
}

/** A vocabulary over a Map (a model read from its tokenizer.json rather than a pack). */
export function mapVocab(map: ReadonlyMap<string, number>): Vocabulary {
  let maxId = -1;
  for (const id of map.values()) if (id > maxId) maxId = id;
  return {
    maxId,
    get: (word) => map.get(word),
    longest(word, start, head) {
      for (let end = word.length; end > start; end--) {
        const id = map.get(head + word.slice(start, end));
        if (id !== undefined) return [id, end];
      }
      return undefined;
    },
  };
}

function slotCount(words: number): number {
  let size = 16;
  while (size < words * 2) size *= 2;
  return size;
}

const FNV_OFFSET = 0x811c9dc5 | 0;

/** FNV-1a over UTF-16 units (int32 arithmetic), continued from `h` over text[start, end). */
function extend(h: number, text: string, start: number, end: number): number {
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h;
}

function hashWord(word: string): number {
  return fmix32(extend(FNV_OFFSET, word, 0, word.length));
}

/** Whether text[at, at + end - start) equals word[start, end). */
function sameUnits(text: string, at: number, word: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (text.charCodeAt(at + i - start) !== word.charCodeAt(i)) return false;
  return true;
}
