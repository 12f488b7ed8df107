import { posix } from 'node:path';
import type { FileCategory } from '../config/schema.js';
import type { PathPositions, PathValues } from './alignment.js';

/**
 * Test-to-source pairing: a test file that matches the task strongly (its name, its assertions,
 * the error it reproduces) points at the module it tests, which is usually what a fix changes.
 * Tests pair with sources by their normalised file stem (`tests/test_decoders.py` and
 * `httpx/_decoders.py`, `test/validation.test.js` and `lib/validation.js`, `context_test.go`
 * and `context.go`).
 */

/** A paired source rises to at least this share of its best test's match. */
export const PAIRED_SHARE = 0.8;
/** A stem shared by more sources than this (`index`, `utils`) pairs with none of them. */
const MAX_SOURCES_PER_STEM = 3;

/** The comparable stem of a file name: extension(s), test markers, leading underscores and case dropped. */
export function fileStem(path: string, isTest: boolean): string {
  let name = posix.basename(path).toLowerCase();
  name = name.replace(/\.[a-z0-9]+$/, '');
  if (isTest) name = name.replace(/(?:[._-](?:test|spec|e2e|tests))+$/, '').replace(/^test_?/, '').replace(/_?test$/, '');
  return name.replace(/^_+/, '').replace(/[-_.]/g, '');
}

/** source path -> the test files paired with it. Pure. */
export function pairTestsToSources(categories: ReadonlyMap<string, FileCategory>): Map<string, string[]> {
  const sourcesByStem = new Map<string, string[]>();
  for (const [path, category] of categories) {
    if (category !== 'source_code') continue;
    const stem = fileStem(path, false);
    if (stem.length < 3) continue;
    const list = sourcesByStem.get(stem);
    if (list) list.push(path);
    else sourcesByStem.set(stem, [path]);
  }
  const pairs = new Map<string, string[]>();
  for (const [path, category] of categories) {
    if (category !== 'test_code') continue;
    const sources = sourcesByStem.get(fileStem(path, true));
    if (sources === undefined || sources.length > MAX_SOURCES_PER_STEM) continue;
    for (const source of sources) pairs.set(source, [...(pairs.get(source) ?? []), path]);
  }
  return pairs;
}

/** h(source) = max(h(source), PAIRED_SHARE x best h of its tests); other files unchanged. */
export function addPairedEvidence(
  fused: PathValues,
  pairs: ReadonlyMap<string, readonly string[]>,
  positions: PathPositions,
): { scores: PathValues; lifted: Map<string, string> } {
  const scores = fused.slice();
  const lifted = new Map<string, string>();
  const valueOf = (path: string) => {
    const i = positions.get(path);
    return i === undefined ? 0 : fused[i]!;
  };
  for (const [source, tests] of pairs) {
    let best = 0;
    let from = '';
    for (const test of tests) {
      const h = valueOf(test);
      if (h > best) [best, from] = [h, test];
    }
    const at = positions.get(source);
    if (at !== undefined && PAIRED_SHARE * best > fused[at]!) {
      scores[at] = PAIRED_SHARE * best;
      lifted.set(source, from);
    }
  }
  return { scores, lifted };
}
