import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCollectStage } from '../../src/collect/collect-files.js';
import { makeTempDir } from '../helpers/fixture-repo.js';
import { testContext } from '../helpers/fakes.js';

const DIRS = ['a', 'b', 'c', 'x y', 'é'];
const FILES = ['f.ts', 'g.md', 'h.log', 'keep.log', 'k l.txt'];
const PATTERNS = ['*.log', '!keep.log', '/a/', 'b/', 'c/*.md', '**/x y/', 'f.ts', '/f.ts', '*.md', '!a/g.md', 'é/**', 'a/**/k l.txt', '?.ts', '[fg].md'];

const pathArb = fc
  .tuple(fc.array(fc.constantFrom(...DIRS), { maxLength: 3 }), fc.constantFrom(...FILES))
  .map(([dirs, file]) => [...dirs, file].join('/'));
const ignoreArb = fc.array(fc.constantFrom(...PATTERNS), { maxLength: 4 }).map((lines) => lines.join('\n'));

describe('the tree walk outside git', () => {
  it('selects the same files as git does for the same tree and .gitignore files', async () => {
    const collect = createCollectStage();
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(pathArb, { minLength: 1, maxLength: 12 }),
        ignoreArb,
        fc.constantFrom(...DIRS),
        ignoreArb,
        async (paths, rootIgnore, nestedDir, nestedIgnore) => {
          const dir = makeTempDir('aiwg-walk-');
          try {
            for (const path of paths) dir.write(path, `${path}\n`);
            dir.write('.gitignore', rootIgnore);
            dir.write(`${nestedDir}/.gitignore`, nestedIgnore);
            const walked = await collect({ root: dir.root }, testContext());
            execFileSync('git', ['init', '-q'], { cwd: dir.root });
            const listed = await collect({ root: dir.root }, testContext());
            expect(walked.warnings).toEqual(['not a git repository: recency and history signals are off']);
            expect(listed.git.isRepo).toBe(true);
            expect(walked.files.map((f) => f.path)).toEqual(listed.files.map((f) => f.path));
          } finally {
            dir.cleanup();
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});
