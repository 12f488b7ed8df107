import { describe, expect, it } from 'vitest';
import {
  calibrateSemantic,
  fuseAlignment,
  keywordAlignment,
  promoteNamed,
  shapeAlignment,
  NAMED_OTHERS_CAP,
  ALIGNMENT_GAMMA,
  HYBRID_KEYWORD_WEIGHT,
  HYBRID_SEMANTIC_BOOST,
  boostAlignment,
  FUSED_FLOOR,
  TOP_BAND,
  TOP_BAND_SPREAD,
  addEvidence,
  DEFINITION_BOOST,
  FRAME_BOOST,
  CATEGORY_SHARPNESS,
  weighByCategory,
} from '../../src/scoring/alignment.js';
import { candidates } from './helpers.js';

/** Where the shaped curve leaves the power law for the straight top (alignment.ts shapeAlignment). */
const KNEE = TOP_BAND * (1 - TOP_BAND_SPREAD) ** (1 / ALIGNMENT_GAMMA);

const files = candidates({
  'src/http/client.ts': 'export class HttpClient { retryLoop() { this.retry(); } send() {} }',
  'src/http/retry-policy.ts': 'export const retryPolicy = { attempts: 3, backoff: "exponential" };',
  'src/db/pool.ts': 'export class ConnectionPool { acquire() {} }',
  'src/index.ts': 'export * from "./http/client.js";',
  'test/index.ts': 'import "../src/index.js";',
  'docs/index.md': '# Docs',
});
const paths = files.map((f) => f.path);

describe('promoteNamed (exact-name promotion)', () => {
  it('promotes named files to 1 and caps every other file below them', () => {
    const promoted = promoteNamed(new Map([['src/http/client.ts', 1], ['src/db/pool.ts', 0.2]]), new Set(['src/db/pool.ts']), paths);
    expect(promoted.get('src/db/pool.ts')).toBe(1);
    expect(promoted.get('src/http/client.ts')).toBe(NAMED_OTHERS_CAP);
  });
});

describe('keywordAlignment', () => {
  it('maps the run best match of a clearly related task to 1', () => {
    const a = keywordAlignment('the http client retry loop gives up too early', files);
    expect(a.scores.get('src/http/client.ts')).toBe(1);
    expect(a.ranks.get('src/http/client.ts')).toBe(1);
    expect(a.scores.get('src/db/pool.ts') ?? 0).toBe(0);
  });

  it('keeps the best match weak when the task is about things the repository lacks', () => {
    const a = keywordAlignment('configure kubernetes ingress certificates for the staging cluster deployment', files);
    expect(Math.max(0, ...a.scores.values())).toBeLessThan(0.3);
  });
});

describe('calibrateSemantic', () => {
  it('puts the median at 0 and the best at 1', () => {
    const sims = new Map([['a', 0.9], ['b', 0.5], ['c', 0.45], ['d', 0.4]]);
    const s = calibrateSemantic(sims, ['a', 'b', 'c', 'd']);
    expect(s.get('a')).toBeCloseTo(1, 6);
    expect(s.get('c')).toBe(0);
    expect(s.get('d')).toBe(0);
  });
  it('does not inflate a flat distribution (best barely above the median)', () => {
    const s = calibrateSemantic(new Map([['a', 0.52], ['b', 0.5], ['c', 0.5]]), ['a', 'b', 'c']);
    expect(s.get('a')).toBeLessThan(0.2);
  });
  it('ignores missing and non-finite similarities', () => {
    const s = calibrateSemantic(new Map([['a', Number.NaN], ['b', 0.5]]), ['a', 'b', 'c']);
    expect(s.has('a')).toBe(false);
    expect(s.has('c')).toBe(false);
  });
});

