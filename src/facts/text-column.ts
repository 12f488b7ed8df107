/**
 * Text facts stored as one column: the persisted form of a fact kind whose every value is an
 * ASCII text and a number (`{ text, length }`, the BM25 terms fact). A warm babel run loaded
 * 21k such texts (11 MB) as 21k strings and objects through the young generation on every run,
 * and scanned each one per query term. As a column they load as one byte array (off the heap)
 * with offsets, each fact a small object that reads its text when asked (ColumnText), and a
 * search for a term runs over the whole column at once (findInColumns).
 */

/** A fact kind's value that can be stored in a column. */
export interface TextFact {
  readonly text: string;
  readonly length: number;
}

/** The persisted column: entry i is `bytes[offsets[i], offsets[i + 1])` (latin1, ASCII by construction), with its number. */
export interface TextColumn {
  form: 'text-column';
  /** The entries' keys (blob hashes), joined by '\n'. */
  keys: string;
  offsets: Uint32Array;
  numbers: Float64Array;
  bytes: Uint8Array;
}

/** A text fact held in a loaded column: its text is read from the column when asked. */
export class ColumnText implements TextFact {
  readonly length: number;

  constructor(
    /** Where the text lies: its column and entry. */
    readonly column: LoadedColumn,
    readonly index: number,
  ) {
    this.length = column.numbers[index]!;
  }

  get text(): string {
    const { buffer, offsets } = this.column;
    return buffer.toString('latin1', offsets[this.index]!, offsets[this.index + 1]!);
  }
}

/** A column as loaded: its bytes as a Buffer view. */
export interface LoadedColumn {
  readonly buffer: Buffer;
  readonly offsets: Uint32Array;
  readonly numbers: Float64Array;
  /** Entries in the column. */
  readonly count: number;
}

export function isTextColumn(value: unknown): value is TextColumn {
  const v = value as Partial<TextColumn> | null;
  return (
    v !== null &&
    typeof v === 'object' &&
    v.form === 'text-column' &&
    typeof v.keys === 'string' &&
    v.offsets instanceof Uint32Array &&
    v.numbers instanceof Float64Array &&
    v.bytes instanceof Uint8Array &&
    v.offsets.length === v.numbers.length + 1 &&
    v.offsets[v.offsets.length - 1] === v.bytes.length
  );
}

/** The column's entries as a Map of key -> ColumnText; null when the column is inconsistent (a miss for the caller). */
export function loadTextColumn(column: TextColumn): Map<string, unknown> | null {
  const count = column.numbers.length;
  const keys = count === 0 ? [] : column.keys.split('\n');
  if (keys.length !== count) return null;
  for (let i = 0; i < count; i++) if (column.offsets[i]! > column.offsets[i + 1]!) return null;
  const loaded: LoadedColumn = {
    buffer: Buffer.from(column.bytes.buffer, column.bytes.byteOffset, column.bytes.byteLength),
    offsets: column.offsets,
    numbers: column.numbers,
    count,
  };
  const map = new Map<string, unknown>();
  for (let i = 0; i < count; i++) map.set(keys[i]!, new ColumnText(loaded, i));
  return map;
}

/**
 * A map's persisted form: a TextColumn when every value is a text fact with an ASCII text (and
 * no key holds a newline), else the map itself with any ColumnText made a plain object.
 */
export function persistedFacts(map: ReadonlyMap<string, unknown>): TextColumn | Map<string, unknown> {
  const entries = [...map];
  if (entries.length > 0 && entries.every(([key, value]) => !key.includes('\n') && isColumnable(value))) return buildColumn(entries as Array<[string, TextFact]>);
  if (!entries.some(([, value]) => value instanceof ColumnText)) return map as Map<string, unknown>;
  return new Map(entries.map(([key, value]) => [key, value instanceof ColumnText ? { text: value.text, length: value.length } : value]));
}

function isColumnable(value: unknown): boolean {
  if (value instanceof ColumnText) return true;
  const v = value as Partial<TextFact> | null;
  return v !== null && typeof v === 'object' && typeof v.text === 'string' && typeof v.length === 'number' && Object.keys(v).length === 2 && isAscii(v.text);
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 127) return false;
  return true;
}

function buildColumn(entries: Array<[string, TextFact]>): TextColumn {
  const offsets = new Uint32Array(entries.length + 1);
  const numbers = new Float64Array(entries.length);
  let total = 0;
  entries.forEach(([, fact], i) => {
    offsets[i] = total;
    numbers[i] = fact.length;
    total += byteLength(fact);
  });
  offsets[entries.length] = total;
  const bytes = Buffer.allocUnsafe(total);
  entries.forEach(([, fact], i) => {
    if (fact instanceof ColumnText) {
      const { column, index } = fact;
      column.buffer.copy(bytes, offsets[i]!, column.offsets[index]!, column.offsets[index + 1]!);
    } else {
      bytes.write(fact.text, offsets[i]!, 'latin1');
    }
  });
  return { form: 'text-column', keys: entries.map(([key]) => key).join('\n'), offsets, numbers, bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
}

function byteLength(fact: TextFact): number {
  if (!(fact instanceof ColumnText)) return fact.text.length;
  const { column, index } = fact;
  return column.offsets[index + 1]! - column.offsets[index]!;
}

/**
 * Every occurrence of `needle` (ASCII, no '\n' after its first character) in the texts of
 * `facts` that are ColumnTexts: `found(i, end)` with the fact's position in `facts` and the offset
 * just past the needle in its column (read it with readNumberAt). Facts that are not ColumnTexts
 * are the caller's to search. One native search over each column, whatever the number of facts.
 */
export function findInColumns(facts: ReadonlyArray<TextFact | undefined>, needles: readonly string[], found: (fact: number, needle: number, column: LoadedColumn, end: number) => void): void {
  // per column: its entries -> the first fact holding each, and a chain of the others
  const columns = new Map<LoadedColumn, Int32Array>();
  const nextSame = new Int32Array(facts.length).fill(-1);
  for (let i = facts.length - 1; i >= 0; i--) {
    const fact = facts[i];
    if (!(fact instanceof ColumnText)) continue;
    const { column, index } = fact;
    let first = columns.get(column);
    if (first === undefined) columns.set(column, (first = new Int32Array(column.count).fill(-1)));
    nextSame[i] = first[index]!;
    first[index] = i;
  }
  for (const [column, first] of columns) {
    needles.forEach((needle, q) => {
      const bytes = Buffer.from(needle, 'latin1');
      for (let at = column.buffer.indexOf(bytes, 0); at !== -1; at = column.buffer.indexOf(bytes, at + bytes.length)) {
        const entry = entryAt(column.offsets, at);
        for (let i = first[entry]!; i !== -1; i = nextSame[i]!) found(i, q, column, at + bytes.length);
      }
    });
  }
}

/** The entry whose bytes hold offset `at`: the last i with offsets[i] <= at. */
function entryAt(offsets: Uint32Array, at: number): number {
  let lo = 0;
  let hi = offsets.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (offsets[mid]! <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The decimal number written at `at` of a column (its digits up to the first other byte). */
export function readNumberAt(column: LoadedColumn, at: number): number {
  const { buffer } = column;
  let n = 0;
  for (let i = at; i < buffer.length; i++) {
    const c = buffer[i]!;
    if (c < 48 || c > 57) return n;
    n = n * 10 + (c - 48);
  }
  return n;
}
