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
  categoryShares,
} from '../../src/scoring/alignment.js';
import { defaultConfig, type FileCategory } from '../../src/config/schema.js';
import { byPath, candidates } from './helpers.js';

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
    const { values, positions, at } = byPath({ 'src/http/client.ts': 1, 'src/db/pool.ts': 0.2 }, paths);
    const promoted = promoteNamed(values, new Set(['src/db/pool.ts']), positions);
    expect(at(promoted, 'src/db/pool.ts')).toBe(1);
    expect(at(promoted, 'src/http/client.ts')).toBe(NAMED_OTHERS_CAP);
    expect(at(promoted, 'src/index.ts')).toBe(0);
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
    // the median of four is the lower middle one (0.45); the best stands 0.45 above it
    expect(s[0]).toBeCloseTo(1, 6);
    expect(s[1]).toBeCloseTo(0.05 / 0.45, 9);
    expect(s[2]).toBe(0);
    expect(s[3]).toBe(0);
  });
  it('does not inflate a flat distribution (best barely above the median)', () => {
    const s = calibrateSemantic(new Map([['a', 0.52], ['b', 0.5], ['c', 0.5]]), ['a', 'b', 'c']);
    expect(s[0]).toBeGreaterThan(0);
    expect(s[0]).toBeLessThan(0.2);
  });
  it('leaves missing and non-finite similarities out of the median, at 0', () => {
    const s = calibrateSemantic(new Map([['a', Number.NaN], ['b', 0.9], ['c', 0.5], ['d', 0.45]]), ['a', 'b', 'c', 'd', 'e']);
    // median of the three finite values is 0.5: b is the best at 1, c the zero point
    expect([...s]).toEqual([0, 1, 0, 0, 0]);
  });
});

describe('fuseAlignment and shapeAlignment', () => {
  it('gives the file both sides agree on 1 and one-sided matches a middle value', () => {
    const order = ['both', 'kw', 'sem', 'none'];
    const keyword = byPath({ both: 1, kw: 1, sem: 0 }, order);
    const semantic = byPath({ both: 1, kw: 0, sem: 1 }, order).values;
    const fused = fuseAlignment(keyword.values, semantic);
    expect([...fused]).toEqual([1, HYBRID_KEYWORD_WEIGHT, expect.closeTo(1 - HYBRID_KEYWORD_WEIGHT, 9), 0]);
    const even = fuseAlignment(keyword.values, semantic, 0.5);
    expect([keyword.at(even, 'kw'), keyword.at(even, 'sem')]).toEqual([0.5, 0.5]);
  });
  it('boost keeps keyword matches first and lets semantic fill part of the keyword shortfall', () => {
    const order = ['both', 'kw', 'half', 'sem', 'none'];
    const keyword = byPath({ both: 1, kw: 1, half: 0.5, sem: 0 }, order);
    const fused = boostAlignment(keyword.values, byPath({ both: 1, kw: 0, half: 1, sem: 1 }, order).values);
    expect([...fused]).toEqual([1, 1, expect.closeTo(0.5 + 0.5 * HYBRID_SEMANTIC_BOOST, 9), expect.closeTo(HYBRID_SEMANTIC_BOOST, 9), 0]);
  });
  it('boost normalises a weak best only up to the floor', () => {
    const fused = boostAlignment(Float64Array.of(0.4), Float64Array.of(0.5), 0.2);
    expect(fused[0]).toBeCloseTo((0.4 + 0.6 * 0.2 * 0.5) / FUSED_FLOOR, 9);
  });
  it('normalises a weak fused best only up to the floor', () => {
    const fused = fuseAlignment(Float64Array.of(0.4), Float64Array.of(0), 0.5);
    expect(fused[0]).toBeCloseTo(0.2 / FUSED_FLOOR, 9);
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
    expect(shapeAlignment(Float64Array.of(ratio))[0]).toBeCloseTo(expected, 9);
  });
  it('shape is strictly increasing: different matches never tie at the top', () => {
    const ratios = Array.from({ length: 101 }, (_, i) => i / 100);
    const shaped = shapeAlignment(Float64Array.from(ratios));
    for (let i = 1; i < ratios.length; i++) expect(shaped[i]).toBeGreaterThan(shaped[i - 1] as number);
  });
});

describe('addEvidence', () => {
  it('closes part of the gap for a defining file and a framed file, leaves the rest alone', () => {
    const { values, positions, at } = byPath({ 'defines.ts': 0.2, 'framed.ts': 0.4, 'both.ts': 0, 'plain.ts': 0.7 });
    // a file outside the run (`gone.ts`) is evidence for nothing
    const out = addEvidence(values, new Map([['defines.ts', 1], ['both.ts', 0.5], ['gone.ts', 1]]), new Set(['framed.ts', 'both.ts', 'gone.ts']), positions);
    expect(at(out, 'defines.ts')).toBeCloseTo(0.2 + 0.8 * DEFINITION_BOOST, 9);
    expect(at(out, 'framed.ts')).toBeCloseTo(0.4 + 0.6 * FRAME_BOOST, 9);
    expect(at(out, 'both.ts')).toBeCloseTo(Math.min(1, 0.5 * DEFINITION_BOOST + FRAME_BOOST), 9);
    expect(at(out, 'plain.ts')).toBe(0.7);
    expect(out).toHaveLength(4);
    expect(values[0]).toBe(0.2); // the input is not changed
  });
  it('is the identity without evidence', () => {
    const { values, positions } = byPath({ a: 0.3 });
    expect(addEvidence(values, new Map(), new Set(), positions)).toBe(values);
  });
});

describe('weighByCategory', () => {
  it('scales an unnamed file by its category share and leaves a named one alone', () => {
    const shares: Record<string, number> = { 'src/a.ts': 1, 'docs/a.md': 0.7 ** CATEGORY_SHARPNESS, 'test/a.test.ts': 0.9 ** CATEGORY_SHARPNESS };
    const { values, positions, paths: order, at } = byPath({ 'src/a.ts': 0.8, 'docs/a.md': 1, 'test/a.test.ts': 1 });
    const out = weighByCategory(values, Float64Array.from(order, (p) => shares[p] as number), new Set(['test/a.test.ts']), positions);
    expect(at(out, 'src/a.ts')).toBe(0.8);
    expect(at(out, 'docs/a.md')).toBeCloseTo(0.7 ** CATEGORY_SHARPNESS, 9);
    expect(at(out, 'docs/a.md')).toBeLessThan(0.8);
    expect(at(out, 'test/a.test.ts')).toBe(1);
  });

  it('gives each file its category priority to the power CATEGORY_SHARPNESS', () => {
    const order = ['src/a.ts', 'docs/a.md', 'unknown'];
    const categories = new Map<string, FileCategory>([['src/a.ts', 'source_code'], ['docs/a.md', 'documentation']]);
    const priorities = { ...defaultConfig().relevance_scoring.factors.file_type.priorities, source_code: 1, documentation: 0.5 };
    // a path without a category counts as documentation
    expect([...categoryShares(order, categories, priorities)]).toEqual([1, 0.5 ** CATEGORY_SHARPNESS, 0.5 ** CATEGORY_SHARPNESS]);
  });
});
