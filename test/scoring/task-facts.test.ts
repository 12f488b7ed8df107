import { describe, expect, it } from 'vitest';
import { buildTaskFacts, candidatePathIndex, candidatePaths, requireTask } from '../../src/scoring/task-facts.js';
import { queryTerms } from '../../src/scoring/terms.js';
import { candidates } from './helpers.js';

const paths = candidates({
  'src/http/client.ts': '',
  'src/http/retry-policy.ts': '',
  'src/db/pool.ts': '',
  'src/index.ts': '',
  'test/index.ts': '',
  'docs/index.md': '',
}).map((f) => f.path);

describe('TaskFacts.named (exact-name promotion)', () => {
  it.each([
    ['fix the bug in src/db/pool.ts', ['src/db/pool.ts']],
    ['fix the bug in pool.ts please', ['src/db/pool.ts']],
    ['see db/pool.ts and retry-policy.ts.', ['src/db/pool.ts', 'src/http/retry-policy.ts']],
    ['what does index.ts export', []],
    ['src/index.ts re-exports too much', ['src/index.ts']],
    ['../outside.ts and /etc/passwd', []],
  ])('%s -> %j', (task, expected) => {
    expect([...buildTaskFacts(task, paths).named].sort()).toEqual(expected);
  });
});

describe('TaskFacts.mentioned', () => {
  const files = candidates({
    'src/auth/oauth.ts': '',
    'src/auth/token.ts': '',
    'src/a/index.ts': '',
    'src/b/index.ts': '',
    'src/unique-name.ts': '',
    'AGENTS.md': '',
    '.aiwg/requirements/UC-003.md': '',
    'docs/guide.md': '',
  });

  it('flags only files the task @-mentions by name', () => {
    const facts = buildTaskFacts('fix @src/auth/oauth.ts and @src/auth/ and @index.ts and @unique-name.ts', files.map((f) => f.path));
    expect([...facts.mentioned].sort()).toEqual(['src/auth/oauth.ts', 'src/unique-name.ts']);
    expect(facts.atReferences.map((r) => [r.reference, r.resolution.kind])).toEqual([
      ['src/auth/oauth.ts', 'file'],
      ['src/auth/', 'directory'],
      ['index.ts', 'ambiguous'],
      ['unique-name.ts', 'file'],
    ]);
  });

  it('reads the query terms once, as BM25 searches them', () => {
    const task = 'Fix the retryLoop in HTTP client retries';
    expect(buildTaskFacts(task, []).terms).toEqual(queryTerms(task));
    expect(buildTaskFacts(task, []).terms).toEqual([...new Set(buildTaskFacts(task, []).terms)].sort());
  });
});

describe('requireTask: the one empty-task check', () => {
  it.each(['', '   ', undefined, 42])('refuses %j with one message naming how to pass the task', (task) => {
    expect(() => requireTask(task, { what: '--task', example: 'aiwg context-score a.ts --task "x"' })).toThrow(
      'the task is empty: --task is required, e.g. aiwg context-score a.ts --task "x"',
    );
  });

  it('returns a real task unchanged', () => {
    expect(requireTask(' fix it ', { what: 'a task', example: 'x' })).toBe(' fix it ');
  });
});

describe('candidatePaths: one array per distinct path list', () => {
  it('hands a new list with the same paths (an edit) the same array and path index, and a list with other paths new ones', () => {
    const before = candidates({ 'src/a.ts': 'a', 'src/b.ts': 'b' });
    const edited = candidates({ 'src/a.ts': 'a, edited', 'src/b.ts': 'b' });
    const added = candidates({ 'src/a.ts': 'a', 'src/b.ts': 'b', 'src/c.ts': 'c' });
    const paths = candidatePaths(before);
    expect(paths).toEqual(['src/a.ts', 'src/b.ts']);
    expect(candidatePaths(edited)).toBe(paths);
    expect(candidatePathIndex(edited)).toBe(candidatePathIndex(before));
    expect(candidatePaths(added)).toEqual(['src/a.ts', 'src/b.ts', 'src/c.ts']);
    expect(candidatePathIndex(added)).not.toBe(candidatePathIndex(before));
    // the list first seen keeps its array
    expect(candidatePaths(before)).toBe(paths);
  });
});
