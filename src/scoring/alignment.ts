import type { CandidateFile, FileCategory, SignalInput } from '../types.js';
import { readFact } from '../facts/fact-kind.js';
import { buildBm25Index, scoreBm25, termsFactKind, updateBm25Index, type Bm25Document, type Bm25Index } from './bm25.js';
import { pathTerms } from './terms.js';
import { clamp01 } from './numbers.js';
import { NO_CHANGES, type FileChanges } from './derived.js';

/**
 * Task alignment, pure: BM25 keyword strength, semantic similarity, their fusion, and the
 * calibration that maps "clearly the file for this task" to 1 without inflating unrelated
 * tasks. docs/scoring.md gives the formulas and the figures they were tuned on.
 */

/**
 * The run's best BM25 match maps to 1 only if it reaches this fraction of the ideal score
 * (every query term at saturation). Below it, a weak best match stays weak: an unrelated
 * task does not promote its accidental best hit to the primary tier.
 */
export const KEYWORD_FLOOR_FRACTION = 0.3;
/** Cosine spread above the run's median that counts as a full-strength semantic match. */
export const SEMANTIC_MIN_SPREAD = 0.12;
/** Weight of the keyword side in `fuseAlignment`'s convex combination (0 = semantic only). */
export const HYBRID_KEYWORD_WEIGHT = 0.65;
/**
 * Hybrid: share of the keyword shortfall (1 - K) that semantic similarity may fill,
 * h = K + (1 - K) x 0.3 x S. Measured with `aiwg context-eval` (docs/scoring.md): it beat the
 * convex combination and keyword alone on MRR on both evaluation repositories.
 */
export const HYBRID_SEMANTIC_BOOST = 0.3;
/** The fused best match maps to 1 only when it reaches this value. */
export const FUSED_FLOOR = 0.8;
/** Files within this fraction of the run's best match count as full matches (at least 1 - TOP_BAND_SPREAD). */
export const TOP_BAND = 0.85;
/**
 * The top band is not flat: it spans [1 - TOP_BAND_SPREAD, 1] in proportion to the match ratio,
 * so the strongest candidates keep their order by evidence instead of tying at 1 and falling
 * back to recency or path order.
 */
export const TOP_BAND_SPREAD = 0.1;
/** Share of the remaining gap (1 - h) a file closes when it defines every identifier the task writes (definitions.ts). */
export const DEFINITION_BOOST = 0.5;
/** Share of the remaining gap a file closes when a stack frame or file:line reference of the task points into it. */
export const FRAME_BOOST = 0.5;
/** Below the top band, alignment falls as the ratio to the power 1.5: related files stay mid-range, the long tail of files sharing one common word drops out. */
export const ALIGNMENT_GAMMA = 1.5;
/** When the task names files exactly, every other file's alignment is capped below them. */
export const NAMED_OTHERS_CAP = 0.9;

export interface KeywordAlignment {
  /** Calibrated [0,1] per path (absent = 0). */
  scores: Map<string, number>;
  raw: Map<string, number>;
  ranks: Map<string, number>;
  queryTerms: string[];
}

/**
 * `query`: the task text, or its terms (TaskFacts.terms). `derived` (SignalInput.derived) keeps
 * the documents (terms facts and path terms) for as long as the file set stays the same, and with
 * `indexed` (SignalInput.longLived) their inverted index, updated from the files that changed.
 */
export function keywordAlignment(query: string | readonly string[], files: CandidateFile[], derived?: SignalInput['derived'], indexed = false): KeywordAlignment {
  const docs = derived ? derived('bm25-documents', () => bm25Documents(files), (previous: Bm25Document[], changes) => bm25Documents(files, previous, changes)) : bm25Documents(files);
  const searched = derived && indexed ? derived('bm25-index', () => buildBm25Index(docs), (previous: Bm25Index) => updateBm25Index(previous, docs)) : docs;
  const { scores: raw, queryTerms, idealScore } = scoreBm25(searched, query);
  let best = 0;
  for (const s of raw.values()) best = Math.max(best, s);
  const denominator = Math.max(best, KEYWORD_FLOOR_FRACTION * idealScore);
  const scores = new Map<string, number>();
  if (denominator > 0) for (const [path, s] of raw) scores.set(path, Math.min(1, s / denominator));
  return { scores, raw, ranks: rankOf(raw), queryTerms };
}

