import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { scoreBm25, termCount, termsFact, type Bm25Document } from '../../src/scoring/bm25.js';
import { pathTerms, queryTerms } from '../../src/scoring/terms.js';

const docs = [
  { path: 'src/http/client.ts', content: 'export class HttpClient { retryLoop() { for (const attempt of attempts) this.retry(attempt); } }' },
  { path: 'src/http/headers.ts', content: 'export function mergeHeaders(a, b) { return { ...a, ...b }; }' },
  { path: 'src/db/pool.ts', content: 'export class ConnectionPool { acquire() {} release() {} }' },
  { path: 'src/retry.ts', content: 'export const DEFAULT_ATTEMPTS = 3;' },
  { path: 'README.md', content: 'A small library.' },
];

function ranking(query: string, documents = docs): string[] {
  const { scores } = scoreBm25(documents, query);
  return [...scores].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([p]) => p);
}

/**
 * BM25 as a plain reading of the formula: a Map of term counts per document (content terms in
 * query order, then path terms, each counting the path weight), summed in that order. scoreBm25
 * keeps flat arrays instead; its scores must be these, bit for bit.
 */
function referenceBm25(docs: Bm25Document[], query: readonly string[], k1 = 1.2, b = 0.3, pathWeight = 3): Map<string, number> {
  const wanted = new Set(query);
  const rows = docs.map((doc) => {
    const fact = doc.terms ?? termsFact(doc.content ?? '');
    const tf = new Map<string, number>();
    for (const term of query) if (termCount(fact, term) > 0) tf.set(term, termCount(fact, term));
    const path = pathTerms(doc.path);
    for (const term of path) if (wanted.has(term)) tf.set(term, (tf.get(term) ?? 0) + pathWeight);
    return { path: doc.path, length: fact.length + path.length * pathWeight, tf };
  });
  const df = new Map<string, number>();
  for (const { tf } of rows) for (const term of tf.keys()) df.set(term, (df.get(term) ?? 0) + 1);
  const avg = rows.reduce((sum, r) => sum + r.length, 0) / rows.length || 1;
  const scores = new Map<string, number>();
  for (const { path, length, tf } of rows) {
    if (tf.size === 0) continue;
    const norm = k1 * (1 - b + (b * length) / avg);
    let score = 0;
    for (const [term, f] of tf) score += Math.log(1 + (rows.length - (df.get(term) ?? 0) + 0.5) / ((df.get(term) ?? 0) + 0.5)) * ((f * (k1 + 1)) / (f + norm));
    scores.set(path, score);
  }
  return scores;
}

describe('scoreBm25 against the formula (property)', () => {
  const word = fc.constantFrom('retry', 'loop', 'client', 'http', 'parse', 'token', 'budget', 'retryLoop', 'HTTPClient', 'the', 'sass', 'import');
  const doc = fc.record({ dir: word, name: word, words: fc.array(word, { maxLength: 60 }) });
  it('gives the same scores, in the same order, bit for bit', () => {
    fc.assert(
      fc.property(fc.array(doc, { minLength: 1, maxLength: 30 }), fc.array(word, { minLength: 1, maxLength: 6 }), (rows, asked) => {
        const docs: Bm25Document[] = rows.map((r, i) => ({ path: `src/${r.dir}/${r.name}-${i}.ts`, content: r.words.join(i % 2 ? ' ' : '\n') }));
        const query = queryTerms(asked.join(' '));
        const got = scoreBm25(docs, query).scores;
        expect([...got]).toEqual([...referenceBm25(docs, query)]);
      }),
      { numRuns: 300 },
    );
  });
});

describe('scoreBm25', () => {
  it.each([
    ['fix the retry loop in the http client', 'src/http/client.ts'],
    ['connection pool leaks when release is skipped', 'src/db/pool.ts'],
    ['merge headers case-insensitively', 'src/http/headers.ts'],
  ])('%s ranks %s first', (query, expected) => {
    expect(ranking(query)[0]).toBe(expected);
  });

  it('matches split identifiers: "retry loop" finds retryLoop', () => {
    const { scores } = scoreBm25([{ path: 'a.ts', content: 'retryLoop()' }, { path: 'b.ts', content: 'other()' }], 'retry loop');
    expect(scores.has('a.ts')).toBe(true);
    expect(scores.has('b.ts')).toBe(false);
  });

  it('weights path terms above content terms', () => {
    const documents = [
      { path: 'src/retry.ts', content: 'export const x = 1;' },
      { path: 'src/other.ts', content: 'retry is mentioned once here' },
    ];
    expect(ranking('retry', documents)[0]).toBe('src/retry.ts');
  });

  it('does not bury a large central file under short ones (mild length normalisation)', () => {
    const big = `${'export function tokenize(text) { return text.split(" "); }\n'.repeat(5)}${'const filler = 1;\n'.repeat(400)}`;
    const documents = [
      { path: 'src/core.ts', content: big },
      { path: 'src/small.ts', content: 'tokenize once' },
    ];
    expect(ranking('tokenize', documents)[0]).toBe('src/core.ts');
  });

  it('reports the query terms and an ideal score that counts terms absent from the corpus', () => {
    const present = scoreBm25(docs, 'retry');
    const withAbsent = scoreBm25(docs, 'retry kubernetes');
    expect(present.queryTerms).toEqual(['retry']);
    expect(withAbsent.queryTerms).toEqual(['kubernet', 'retry']);
    expect(withAbsent.idealScore).toBeGreaterThan(present.idealScore * 1.5);
  });

  it('returns nothing for an empty query or corpus', () => {
    expect(scoreBm25(docs, 'the of and').scores.size).toBe(0);
    expect(scoreBm25([], 'retry').scores.size).toBe(0);
  });
});
