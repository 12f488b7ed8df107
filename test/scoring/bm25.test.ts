import { describe, expect, it } from 'vitest';
import { scoreBm25 } from '../../src/scoring/bm25.js';

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
