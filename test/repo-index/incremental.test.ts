import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runContextBudget, type PipelineResult } from '../../src/pipeline.js';
import { createRepoIndex, type RepoIndex } from '../../src/repo-index/repo-index.js';
import { makeFixtureRepo, makeTempDir, type Fixture } from '../helpers/fixture-repo.js';
import { FIXED_RUN, comparableRun, keywordConfig, settledWarmIndex } from '../helpers/warm-index.js';

/**
 * The incremental index must never change an answer: after every kind of change to the tree,
 * the next warm CLI-style run (a new pipeline over the persisted index) and the next query of
 * a long-lived warm index give the same record as a cold run (empty cache) on the same tree.
 */
const TASK = 'fix the retry backoff in the http client and the @src/log.ts logger';

/** The sources both suites start from. */
const SOURCES = {
  'src/http/client.ts': "import { backoff } from './retry.js';\nexport function request() { return backoff(3); }\n",
  'src/http/retry.ts': 'export function backoff(attempt: number) { return 2 ** attempt * 100; }\n',
  'src/billing/invoice.ts': 'export function invoiceTotal(lines: number[]) { return lines.length; }\n',
};

const fixed = FIXED_RUN;


describe('incremental index: every change is picked up, answers equal a cold run', () => {
  let repo: Fixture;
  let caches: Fixture;
  let warmIndex: RepoIndex;
  let cold = 0;

  const warmRun = () => runContextBudget({ task: TASK, root: repo.root, config: keywordConfig(join(caches.root, 'warm-cli')) }, fixed);
  const indexQuery = () => warmIndex.query({ task: TASK });
  const coldRun = () => runContextBudget({ task: TASK, root: repo.root, config: keywordConfig(join(caches.root, `cold-${cold++}`)) }, fixed);
  const expectAllEqual = async () => {
    const [warm, indexed] = [await warmRun(), await indexQuery()];
    const reference = await coldRun();
    expect(comparableRun(warm)).toEqual(comparableRun(reference));
    expect(comparableRun(indexed)).toEqual(comparableRun(reference));
    return reference;
  };
  const keyword = (result: PipelineResult, path: string) => result.scored.find((f) => f.path === path)?.factors.task_alignment.raw;
  const included = ({ record }: PipelineResult) =>
    [...record.allocation.primary.files, ...record.allocation.supporting.files, ...record.allocation.reference.files].map((f) => f.path).sort();

  beforeAll(async () => {
    repo = makeFixtureRepo([
      {
        date: '2026-01-05T10:00:00Z',
        files: {
          ...SOURCES,
          'src/log.ts': 'export function log(message: string) { console.log(message); }\n',
          'docs/http.md': '# HTTP\n\nThe client retries with backoff; see @src/http/retry.ts.\n',
        },
      },
      { date: '2026-01-20T10:00:00Z', files: { 'src/log.ts': 'export function log(message: string) { console.error(message); }\n' } },
    ]);
    caches = makeTempDir('aiwg-index-caches-');
    warmIndex = createRepoIndex({ root: repo.root, config: keywordConfig(join(caches.root, 'warm-index')), deps: fixed });
    // both warm paths have seen the tree once before any change
    await warmRun();
    await indexQuery();
  }, 120_000);

  afterAll(async () => {
    await warmIndex.close();
    repo.cleanup();
    caches.cleanup();
  });

  it('an unchanged tree gives the cold answer', async () => {
    await expectAllEqual();
  });

  it('an edited tracked file (same size) is re-read', async () => {
    const before = keyword(await coldRun(), 'src/billing/invoice.ts');
    writeFileSync(join(repo.root, 'src/billing/invoice.ts'), 'export function invoiceRetry(lines: number[]) { return lines.length; }\n');
    const result = await expectAllEqual();
    expect(keyword(result, 'src/billing/invoice.ts')).toBeGreaterThan(before ?? Infinity);
  });

  it('an added untracked file is collected', async () => {
    writeFileSync(join(repo.root, 'src/http/timeout.ts'), 'export const retryTimeout = 5000; // http retry backoff timeout\n');
    const record = await expectAllEqual();
    expect(included(record)).toContain('src/http/timeout.ts');
  });

  it('a deleted tracked file disappears', async () => {
    rmSync(join(repo.root, 'src/http/retry.ts'));
    const record = await expectAllEqual();
    expect(included(record)).not.toContain('src/http/retry.ts');
  });

  it('a renamed file moves', async () => {
    renameSync(join(repo.root, 'src/http/client.ts'), join(repo.root, 'src/http/http-client.ts'));
    const record = await expectAllEqual();
    expect(included(record)).toContain('src/http/http-client.ts');
    expect(included(record)).not.toContain('src/http/client.ts');
  });

  it('a file staged, then a commit moving HEAD, are both seen', async () => {
    execFileSync('git', ['add', '-A'], { cwd: repo.root });
    await expectAllEqual();
    execFileSync('git', ['commit', '-q', '-m', 'move'], { cwd: repo.root, env: { ...process.env, GIT_AUTHOR_DATE: '2026-01-25T10:00:00Z', GIT_COMMITTER_DATE: '2026-01-25T10:00:00Z' } });
    await expectAllEqual();
  });

  it('a checkout of an older commit, and back, are both seen (commit times from the commits the index kept)', async () => {
    const recency = (result: PipelineResult, path: string) => result.scored.find((f) => f.path === path)?.factors.recency.raw;
    execFileSync('git', ['checkout', '-q', '--detach', 'HEAD~1'], { cwd: repo.root });
    const older = await expectAllEqual();
    // the older tree holds the client under its old name, last changed in the first commit
    expect(included(older)).toContain('src/http/client.ts');
    execFileSync('git', ['checkout', '-q', '-'], { cwd: repo.root });
    const back = await expectAllEqual();
    expect(included(back)).toContain('src/http/http-client.ts');
    expect(recency(back, 'src/http/http-client.ts')).not.toEqual(recency(older, 'src/http/client.ts'));
  });

  it('an edit between two warm-index queries is in the second answer', async () => {
    const before = await indexQuery();
    writeFileSync(join(repo.root, 'src/billing/invoice.ts'), 'export function invoiceTotal(lines: number[]) { return lines.length; } // no http here\n');
    writeFileSync(join(repo.root, 'src/log.ts'), 'export function log(message: string) { console.error(message); } // retry backoff http client logging\n');
    const after = await indexQuery();
    expect(comparableRun(after)).not.toEqual(comparableRun(before));
    expect(comparableRun(after)).toEqual(comparableRun(await coldRun()));
  });
});

