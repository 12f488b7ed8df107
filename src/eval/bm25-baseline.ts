import { createHash } from 'node:crypto';
import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Tokenizer } from '../tokenize/tokenizer.js';
import type { GitRunner } from './git.js';
import type { Placement } from './metrics.js';
import { isTestPath } from './source-paths.js';

/**
 * The retrieval baseline of the SWE-bench paper (Jimenez et al. 2024): a BM25 index over whole
 * non-test files (path + content), the task as the query, files added whole in rank order and any
 * file that would overflow the budget skipped. Lucene-like analysis: lowercase word tokens,
 * English stop words dropped, plural "s" folded; BM25 with Lucene/Pyserini's k1 = 0.9, b = 0.4.
 */

export interface BaselineDoc {
  path: string;
  content: string;
}

export interface Bm25Hit {
  path: string;
  score: number;
}

/** Reused across instances: analysed documents and token counts keyed by content hash. */
export interface BaselineCache {
  terms: Map<string, Map<string, number>>;
  tokens: Map<string, number>;
}

export interface BaselineRun {
  /** Hits best first (documents sharing no term with the task are not hits). */
  ranking: string[];
  /** Per available budget: the files packed, all at level full. */
  packs: Map<number, { placements: Map<string, Placement>; renderedTokens: number; rendered: string }>;
}

const K1 = 0.9;
const B = 0.4;
/** Files larger than this are not text a model reads whole; the pipeline's default cap too. */
const MAX_DOC_BYTES = 1_000_000;
const STOP_WORDS = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(' '),
);

export function createBaselineCache(): BaselineCache {
  return { terms: new Map(), tokens: new Map() };
}

/** Lowercase word tokens without stop words, plural "s" folded. Pure. */
export function analyze(text: string): string[] {
  const words = text.toLowerCase().match(/[a-z0-9_]+/g) ?? [];
  const out: string[] = [];
  for (const word of words) {
    if (word.length < 2 || STOP_WORDS.has(word)) continue;
    out.push(word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word);
  }
  return out;
}

/** Rank documents against a query with BM25. Ties by path. Pure (the cache only memoises). */
export function bm25Rank(docs: BaselineDoc[], query: string, cache: BaselineCache = createBaselineCache()): Bm25Hit[] {
  const analysed = docs.map((doc) => ({ path: doc.path, tf: termFrequencies(doc, cache) }));
  const lengths = analysed.map((d) => [...d.tf.values()].reduce((a, b) => a + b, 0));
  const avgLength = lengths.reduce((a, b) => a + b, 0) / Math.max(1, docs.length);
  const queryTerms = new Map<string, number>();
  for (const term of analyze(query)) queryTerms.set(term, (queryTerms.get(term) ?? 0) + 1);
  const df = new Map<string, number>();
  for (const term of queryTerms.keys()) df.set(term, analysed.filter((d) => d.tf.has(term)).length);

  const hits: Bm25Hit[] = [];
  analysed.forEach((doc, i) => {
    let score = 0;
    for (const [term, qtf] of queryTerms) {
      const tf = doc.tf.get(term);
      if (tf === undefined) continue;
      const n = df.get(term) ?? 0;
      const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
      const norm = tf + K1 * (1 - B + (B * (lengths[i] ?? 0)) / (avgLength || 1));
      score += qtf * idf * ((tf * (K1 + 1)) / norm);
    }
    if (score > 0) hits.push({ path: doc.path, score });
  });
  return hits.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Add files in rank order while they fit; a file that would overflow is skipped and the next
 * one tried (the paper's packing). Pure.
 */
export function packInRankOrder(ranked: Array<{ path: string; tokens: number }>, available: number): { included: string[]; usedTokens: number } {
  const included: string[] = [];
  let usedTokens = 0;
  for (const file of ranked) {
    if (usedTokens + file.tokens > available) continue;
    included.push(file.path);
    usedTokens += file.tokens;
  }
  return { included, usedTokens };
}

/** The block a baseline file takes in the context: the whole file in a path-labelled wrapper. */
export function renderBaselineBlock(doc: BaselineDoc): string {
  return `<file path="${doc.path}">\n${doc.content}\n</file>\n`;
}

/** Rank once, then pack for every budget. Token counts are exact for the tokenizer given. */
export function runBaseline(
  input: { task: string; docs: BaselineDoc[]; budgets: number[]; tokenizer: Tokenizer },
  cache: BaselineCache = createBaselineCache(),
): BaselineRun {
  const hits = bm25Rank(input.docs, input.task, cache);
  const byPath = new Map(input.docs.map((d) => [d.path, d]));
  const ranked = hits.map((hit) => {
    const doc = byPath.get(hit.path) as BaselineDoc; // every hit comes from docs
    const key = `${input.tokenizer.id}:${contentKey(doc)}`;
    let tokens = cache.tokens.get(key);
    if (tokens === undefined) {
      tokens = input.tokenizer.count(renderBaselineBlock(doc));
      cache.tokens.set(key, tokens);
    }
    return { doc, path: doc.path, tokens };
  });
  const packs: BaselineRun['packs'] = new Map();
  for (const budget of input.budgets) {
    const { included } = packInRankOrder(ranked, budget);
    const rendered = included.map((path) => renderBaselineBlock(byPath.get(path) as BaselineDoc)).join('');
    const placements = new Map(included.map((path): [string, Placement] => [path, { tier: null, level: 'full' }]));
    packs.set(budget, { placements, renderedTokens: input.tokenizer.count(rendered), rendered });
  }
  return { ranking: hits.map((h) => h.path), packs };
}

/** The baseline's documents at a checkout: tracked non-test text files, sorted by path. */
export async function loadBaselineDocs(root: string, git: GitRunner): Promise<BaselineDoc[]> {
  const listed = (await git(root, ['ls-files', '-z'])).split('\0').filter((p) => p !== '' && !isTestPath(p));
  const docs: BaselineDoc[] = [];
  for (const path of listed.sort()) {
    let bytes: Buffer;
    try {
      // Symlinks are skipped: they may point outside the root.
      if (!(await lstat(join(root, path))).isFile()) continue;
      bytes = await readFile(join(root, path));
    } catch {
      continue; // listed but not on disk (sparse checkout, submodule): nothing to read
    }
    if (bytes.length > MAX_DOC_BYTES || bytes.includes(0)) continue;
    docs.push({ path, content: bytes.toString('utf8') });
  }
  return docs;
}

function termFrequencies(doc: BaselineDoc, cache: BaselineCache): Map<string, number> {
  const key = contentKey(doc);
  const cached = cache.terms.get(key);
  if (cached) return cached;
  const tf = new Map<string, number>();
  for (const term of analyze(`${doc.path}\n${doc.content}`)) tf.set(term, (tf.get(term) ?? 0) + 1);
  cache.terms.set(key, tf);
  return tf;
}

function contentKey(doc: BaselineDoc): string {
  return createHash('sha1').update(doc.path).update('\0').update(doc.content).digest('hex');
}