describe('fuseAlignment and shapeAlignment', () => {
  it('gives the file both sides agree on 1 and one-sided matches a middle value', () => {
    const keyword = new Map([['both', 1], ['kw', 1], ['sem', 0]]);
    const semantic = new Map([['both', 1], ['kw', 0], ['sem', 1]]);
    const fused = fuseAlignment(keyword, semantic, ['both', 'kw', 'sem', 'none']);
    expect(fused.get('both')).toBe(1);
    expect(fused.get('kw')).toBeCloseTo(HYBRID_KEYWORD_WEIGHT, 9);
    expect(fused.get('sem')).toBeCloseTo(1 - HYBRID_KEYWORD_WEIGHT, 9);
    expect(fused.get('none')).toBe(0);
    const even = fuseAlignment(keyword, semantic, ['both', 'kw', 'sem'], 0.5);
    expect([even.get('kw'), even.get('sem')]).toEqual([0.5, 0.5]);
  });
  it('boost keeps keyword matches first and lets semantic fill part of the keyword shortfall', () => {
    const keyword = new Map([['both', 1], ['kw', 1], ['half', 0.5], ['sem', 0]]);
    const semantic = new Map([['both', 1], ['kw', 0], ['half', 1], ['sem', 1]]);
    const fused = boostAlignment(keyword, semantic, ['both', 'kw', 'half', 'sem', 'none']);
    expect(fused.get('both')).toBe(1);
    expect(fused.get('kw')).toBe(1);
    expect(fused.get('half')).toBeCloseTo(0.5 + 0.5 * HYBRID_SEMANTIC_BOOST, 9);
    expect(fused.get('sem')).toBeCloseTo(HYBRID_SEMANTIC_BOOST, 9);
    expect(fused.get('none')).toBe(0);
  });
  it('boost normalises a weak best only up to the floor', () => {
    const fused = boostAlignment(new Map([['a', 0.4]]), new Map([['a', 0.5]]), ['a'], 0.2);
    expect(fused.get('a')).toBeCloseTo((0.4 + 0.6 * 0.2 * 0.5) / FUSED_FLOOR, 9);
  });
  it('normalises a weak fused best only up to the floor', () => {
    const fused = fuseAlignment(new Map([['a', 0.4]]), new Map([['a', 0]]), ['a'], 0.5);
    expect(fused.get('a')).toBeCloseTo(0.2 / FUSED_FLOOR, 9);
  });
  it.each([
    [1, 1],
    [0.9, 0.9 + (TOP_BAND_SPREAD * (0.9 - KNEE)) / (1 - KNEE)],
    [TOP_BAND, 0.9 + (TOP_BAND_SPREAD * (TOP_BAND - KNEE)) / (1 - KNEE)],
    [KNEE, 1 - TOP_BAND_SPREAD],
    [0.6, (0.6 / TOP_BAND) ** ALIGNMENT_GAMMA],
    [0.3, (0.3 / TOP_BAND) ** ALIGNMENT_GAMMA],
    [0, 0],
  ])('shape(%s) = %s', (ratio, expected) => {
    expect(shapeAlignment(new Map([['f', ratio]])).get('f')).toBeCloseTo(expected, 9);
  });
  it('shape is strictly increasing: different matches never tie at the top', () => {
    const ratios = Array.from({ length: 101 }, (_, i) => i / 100);
    const shaped = shapeAlignment(new Map(ratios.map((r) => [String(r), r])));
    for (let i = 1; i < ratios.length; i++) expect(shaped.get(String(ratios[i]))).toBeGreaterThan(shaped.get(String(ratios[i - 1])) as number);
  });
});

describe('addEvidence', () => {
  it('closes part of the gap for a defining file and a framed file, leaves the rest alone', () => {
    const fused = new Map([['defines.ts', 0.2], ['framed.ts', 0.4], ['both.ts', 0], ['plain.ts', 0.7]]);
    const out = addEvidence(fused, new Map([['defines.ts', 1], ['both.ts', 0.5]]), new Set(['framed.ts', 'both.ts']), [...fused.keys()]);
    expect(out.get('defines.ts')).toBeCloseTo(0.2 + 0.8 * DEFINITION_BOOST, 9);
    expect(out.get('framed.ts')).toBeCloseTo(0.4 + 0.6 * FRAME_BOOST, 9);
    expect(out.get('both.ts')).toBeCloseTo(Math.min(1, 0.5 * DEFINITION_BOOST + FRAME_BOOST), 9);
    expect(out.get('plain.ts')).toBe(0.7);
  });
  it('is the identity without evidence', () => {
    const fused = new Map([['a', 0.3]]);
    expect(addEvidence(fused, new Map(), new Set(), ['a'])).toBe(fused);
  });
});

describe('weighByCategory', () => {
  it('scales an unnamed file by its category share and leaves a named one alone', () => {
    const shares: Record<string, number> = { 'src/a.ts': 1, 'docs/a.md': 0.7 ** CATEGORY_SHARPNESS, 'test/a.test.ts': 0.9 ** CATEGORY_SHARPNESS };
    const out = weighByCategory(new Map([['src/a.ts', 0.8], ['docs/a.md', 1], ['test/a.test.ts', 1]]), (p) => shares[p] as number, new Set(['test/a.test.ts']));
    expect(out.get('src/a.ts')).toBe(0.8);
    expect(out.get('docs/a.md')).toBeCloseTo(0.7 ** CATEGORY_SHARPNESS, 9);
    expect(out.get('docs/a.md')).toBeLessThan(0.8);
    expect(out.get('test/a.test.ts')).toBe(1);
  });
});
