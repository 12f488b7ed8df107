import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { diffFiles } from '../../../src/scoring/derived.js';
import { buildProjectIndex, type ProjectIndex } from '../../../src/scoring/import-graph/project.js';
import { candidates } from '../helpers.js';

/** An index carried over added and removed paths answers every lookup as one built on the new paths. */
const PATHS = ['a.ts', 'src/a.ts', 'src/b.py', 'src/x/c.java', 'src/x/y/d.ts', 'lib/x/c.java', 'lib/a.ts', 'lib/tsconfig.json', 'tsconfig.json', 'x/y/go.mod'];
const DIRS = ['', 'src', 'src/x', 'src/x/y', 'lib', 'lib/x', 'x', 'x/y', 'y', 'nope'];
const NAMES = ['a.ts', 'c.java', 'tsconfig.json', 'go.mod', 'd.ts'];

function answers(project: ProjectIndex) {
  return {
    has: PATHS.map((p) => project.has(p)),
    filesIn: DIRS.map((d) => [...project.filesIn(d)].sort()),
    withSuffix: [...PATHS, ...NAMES, 'x/c.java', 'y/d.ts'].map((s) => [...project.withSuffix(s)].sort()),
    dirsWithSuffix: DIRS.map((d) => project.dirsWithSuffix(d)),
    isDirectory: DIRS.map((d) => project.isDirectory(d)),
    nearest: DIRS.flatMap((d) => NAMES.map((n) => project.nearest(d, n))),
    content: PATHS.map((p) => project.content(p)),
  };
}

describe('project index after added and removed paths', () => {
  it('answers every lookup as an index built on the new paths', () => {
    fc.assert(
      fc.property(fc.array(fc.subarray(PATHS), { minLength: 2, maxLength: 6 }), (sets) => {
        let files = candidates(Object.fromEntries((sets[0] as string[]).map((p) => [p, p])));
        let project = buildProjectIndex(files);
        for (const set of sets.slice(1)) {
          const next = candidates(Object.fromEntries(set.map((p) => [p, `${p} again`])));
          project = project.withPaths(next, diffFiles(files, next));
          files = next;
          expect(answers(project)).toEqual(answers(buildProjectIndex(files)));
        }
      }),
      { numRuns: 300 },
    );
  });
});
