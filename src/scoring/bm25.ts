import type { FactKind } from '../facts/fact-kind.js';
import { extractTerms, forEachWord, pathTerms, queryTerms as queryTermsOf } from './terms.js';

/**
 * Okapi BM25 over a file's content and its path (a BM25F-style merge: path terms count
 * PATH_WEIGHT times). Content terms come from each blob's terms fact, extracted once per blob
 * and persisted by the fact store, so a warm run scores from memory without reading files.
 */

/** A document: its path and either its term fact (from the fact store) or its content. */
export interface Bm25Document {
  path: string;
  content?: string;
  terms?: TermsFact;
  /** The path's terms (pathTerms), when the caller keeps them between queries. */
  pathTerms?: readonly string[];
}

/**
 * The BM25 fact of one blob: every index term with its count, as one string
 * `\nterm\tcount\nterm\tcount\n` (one string per file keeps the persisted store compact and
 * loads in one structured-clone pass; a term's count is found with one indexOf), and the
 * length estimate of the content.
 */
export interface TermsFact {
  text: string;
  length: number;
}

/** The fact kind the fact store keeps for BM25 (src/facts/registry.ts). */
export const termsFactKind: FactKind<TermsFact> = {
  name: 'bm25-terms',
  version: 1,
  extract: (_path, content) => termsFact(content),
};

/**
 * Word -> its index terms, shared by every file of the process: identifiers repeat across a
 * repository's files, so most words are split and stemmed once. Cleared when full, so a
 * long-lived process stays bounded.
 */
const wordTerms = new Map<string, readonly string[]>();
const WORD_MEMO_MAX = 200_000;

/** Index terms of a text with their counts (content beyond MAX_INDEXED_CHARS is not indexed). */
export function termsFact(content: string): TermsFact {
  const text = content.length > MAX_INDEXED_CHARS ? content.slice(0, MAX_INDEXED_CHARS) : content;
  const counts = new Map<string, number>();
  forEachWord(text, (raw) => {
    let terms = wordTerms.get(raw);
    if (terms === undefined) {
      if (wordTerms.size >= WORD_MEMO_MAX) wordTerms.clear();
      terms = extractTerms(raw);
      wordTerms.set(raw, terms);
    }
    for (let i = 0; i < terms.length; i++) counts.set(terms[i]!, (counts.get(terms[i]!) ?? 0) + 1);
  });
  // one flat string from parts: `+=` would leave a rope of ~3 strings per term that every
  // scavenge copies until it is flattened (a cold vite run: ~50 ms of the main thread's GC)
  const parts = ['\n'];
  counts.forEach((count, term) => parts.push(term, '\t', String(count), '\n'));
  return { text: parts.join(''), length: Math.max(1, Math.round(text.length / AVG_CHARS_PER_TERM)) };
}

/** Count of one term in a terms fact (0 when absent). */
export function termCount(fact: TermsFact, term: string): number {
  return countOf(fact.text, needleOf(term));
}

/** What precedes a term's count in a terms fact's text. */
function needleOf(term: string): string {
  return `\n${term}\t`;
}

/** The count after `needle` (needleOf) in a terms fact's text, 0 when absent. */
function countOf(text: string, needle: string): number {
  const at = text.indexOf(needle);
  if (at === -1) return 0;
  let n = 0;
  for (let i = at + needle.length; ; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return n;
    n = n * 10 + (c - 48);
  }
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
/** Characters per index term in typical source text: turns a file size into a BM25 length. */
const AVG_CHARS_PER_TERM = 7;
/** Content beyond this many characters is not indexed (huge generated files, minified blobs). */
export const MAX_INDEXED_CHARS = 400_000;

/** `query` is a text, or its terms already extracted by `queryTerms` (a run's TaskFacts.terms). */
export function scoreBm25(docs: Bm25Document[], query: string | readonly string[], options: Bm25Options = {}): Bm25Result {
  const { k1, b, pathWeight } = { ...DEFAULTS, ...options };
  const queryTerms = typeof query === 'string' ? queryTermsOf(query) : [...query];
  const scores = new Map<string, number>();
  if (queryTerms.length === 0 || docs.length === 0) return { scores, queryTerms, idealScore: 0 };

  // Per document, the counts of the query terms it holds, in the order they were found (its
  // content's in query order, then its path's), which is the order its score sums them in.
  // Flat arrays: babel's 27k documents are scored on every query of a warm index.
  const terms = [...new Set(queryTerms)];
  const slotOf = new Map(terms.map((term, i) => [term, i]));
  const needles = terms.map(needleOf);
  const tf = new Int32Array(terms.length);
  const order = new Int32Array(terms.length);
  const df = new Int32Array(terms.length);
  const matched: Array<{ path: string; length: number; slots: Int32Array; counts: Int32Array }> = [];
  let totalLength = 0;
  for (const doc of docs) {
    const fact = doc.terms ?? termsFact(doc.content ?? '');
    let found = 0;
    for (let q = 0; q < terms.length; q++) {
      const count = countOf(fact.text, needles[q]!);
      tf[q] = count;
      if (count > 0) order[found++] = q;
    }
    const path = doc.pathTerms ?? pathTerms(doc.path);
    for (const term of path) {
      const q = slotOf.get(term);
      if (q === undefined) continue;
      if (tf[q] === 0) order[found++] = q;
      tf[q]! += pathWeight;
    }
    const length = fact.length + path.length * pathWeight;
    totalLength += length;
    if (found === 0) continue;
    const slots = order.slice(0, found);
    const counts = new Int32Array(found);
    for (let k = 0; k < found; k++) {
      counts[k] = tf[slots[k]!]!;
      df[slots[k]!]!++;
    }
    matched.push({ path: doc.path, length, slots, counts });
  }
  const n = docs.length;
  const avgLength = totalLength / n || 1;
  const idf = Array.from(df, (d) => Math.log(1 + (n - d + 0.5) / (d + 0.5)));
  for (const { path, length, slots, counts } of matched) {
    const norm = k1 * (1 - b + (b * length) / avgLength);
    let score = 0;
    for (let k = 0; k < slots.length; k++) {
      const f = counts[k]!;
      score += idf[slots[k]!]! * ((f * (k1 + 1)) / (f + norm));
    }
    scores.set(path, score);
  }
  // Saturation point: tf = 3 in an average-length document gives 3*2.2/(3+1.2) ~ 1.57 per term.
  const saturation = (3 * (k1 + 1)) / (3 + k1);
  // Terms absent from every file count at full idf: a task about things this repository does
  // not contain has a high ideal that no file reaches, so its accidental best match stays weak.
  let idealScore = 0;
  for (const term of queryTerms) idealScore += idf[slotOf.get(term)!]! * saturation;
  return { scores, queryTerms, idealScore };
}

