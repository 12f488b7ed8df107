import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runContextBudget, type PipelineResult } from '../../src/pipeline.js';
import type { RepoIndex } from '../../src/repo-index/repo-index.js';
import { makeFixtureRepo, makeTempDir, type Fixture } from '../helpers/fixture-repo.js';
import { FIXED_RUN, comparableRun, keywordConfig, settledWarmIndex } from '../helpers/warm-index.js';

/**
 * The warm index's score stage updates its derived data (import graph, BM25 documents, mentions,
 * categories) from the changed files: after each change below, the next query gives the record
 * of a cold run on the same tree, down to every file's factors.
 */
const TASK = 'fix the retry backoff of the http client';
const fixed = FIXED_RUN;


describe('warm index: derived score data after edits equals a cold run', () => {
  let repo: Fixture;
  let caches: Fixture;
  let index: RepoIndex;
  let cold = 0;
  const coldRun = () => runContextBudget({ task: TASK, root: repo.root, config: keywordConfig(join(caches.root, `cold-${cold++}`)) }, fixed);
  const write = (path: string, text: string) => writeFileSync(join(repo.root, path), text);
  const depth = (result: PipelineResult, path: string) => result.scored.find((f) => f.path === path)?.factors.dependency_depth.detail;

  beforeAll(async () => {
    repo = makeFixtureRepo([
      {
        date: '2026-01-05T10:00:00Z',
        files: {
          'tsconfig.json': '{ "compilerOptions": { "baseUrl": ".", "paths": { "@/*": ["src/*"] } } }',
          'src/http/client.ts': "import { backoff } from '@/http/retry';\nexport function request() { return backoff(3); }\n",
          'src/http/retry.ts': 'export function backoff(attempt: number) { return 2 ** attempt * 100; }\n',
          'lib/http/retry.ts': 'export function backoff(attempt: number) { return attempt; }\n',
          'src/app.ts': "import { request } from './http/client.js';\nimport { later } from './later.js';\nexport const app = request;\n",
          'docs/http.md': '# HTTP\n\nThe client retries with backoff; see @src/http/retry.ts.\n',
        },
      },
    ]);
    caches = makeTempDir('aiwg-derived-updates-');
    index = await settledWarmIndex(repo.root, keywordConfig(join(caches.root, 'warm-index')), fixed);
    await index.query({ task: TASK });
  }, 120_000);

  afterAll(async () => {
    await index.close();
    repo.cleanup();
    caches.cleanup();
  });

  const expectCold = async () => {
    const warm = await index.query({ task: TASK });
    expect(comparableRun(warm)).toEqual(comparableRun(await coldRun()));
    return warm;
  };

  it('a tsconfig edit moves an alias import', async () => {
    expect(depth(await expectCold(), 'src/http/client.ts')).toContain('2 import edges');
    write('tsconfig.json', '{ "compilerOptions": { "baseUrl": ".", "paths": { "@/*": ["lib/*"] } } }');
    const after = await expectCold();
    expect(depth(after, 'lib/http/retry.ts')).toContain('1 import edges');
    expect(depth(after, 'src/http/retry.ts')).toContain('0 import edges');
  });

  it('an import resolves once its target is added, and no more once it is deleted', async () => {
    write('src/later.ts', 'export const later = "retry backoff";\n');
    expect(depth(await expectCold(), 'src/later.ts')).toContain('1 import edges');
    rmSync(join(repo.root, 'src/later.ts'));
    expect(depth(await expectCold(), 'src/app.ts')).toContain('1 import edges');
  });

  it('an edited file changes its own edges, mentions and terms', async () => {
    write('src/app.ts', "import { backoff } from '@/http/retry';\nexport const app = backoff; // retry backoff http client\n");
    write('docs/http.md', '# HTTP\n\nSee @src/app.ts and @lib/http/retry.ts for the retry backoff.\n');
    const after = await expectCold();
    expect(depth(after, 'src/app.ts')).toContain('1 import edges');
    expect(after.scored.find((f) => f.path === 'src/app.ts')?.factors.mention_density.raw).toBeGreaterThan(0);
  });
});