/**
 * The BM25 documents of the files, in file order: a file's terms fact and its path's terms. Given
 * the documents of an earlier file set and the changes since, an unchanged file keeps its document.
 */
export function bm25Documents(files: readonly CandidateFile[], previous: readonly Bm25Document[] = [], changes: FileChanges = NO_CHANGES): Bm25Document[] {
  const changed = new Set(changes.changed.map((c) => c.after.path));
  const documentOf = (f: CandidateFile): Bm25Document => ({ path: f.path, terms: readFact(termsFactKind, f), pathTerms: pathTerms(f.path) });
  // the same paths in the same order (an edit): the earlier documents by position
  if (previous.length === files.length && files.every((f, i) => (previous[i] as Bm25Document).path === f.path)) {
    return files.map((f, i) => (changed.has(f.path) ? documentOf(f) : (previous[i] as Bm25Document)));
  }
  const kept = new Map<string, Bm25Document>();
  for (const doc of previous) if (!changed.has(doc.path)) kept.set(doc.path, doc);
  return files.map((f) => kept.get(f.path) ?? documentOf(f));
}

/**
 * A value per file of a run, in the order of the run's paths (`paths[i]` has value `[i]`; no
 * evidence is 0). The alignment steps below pass these along: babel's 27k files are scored on
 * every query of a warm index, and a typed array per step costs a fraction of a Map keyed by path.
 */
export type PathValues = Float64Array;

/** A path's position in the run's paths (positionsOf). */
export type PathPositions = ReadonlyMap<string, number>;

/** Each path's position in `paths`. */
export function positionsOf(paths: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (let i = 0; i < paths.length; i++) out.set(paths[i]!, i);
  return out;
}

/** A sparse per-path map as values in path order (paths not in `positions` are dropped). */
export function valuesOf(sparse: ReadonlyMap<string, number>, positions: PathPositions, length: number): PathValues {
  const out = new Float64Array(length);
  for (const [path, value] of sparse) {
    const i = positions.get(path);
    if (i !== undefined) out[i] = value;
  }
  return out;
}

/**
 * Semantic similarities (cosine, any baseline) to [0,1]: the run's median file is the zero
 * point (embedding spaces put unrelated texts at a positive cosine), the best file is 1
 * unless it stands less than SEMANTIC_MIN_SPREAD above the median. Missing and non-finite
 * similarities are left out of the median and get 0.
 */
export function calibrateSemantic(similarities: ReadonlyMap<string, number>, paths: readonly string[]): PathValues {
  const raw = new Float64Array(paths.length).fill(Number.NaN);
  const finite: number[] = [];
  for (let i = 0; i < paths.length; i++) {
    const v = similarities.get(paths[i]!);
    if (v === undefined || !Number.isFinite(v)) continue;
    raw[i] = v;
    finite.push(v);
  }
  const out = new Float64Array(paths.length);
  if (finite.length === 0) return out;
  const sorted = Float64Array.from(finite).sort();
  const median = sorted[Math.floor((sorted.length - 1) / 2)] as number;
  const best = sorted[sorted.length - 1] as number;
  const spread = Math.max(best - median, SEMANTIC_MIN_SPREAD);
  for (let i = 0; i < raw.length; i++) if (!Number.isNaN(raw[i]!)) out[i] = clamp01((raw[i]! - median) / spread);
  return out;
}

/**
 * Hybrid fusion: h = w*K + (1-w)*S, then normalised against the run's best h (at least
 * FUSED_FLOOR), so the file both signals agree on is 1 and one-sided matches sit in between.
 */
export function fuseAlignment(keyword: PathValues, semantic: PathValues, keywordWeight = HYBRID_KEYWORD_WEIGHT): PathValues {
  return normaliseFused(keyword.map((k, i) => keywordWeight * k + (1 - keywordWeight) * semantic[i]!));
}

/**
 * The hybrid fusion: keyword alignment first, semantic similarity filling part of what keyword
 * leaves (h = K + (1 - K) x boost x S). Keyword order is kept among strong keyword matches, while
 * a file that shares no words with the task but means the same can still rise.
 */
export function boostAlignment(keyword: PathValues, semantic: PathValues, boost = HYBRID_SEMANTIC_BOOST): PathValues {
  return normaliseFused(keyword.map((k, i) => k + (1 - k) * boost * semantic[i]!));
}

