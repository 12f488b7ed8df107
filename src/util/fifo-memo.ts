/**
 * A memo bounded by its count of entries and by their total weight, oldest out first: a plain Map
 * underneath, for the speed of its lookups on the hot paths that use it (token counts of text
 * pieces, word ids of the embedding tokenizer, syntax outlines). lru-cache, tried first, does
 * recency bookkeeping on every hit, which these memos of alike entries do not need; on babel's
 * cold run it was no faster than this, and its entries take ~75 bytes against a Map's ~40.
 *
 * Past a bound it drops its oldest entries down to TRIM_TO of each bound in one pass. Dropping
 * one oldest entry per insert instead restarts the Map's key iterator at the front each time, and
 * V8's ordered hash table keeps deleted entries as holes until it rehashes, so every restart walks
 * all the holes before it: time quadratic in the memo's size once it is full (a cold run over the
 * 20,000-file bench repository spent ~4 s of its main thread there, and its embedding thread more).
 */
export class FifoMemo<K, V> {
  private readonly map = new Map<K, V>();
  private weight = 0;
  private readonly maxEntries: number;
  private readonly maxWeight: number;
  private readonly weigh: (key: K, value: V) => number;

  constructor(bounds: { maxEntries?: number; maxWeight?: number; weigh?: (key: K, value: V) => number }) {
    this.maxEntries = bounds.maxEntries ?? Number.POSITIVE_INFINITY;
    this.maxWeight = bounds.maxWeight ?? Number.POSITIVE_INFINITY;
    this.weigh = bounds.weigh ?? (() => 0);
  }

  get size(): number {
    return this.map.size;
  }

  /** The total weight of the entries held. */
  get totalWeight(): number {
    return this.weight;
  }

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  set(key: K, value: V): void {
    // one lookup on a miss, the only case its callers have
    if (this.map.has(key)) this.weight -= this.weigh(key, this.map.get(key) as V);
    this.map.set(key, value);
    this.weight += this.weigh(key, value);
    if (this.map.size > this.maxEntries || this.weight > this.maxWeight) this.trim();
  }

  /** Drop the oldest entries until both bounds have a quarter to spare: one walk of the keys. */
  private trim(): void {
    const entries = Math.floor(this.maxEntries * TRIM_TO);
    const weight = this.maxWeight * TRIM_TO;
    for (const [key, value] of this.map) {
      if (this.map.size <= entries && this.weight <= weight) break;
      this.map.delete(key);
      this.weight -= this.weigh(key, value);
    }
  }
}

/** The share of each bound a trim leaves filled. */
export const TRIM_TO = 0.75;
