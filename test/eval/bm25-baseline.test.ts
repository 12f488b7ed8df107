import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { analyze, bm25Rank, createBaselineCache, packInRankOrder, renderBaselineBlock, runBaseline } from '../../src/eval/bm25-baseline.js';
import { createChars4Tokenizer } from '../../src/tokenize/tokenizer.js';

describe('packInRankOrder', () => {
  it.each([
    ['adds in rank order, skipping a file that would overflow', [['a', 5], ['b', 10], ['c', 3]], 9, ['a', 'c'], 8],
    ['fills exactly', [['a', 4], ['b', 5]], 9, ['a', 'b'], 9],
    ['nothing fits', [['a', 10]], 9, [], 0],
    ['keeps trying after a skip', [['a', 8], ['b', 2], ['c', 1]], 9, ['a', 'c'], 9],
  ] as const)('%s', (_name, files, budget, included, used) => {
    expect(packInRankOrder(files.map(([path, tokens]) => ({ path, tokens })), budget)).toEqual({ included, usedTokens: used });
  });

  it('never exceeds the budget and keeps rank order', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(50), { maxLength: 30 }), fc.nat(200), (sizes, budget) => {
        const ranked = sizes.map((tokens, i) => ({ path: `f${String(i).padStart(2, '0')}`, tokens }));
        const { included, usedTokens } = packInRankOrder(ranked, budget);
        expect(usedTokens).toBeLessThanOrEqual(budget);
        expect([...included].sort()).toEqual(included);
      }),
    );
  });
});

describe('bm25Rank', () => {
  const docs = [
    { path: 'src/http/retry.ts', content: 'export function retry(request) { backoff(); return request(); }' },
    { path: 'src/parser.ts', content: 'export function parse(text) { return tokens(text); }' },
    { path: 'src/log.ts', content: 'export function log(message) { console.log(message); }' },
    { path: 'src/http/client.ts', content: 'import { retry } from "./retry"; export const client = retry;' },
  ];

  it('ranks by term weight over path and content, and leaves non-matching files out', () => {
    const hits = bm25Rank(docs, 'Make the retry use a backoff');
    expect(hits.map((h) => h.path)).toEqual(['src/http/retry.ts', 'src/http/client.ts']);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
  });

  it('breaks ties by path', () => {
    const twins = [{ path: 'b.ts', content: 'alpha' }, { path: 'a.ts', content: 'alpha' }];
    expect(bm25Rank(twins, 'alpha').map((h) => h.path)).toEqual(['a.ts', 'b.ts']);
  });

  it('analyses words like Lucene without stemming beyond plurals', () => {
    expect(analyze('The Retries of parseHTTP_client, a class')).toEqual(['retrie', 'parsehttp_client', 'class']);
  });
});

describe('runBaseline', () => {
  it('packs whole files per budget with exact token counts and no tiers', () => {
    const docs = [
      { path: 'a.ts', content: 'retry '.repeat(40) },
      { path: 'b.ts', content: 'retry once' },
      { path: 'c.ts', content: 'unrelated' },
    ];
    const tokenizer = createChars4Tokenizer();
    const sizeB = tokenizer.count(renderBaselineBlock(docs[1]!));
    const run = runBaseline({ task: 'retry', docs, budgets: [sizeB, 10_000], tokenizer }, createBaselineCache());
    expect(run.ranking).toEqual(['a.ts', 'b.ts']);
    expect([...run.packs.get(sizeB)!.placements.keys()]).toEqual(['b.ts']);
    expect([...run.packs.get(10_000)!.placements.entries()]).toEqual([
      ['a.ts', { tier: null, level: 'full' }],
      ['b.ts', { tier: null, level: 'full' }],
    ]);
    for (const pack of run.packs.values()) expect(pack.renderedTokens).toBe(tokenizer.count(pack.rendered));
  });
});
