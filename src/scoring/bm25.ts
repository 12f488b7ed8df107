import { extractTerms, pathTerms } from './terms.js';

/**
 * Okapi BM25 over a file's content and its path (a BM25F-style merge: path terms count
 * PATH_WEIGHT times). Only the query's terms are counted per document, so memory stays
 * proportional to the query, not the vocabulary.
 */

export interface Bm25Document {
  path: string;
  content: string;
}

export interface Bm25Options {
  k1?: number;
  /**
   * Length normalisation. Lucene's 0.75 pushes the central large file of a module far down
   * (a peer's report: rank 200 of 284); 0.3 keeps a mild preference for focused files only.
   */
  b?: number;
  pathWeight?: number;
}

export interface Bm25Result {
  /** BM25 score per path; files matching no query term are absent. */
  scores: Map<string, number>;
  /** Distinct query terms after splitting, stopwords and stemming. */
  queryTerms: string[];
  /**
   * Score a document would get holding every query term (present in the corpus or not) at
   * the saturation point of an average-length document: the absolute yardstick for calibration.
   */
  idealScore: number;
}

const DEFAULTS = { k1: 1.2, b: 0.3, pathWeight: 3 } as const;
/** Content beyond this many characters is not indexed (huge generated files, minified blobs). */
export const MAX_INDEXED_CHARS = 400_000;

export function scoreBm25(docs: Bm25Document[], query: string, options: Bm25Options = {}): Bm25Result {
  const { k1, b, pathWeight } = { ...DEFAULTS, ...options };
  const queryTerms = [...new Set(extractTerms(query))].sort();
  const scores = new Map<string, number>();
  if (queryTerms.length === 0 || docs.length === 0) return { scores, queryTerms, idealScore: 0 };

  const wanted = new Set(queryTerms);
  const memo = new Map<string, string[]>();
  const counts: Array<{ path: string; length: number; tf: Map<string, number> }> = [];
  const df = new Map<string, number>();
  let totalLength = 0;
  for (const doc of docs) {
    const tf = new Map<string, number>();
    let length = countTerms(doc.content.slice(0, MAX_INDEXED_CHARS), wanted, tf, 1, memo);
    length += countPathTerms(doc.path, wanted, tf, pathWeight);
    totalLength += length;
    for (const term of tf.keys()) df.set(term, (df.get(term) ?? 0) + 1);
    counts.push({ path: doc.path, length, tf });
  }
  const n = docs.length;
  const avgLength = totalLength / n || 1;
  const idf = new Map(queryTerms.map((t) => [t, Math.log(1 + (n - (df.get(t) ?? 0) + 0.5) / ((df.get(t) ?? 0) + 0.5))]));
  for (const { path, length, tf } of counts) {
    if (tf.size === 0) continue;
    const norm = k1 * (1 - b + (b * length) / avgLength);
    let score = 0;
    for (const [term, f] of tf) score += (idf.get(term) ?? 0) * ((f * (k1 + 1)) / (f + norm));
    scores.set(path, score);
  }
  // Saturation point: tf = 3 in an average-length document gives 3*2.2/(3+1.2) ~ 1.57 per term.
  const saturation = (3 * (k1 + 1)) / (3 + k1);
  // Terms absent from every file count at full idf: a task about things this repository does
  // not contain has a high ideal that no file reaches, so its accidental best match stays weak.
  let idealScore = 0;
  for (const term of queryTerms) idealScore += (idf.get(term) ?? 0) * saturation;
  return { scores, queryTerms, idealScore };
}

function countTerms(text: string, wanted: Set<string>, tf: Map<string, number>, weight: number, memo: Map<string, string[]>): number {
  let length = 0;
  const re = /[A-Za-z0-9_$-]+/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const raw = m[0];
    let terms = memo.get(raw);
    if (terms === undefined) {
      terms = extractTerms(raw);
      memo.set(raw, terms);
    }
    length += terms.length;
    for (const term of terms) if (wanted.has(term)) tf.set(term, (tf.get(term) ?? 0) + weight);
  }
  return length;
}

function countPathTerms(path: string, wanted: Set<string>, tf: Map<string, number>, weight: number): number {
  const terms = pathTerms(path);
  for (const term of terms) if (wanted.has(term)) tf.set(term, (tf.get(term) ?? 0) + weight);
  return terms.length * weight;
}