/** Divide by the run's best fused value, but by no less than FUSED_FLOOR, so a weak best stays weak (in place). */
function normaliseFused(fused: PathValues): PathValues {
  let best = 0;
  for (const h of fused) best = Math.max(best, h);
  const denominator = Math.max(best, FUSED_FLOOR);
  for (let i = 0; i < fused.length; i++) fused[i] = fused[i]! / denominator;
  return fused;
}

/**
 * Structural evidence on top of the text match h in [0,1]: h' = h + (1 - h) x e with
 * e = min(1, DEFINITION_BOOST x D + FRAME_BOOST x F), D the file's definition match
 * (definitions.ts) and F 1 when a stack frame points into it. A file the text alone found stays
 * where it was; one the report reaches through a defined name or a frame rises towards it.
 */
export function addEvidence(fused: PathValues, definitions: ReadonlyMap<string, number>, framed: ReadonlySet<string>, positions: PathPositions): PathValues {
  if (definitions.size === 0 && framed.size === 0) return fused;
  const out = fused.map(clamp01);
  const evidence = valuesOf(definitions, positions, fused.length).map((d) => DEFINITION_BOOST * d);
  for (const path of framed) {
    const i = positions.get(path);
    if (i !== undefined) evidence[i]! += FRAME_BOOST;
  }
  for (let i = 0; i < out.length; i++) {
    const e = Math.min(1, evidence[i]!);
    if (e > 0) out[i] = out[i]! + (1 - out[i]!) * e;
  }
  return out;
}

/**
 * The final shape of a [0,1] match ratio (file strength / run's best, floored): the curve
 * a = min(1, r / TOP_BAND)^GAMMA up to where it reaches 1 - s (s = TOP_BAND_SPREAD), then a
 * straight line from there to (1, 1) instead of the flat top. Continuous and strictly
 * increasing, so two different matches never tie; below the top it is the old curve.
 * See docs/scoring.md for the figures behind the constants.
 */
export function shapeAlignment(ratios: PathValues): PathValues {
  const floor = 1 - TOP_BAND_SPREAD;
  const knee = TOP_BAND * floor ** (1 / ALIGNMENT_GAMMA);
  return ratios.map((value) => {
    const r = clamp01(value);
    return r >= knee ? floor + (TOP_BAND_SPREAD * (r - knee)) / (1 - knee) : (r / TOP_BAND) ** ALIGNMENT_GAMMA;
  });
}

/**
 * How much a match in a file of a lower-priority category counts: share = priority ^
 * CATEGORY_SHARPNESS, with the configured file_type priorities (defaults: source 1, test 0.53,
 * requirements 0.26, documentation 0.12, config 0.05). A guide or a test that repeats the task's
 * words describes or exercises the code; the task is about the source that does it. Without
 * this the long documents of a repository took the top ranks on text match alone. Measured on
 * the dev set (docs/evaluation.md): MRR up on every repository, commit and bug-report tasks.
 */
export const CATEGORY_SHARPNESS = 6;

/** Each file's share (CATEGORY_SHARPNESS) by its category, in path order. */
export function categoryShares(paths: readonly string[], categories: ReadonlyMap<string, FileCategory>, priorities: Readonly<Record<FileCategory, number>>): PathValues {
  return Float64Array.from(paths, (path) => priorities[categories.get(path) ?? 'documentation'] ** CATEGORY_SHARPNESS);
}

/** Scale each unnamed file's alignment by its category's share (categoryShares); named files keep theirs. */
export function weighByCategory(scores: PathValues, shares: PathValues, named: ReadonlySet<string>, positions: PathPositions): PathValues {
  const out = scores.map((a, i) => a * shares[i]!);
  for (const path of named) {
    const i = positions.get(path);
    if (i !== undefined) out[i] = scores[i]!;
  }
  return out;
}

/** Named files get 1; everyone else is capped just below them. */
export function promoteNamed(scores: PathValues, named: ReadonlySet<string>, positions: PathPositions): PathValues {
  if (named.size === 0) return scores;
  const out = scores.map((a) => Math.min(a, 1) * NAMED_OTHERS_CAP);
  for (const path of named) {
    const i = positions.get(path);
    if (i !== undefined) out[i] = 1;
  }
  return out;
}

function rankOf(scores: Map<string, number>): Map<string, number> {
  const ordered = [...scores].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return new Map(ordered.map(([p], i) => [p, i + 1]));
}
