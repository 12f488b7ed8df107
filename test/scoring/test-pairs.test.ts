import { describe, expect, it } from 'vitest';
import type { FileCategory } from '../../src/config/schema.js';
import { addPairedEvidence, fileStem, pairTestsToSources, PAIRED_SHARE } from '../../src/scoring/test-pairs.js';
import { classifyPath } from '../../src/scoring/classify.js';
import { byPath } from './helpers.js';

const classified = (paths: string[]) => new Map<string, FileCategory>(paths.map((p) => [p, classifyPath(p)]));

describe('fileStem', () => {
  it.each([
    ['tests/test_decoders.py', true, 'decoders'],
    ['httpx/_decoders.py', false, 'decoders'],
    ['test/validation.test.js', true, 'validation'],
    ['context_test.go', true, 'context'],
    ['src/http-client.spec.ts', true, 'httpclient'],
    ['src/http_client.ts', false, 'httpclient'],
  ])('%s (test %s) -> %s', (path, isTest, stem) => {
    expect(fileStem(path, isTest)).toBe(stem);
  });
});

describe('pairTestsToSources', () => {
  it('pairs by stem across directories and skips stems shared by many sources', () => {
    const pairs = pairTestsToSources(
      classified(['httpx/_decoders.py', 'tests/test_decoders.py', 'lib/validation.js', 'test/validation.test.js', 'a/index.js', 'b/index.js', 'c/index.js', 'd/index.js', 'test/index.test.js', 'context.go', 'context_test.go']),
    );
    expect(Object.fromEntries(pairs)).toEqual({
      'httpx/_decoders.py': ['tests/test_decoders.py'],
      'lib/validation.js': ['test/validation.test.js'],
      'context.go': ['context_test.go'],
    });
  });
});

describe('addPairedEvidence', () => {
  it('lifts a weak source to a share of its strong test, never lowers one', () => {
    const run = byPath({ 'src/a.ts': 0.1, 'test/a.test.ts': 0.9, 'src/b.ts': 0.8, 'test/b.test.ts': 0.5 });
    const { scores, lifted } = addPairedEvidence(run.values, new Map([['src/a.ts', ['test/a.test.ts']], ['src/b.ts', ['test/b.test.ts']]]), run.positions);
    expect(run.at(scores, 'src/a.ts')).toBeCloseTo(PAIRED_SHARE * 0.9, 9);
    expect(run.at(scores, 'src/b.ts')).toBe(0.8);
    expect(run.at(run.values, 'src/a.ts')).toBe(0.1); // the input is not changed
    expect(Object.fromEntries(lifted)).toEqual({ 'src/a.ts': 'test/a.test.ts' });
  });
});