describe('warm index with the real clock: directory watchers tell it what changed', () => {
  let repo: Fixture;
  let caches: Fixture;
  let index: RepoIndex;
  let cold = 0;
  const coldRun = () => runContextBudget({ task: TASK, root: repo.root, config: keywordConfig(join(caches.root, `cold-${cold++}`)) }, fixed);

  beforeAll(async () => {
    repo = makeFixtureRepo([{ date: '2026-01-05T10:00:00Z', files: SOURCES }]);
    caches = makeTempDir('aiwg-index-watch-');
    // the pipeline's clock is fixed (same records as a cold run); the racy-stat guard uses the real one
    index = await settledWarmIndex(repo.root, keywordConfig(join(caches.root, 'warm-index')), fixed);
  }, 120_000);

  afterAll(async () => {
    await index.close();
    repo.cleanup();
    caches.cleanup();
  });

  it('an unchanged tree is not collected again', async () => {
    const first = await index.refresh();
    const second = await index.refresh();
    expect(second.files).toBe(first.files);
  });

  it('a same-size edit is in the next answer, equal to a cold run', async () => {
    const before = await index.refresh();
    const path = join(repo.root, 'src/billing/invoice.ts');
    const { size } = statSync(path);
    writeFileSync(path, 'export function invoiceRetry(lines: number[]) { return lines.length; }\n'.slice(0, size).padEnd(size, ' '));
    expect(statSync(path).size).toBe(size);
    const after = await index.query({ task: TASK });
    const collected = await index.refresh();
    expect(collected.files).not.toBe(before.files);
    expect(collected.files.find((f) => f.path === 'src/billing/invoice.ts')?.content).toContain('invoiceRetry');
    expect(comparableRun(after)).toEqual(comparableRun(await coldRun()));
  });

  it('a directory removed and made again is watched again (even with the same inode number): an edit inside it is seen', async () => {
    const dir = join(repo.root, 'src/billing');
    rmSync(dir, { recursive: true });
    mkdirSync(dir);
    writeFileSync(join(dir, 'invoice.ts'), 'export function invoiceTotal(lines: number[]) { return lines.length; }\n');
    await index.refresh();
    // settle: files written just now make the first collects conservative
    await new Promise((done) => setTimeout(done, 2100));
    await index.refresh();
    const settled = await index.refresh();
    expect((await index.refresh()).files).toBe(settled.files);
    writeFileSync(join(dir, 'invoice.ts'), 'export function invoiceRetry(lines: number[]) { return lines.length; } // http retry backoff\n');
    const after = await index.query({ task: TASK });
    expect((await index.refresh()).files).not.toBe(settled.files);
    expect(after.scored.find((f) => f.path === 'src/billing/invoice.ts')?.factors.task_alignment.raw).toBeGreaterThan(0);
    expect(comparableRun(after)).toEqual(comparableRun(await coldRun()));
  });

  it('a file in a new directory is in the next answer', async () => {
    mkdirSync(join(repo.root, 'src/retry-policy'));
    writeFileSync(join(repo.root, 'src/retry-policy/http-backoff.ts'), 'export const httpRetryBackoff = [100, 200, 400];\n');
    const after = await index.query({ task: TASK });
    expect(after.scored.map((f) => f.path)).toContain('src/retry-policy/http-backoff.ts');
    expect(comparableRun(after)).toEqual(comparableRun(await coldRun()));
  });
});
