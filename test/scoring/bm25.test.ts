import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildBm25Index, scoreBm25, termCount, termsFact, updateBm25Index, type Bm25Document } from '../../src/scoring/bm25.js';
import { pathTerms, queryTerms } from '../../src/scoring/terms.js';
import { loadTextColumn, persistedFacts, type TextColumn } from '../../src/facts/text-column.js';

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

describe('scoreBm25 over terms facts loaded from a column (property)', () => {
  const word = fc.constantFrom('retry', 'loop', 'client', 'http', 'parse', 'token', 'budget', 'retryLoop', 'HTTPClient', 'the', 'sass', 'import', 'retries', 'tok');
  // blob: files may share one (the same content at two paths); columnar: the fact comes from the column
  const row = fc.record({ dir: word, blob: fc.nat({ max: 7 }), columnar: fc.boolean() });
  it('gives the scan of the plain facts, bit for bit, whichever facts come from the column', () => {
    fc.assert(
      fc.property(fc.array(fc.array(word, { maxLength: 40 }), { minLength: 8, maxLength: 8 }), fc.array(row, { minLength: 1, maxLength: 25 }), fc.array(word, { minLength: 1, maxLength: 6 }), (blobs, rows, asked) => {
        const plainFacts = new Map(blobs.map((words, i) => [`blob${i}`, termsFact(words.join(' '))]));
        const loaded = loadTextColumn(persistedFacts(plainFacts) as TextColumn)!;
        const docs = (columnar: boolean): Bm25Document[] =>
          rows.map((r, i) => ({ path: `src/${r.dir}/f${i}.ts`, terms: (columnar && r.columnar ? loaded.get(`blob${r.blob}`) : plainFacts.get(`blob${r.blob}`)) as ReturnType<typeof termsFact> }));
        const query = queryTerms(asked.join(' '));
        const got = scoreBm25(docs(true), query);
        expect([...got.scores]).toEqual([...referenceBm25(docs(false), query)]);
        expect(got.idealScore).toBe(scoreBm25(docs(false), query).idealScore);
      }),
      { numRuns: 300 },
    );
  });
});

describe('the BM25 index (property)', () => {
  const word = fc.constantFrom('retry', 'loop', 'client', 'http', 'parse', 'token', 'budget', 'retryLoop', 'HTTPClient', 'the', 'sass', 'import');
  const docArb = fc.record({ dir: word, name: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'), words: fc.array(word, { maxLength: 40 }) });
  const asDoc = (r: { dir: string; name: string; words: string[] }, terms: boolean): Bm25Document => {
    const path = `src/${r.dir}/${r.name}.ts`;
    const content = r.words.join(' ');
    return terms ? { path, terms: termsFact(content), pathTerms: pathTerms(path) } : { path, content };
  };
  /** A document set: distinct paths, in path order (as bm25Documents gives them). */
  const setOf = (rows: Array<{ dir: string; name: string; words: string[] }>, terms: boolean, kept: readonly Bm25Document[] = []): Bm25Document[] => {
    const byPath = new Map(kept.map((d) => [d.path, d]));
    for (const r of rows) byPath.set(`src/${r.dir}/${r.name}.ts`, asDoc(r, terms));
    return [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
  };

  it('scores as the scan does, bit for bit and in document order, after any sequence of updates', () => {
    fc.assert(
      fc.property(
        fc.array(docArb, { minLength: 1, maxLength: 20 }),
        fc.array(fc.record({ put: fc.array(docArb, { maxLength: 4 }), drop: fc.array(fc.nat(), { maxLength: 3 }), asked: fc.array(word, { minLength: 1, maxLength: 5 }) }), { maxLength: 6 }),
        fc.boolean(),
        (start, steps, terms) => {
          let docs = setOf(start, terms);
          let index = buildBm25Index(docs);
          for (const { put, drop, asked } of steps) {
            // an unchanged document is the same object (its file did not change); a put one is new
            const dropped = new Set(drop.map((i) => docs[i % docs.length]?.path));
            docs = setOf(put, terms, docs.filter((d) => !dropped.has(d.path)));
            const earlier = index;
            const earlierScores = docs.length > 0 ? scoreBm25(earlier, asked.join(' ')).scores : null;
            index = updateBm25Index(index, docs, Number.POSITIVE_INFINITY);
            const query = queryTerms(asked.join(' '));
            expect([...scoreBm25(index, query).scores]).toEqual([...scoreBm25(docs, query).scores]);
            expect(scoreBm25(index, query).idealScore).toBe(scoreBm25(docs, query).idealScore);
            expect(index.totalLength).toBe(buildBm25Index(docs).totalLength);
            // the earlier index still answers for its own documents
            if (earlierScores) expect([...scoreBm25(earlier, asked.join(' ')).scores]).toEqual([...earlierScores]);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('answers for two document sets updated from the same index (the second update builds anew)', () => {
    const a = { path: 'a.ts', content: 'retry loop' };
    const index = buildBm25Index([a, { path: 'b.ts', content: 'loop' }]);
    const one = [a, { path: 'c.ts', content: 'retry retry' }];
    const two = [a, { path: 'd.ts', content: 'loop retry sass' }];
    const first = updateBm25Index(index, one, Number.POSITIVE_INFINITY);
    const second = updateBm25Index(index, two, Number.POSITIVE_INFINITY);
    for (const [got, docs] of [[first, one], [second, two], [updateBm25Index(first, [a], Number.POSITIVE_INFINITY), [a]]] as const) {
      expect([...scoreBm25(got, 'retry loop sass').scores]).toEqual([...scoreBm25(docs, 'retry loop sass').scores]);
    }
    // a document that went and came back
    const back = updateBm25Index(updateBm25Index(first, [a], Number.POSITIVE_INFINITY), one, Number.POSITIVE_INFINITY);
    expect([...scoreBm25(back, 'retry loop').scores]).toEqual([...scoreBm25(one, 'retry loop').scores]);
    expect(back.totalLength).toBe(buildBm25Index(one).totalLength);
  });

  it('builds anew past the rebuild share and refuses a path weight it was not made with', () => {
    const docs = [{ path: 'a.ts', content: 'retry' }, { path: 'b.ts', content: 'loop' }];
    const index = buildBm25Index(docs);
    expect(updateBm25Index(index, docs)).toBe(index);
    const next = [docs[0]!, { path: 'c.ts', content: 'retry loop' }];
    expect([...scoreBm25(updateBm25Index(index, next, 0), 'retry').scores]).toEqual([...scoreBm25(next, 'retry').scores]);
    expect(() => scoreBm25(index, 'retry', { pathWeight: 1 })).toThrow(/path weight 3/);
  });
});
