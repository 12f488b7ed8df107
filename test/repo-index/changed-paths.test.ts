import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config/schema.js';
import { createCollectStage } from '../../src/collect/collect-files.js';
import { BATCHED_SAVE_PIECES, batchedSaves, createRepoIndex, type RepoIndex } from '../../src/repo-index/repo-index.js';
import { openPieceCounts, pieceCountsPath } from '../../src/tokenize/piece-counts.js';
import { createTreeWatch, MAX_CHANGED_ENTRIES, type TreeWatch } from '../../src/repo-index/tree-watch.js';
import type { CollectResult } from '../../src/types.js';
import { makeFixtureRepo, makeTempDir, type Fixture } from '../helpers/fixture-repo.js';
import { keywordConfig, settledWarmIndex } from '../helpers/warm-index.js';
import { SECRETS } from '../helpers/secret-fixture.js';
import { testContext } from '../helpers/fakes.js';

/**
 * A warm index told by its watchers which paths changed collects those alone: every other
 * candidate is the same object as before, and the result equals a full collect of the same tree
 * (candidates, exclusions, dirty paths, warnings) after any sequence of file changes.
 */

const SOURCES: Record<string, string> = {
  '.gitignore': '*.log\nbuild/\n',
  'src/http/client.ts': "import { backoff } from './retry.js';\nexport function request() { return backoff(3); }\n",
  'src/http/retry.ts': 'export function backoff(attempt: number) { return 2 ** attempt * 100; }\n',
  'src/billing/invoice.ts': 'export function invoiceTotal(lines: number[]) { return lines.length; }\n',
  'docs/guide.md': '# Guide\n\nRetries back off.\n',
  'vendor/lib.js': 'module.exports = 1;\n',
};

/** What a collect found, without the objects' identity: comparable with a full collect's. */
function comparable(result: CollectResult): unknown {
  return {
    files: result.files.map((f) => ({ path: f.path, hash: f.hash, size: f.size, mtimeMs: f.mtimeMs, lineCount: f.lineCount, content: f.content })),
    excluded: result.excluded,
    dirty: [...result.git.dirty].sort(),
    lastCommitMs: [...result.git.lastCommitMs].sort(),
    head: result.git.head,
    warnings: result.warnings,
  };
}

const fileOf = (result: CollectResult, path: string) => result.files.find((f) => f.path === path);

describe('warm index: a change of files is collected from the changed paths alone', () => {
  let repo: Fixture;
  let caches: Fixture;
  let index: RepoIndex;
  let full = 0;
  const fullCollect = () => createCollectStage()({ root: repo.root }, testContext({ config: keywordConfig(join(caches.root, `full-${full++}`)) }));

  beforeAll(async () => {
    repo = makeFixtureRepo([{ date: '2026-01-05T10:00:00Z', files: SOURCES }], { untracked: { 'notes/todo.md': 'retry later\n' } });
    caches = makeTempDir('aiwg-changed-paths-');
    index = await settledWarmIndex(repo.root, keywordConfig(join(caches.root, 'warm-index')));
  }, 120_000);

  afterAll(async () => {
    await index.close();
    repo.cleanup();
    caches.cleanup();
  });

  it('an edit re-reads the edited file alone, marks it dirty, and equals a full collect', async () => {
    const before = await index.refresh();
    writeFileSync(join(repo.root, 'src/billing/invoice.ts'), 'export function invoiceRetry(lines: number[]) { return lines.length; }\n');
    const after = await index.refresh();
    expect(fileOf(after, 'src/http/client.ts')).toBe(fileOf(before, 'src/http/client.ts'));
    expect(fileOf(after, 'docs/guide.md')).toBe(fileOf(before, 'docs/guide.md'));
    expect(fileOf(after, 'src/billing/invoice.ts')).not.toBe(fileOf(before, 'src/billing/invoice.ts'));
    expect(fileOf(after, 'src/billing/invoice.ts')?.content).toContain('invoiceRetry');
    expect(after.git.dirty.has('src/billing/invoice.ts')).toBe(true);
    expect(comparable(after)).toEqual(comparable(await fullCollect()));
  });

  it('an edit back to the committed text is clean again', async () => {
    writeFileSync(join(repo.root, 'src/billing/invoice.ts'), SOURCES['src/billing/invoice.ts']!);
    const after = await index.refresh();
    expect(after.git.dirty.has('src/billing/invoice.ts')).toBe(false);
    expect(comparable(after)).toEqual(comparable(await fullCollect()));
  });

  it('an added file, an ignored one and a deleted one: the listing follows, the untouched candidates stay', async () => {
    const before = await index.refresh();
    writeFileSync(join(repo.root, 'src/http/timeout.ts'), 'export const retryTimeout = 5000;\n');
    writeFileSync(join(repo.root, 'src/http/debug.log'), 'retry 1\n');
    rmSync(join(repo.root, 'docs/guide.md'));
    const after = await index.refresh();
    expect(fileOf(after, 'src/http/client.ts')).toBe(fileOf(before, 'src/http/client.ts'));
    expect(fileOf(after, 'src/http/timeout.ts')).toBeDefined();
    expect(fileOf(after, 'src/http/debug.log')).toBeUndefined();
    expect(after.git.dirty.has('src/http/timeout.ts')).toBe(true);
    expect(comparable(after)).toEqual(comparable(await fullCollect()));
  });

  it('a credential written into a file is redacted and warned about, as by a full collect', async () => {
    writeFileSync(join(repo.root, 'src/http/client.ts'), `export const TOKEN = '${SECRETS.jwt}';\n`);
    const after = await index.refresh();
    expect(fileOf(after, 'src/http/client.ts')?.content).not.toContain(SECRETS.jwt);
    expect(after.warnings.some((w) => w.includes('src/http/client.ts'))).toBe(true);
    expect(comparable(after)).toEqual(comparable(await fullCollect()));
  });

  it('a .gitignore edit, which changes other paths, collects everything', async () => {
    const before = await index.refresh();
    writeFileSync(join(repo.root, 'notes/todo.log'), 'later\n');
    writeFileSync(join(repo.root, '.gitignore'), 'build/\n');
    const after = await index.refresh();
    expect(fileOf(after, 'notes/todo.log')).toBeDefined();
    // a full collect: no candidate object carried over
    expect(fileOf(after, 'src/http/retry.ts')).not.toBe(fileOf(before, 'src/http/retry.ts'));
    expect(comparable(after)).toEqual(comparable(await fullCollect()));
  });

  it('any sequence of file changes gives what a full collect gives', async () => {
    const names = ['src/http/retry.ts', 'src/billing/invoice.ts', 'src/http/new.ts', 'notes/todo.md', 'notes/extra.md', 'src/trace.log', 'vendor/lib.js', 'src/http/client.ts'];
    const op = fc.oneof(
      fc.record({ kind: fc.constant('write' as const), path: fc.constantFrom(...names), text: fc.constantFrom('retry\n', 'export const a = 1;\n', '', `const key = '${SECRETS.jwt}';\n`) }),
      fc.record({ kind: fc.constant('delete' as const), path: fc.constantFrom(...names) }),
      fc.record({ kind: fc.constant('rename' as const), path: fc.constantFrom(...names), to: fc.constantFrom(...names) }),
      fc.record({ kind: fc.constant('mkdir' as const), path: fc.constantFrom('src/retry', 'notes/more') }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 4 }), async (ops) => {
        for (const o of ops) {
          const abs = join(repo.root, o.path);
          if (o.kind === 'write') {
            mkdirSync(join(abs, '..'), { recursive: true });
            writeFileSync(abs, o.text);
          } else if (o.kind === 'delete') rmSync(abs, { force: true, recursive: true });
          else if (o.kind === 'rename') {
            try {
              mkdirSync(join(repo.root, o.to, '..'), { recursive: true });
              renameSync(abs, join(repo.root, o.to));
            } catch {
              // nothing to move
            }
          } else {
            mkdirSync(abs, { recursive: true });
            writeFileSync(join(abs, 'inside.ts'), 'export const retry = true;\n');
          }
          expect(comparable(await index.refresh())).toEqual(comparable(await fullCollect()));
        }
      }),
      { numRuns: 15 },
    );
  }, 120_000);

  it('git changes (a commit) collect everything and still equal a full collect', async () => {
    execFileSync('git', ['add', '-A'], { cwd: repo.root });
    execFileSync('git', ['commit', '-q', '-m', 'more', '--allow-empty'], { cwd: repo.root, env: { ...process.env, GIT_AUTHOR_DATE: '2026-01-25T10:00:00Z', GIT_COMMITTER_DATE: '2026-01-25T10:00:00Z' } });
    const after = await index.refresh();
    expect(after.git.dirty.size).toBe(0);
    expect(comparable(after)).toEqual(comparable(await fullCollect()));
  });
});

describe('tree watch: the entries that changed', () => {
  let dir: Fixture;
  let watch: TreeWatch;
  beforeAll(() => {
    dir = makeTempDir('aiwg-tree-watch-');
    mkdirSync(join(dir.root, 'src'));
    mkdirSync(join(dir.root, 'git'));
    watch = createTreeWatch();
    watch.watchDirectories(new Map([[join(dir.root, 'src'), undefined], [join(dir.root, 'git'), new Set(['index'])]]));
  });
  afterAll(() => {
    watch.close();
    dir.cleanup();
  });

  it('is everything before the first markClean, then the entries events named', async () => {
    expect(await watch.changes()).toBe('all');
    watch.markClean();
    expect(await watch.changes()).toEqual(new Set());
    writeFileSync(join(dir.root, 'src/a.ts'), 'a\n');
    writeFileSync(join(dir.root, 'src/b.ts'), 'b\n');
    expect(await watch.changes()).toEqual(new Set([join(dir.root, 'src/a.ts'), join(dir.root, 'src/b.ts')]));
  });

  it("a change of git's named files, markDirty, or too many entries is everything", async () => {
    watch.markClean();
    writeFileSync(join(dir.root, 'git/index.lock'), 'x');
    expect(await watch.changes()).toEqual(new Set());
    writeFileSync(join(dir.root, 'git/index'), 'x');
    expect(await watch.changes()).toBe('all');
    watch.markClean();
    watch.markDirty();
    expect(await watch.changes()).toBe('all');
    watch.markClean();
    for (let i = 0; i <= MAX_CHANGED_ENTRIES; i++) writeFileSync(join(dir.root, `src/f${i}.ts`), '');
    expect(await watch.changes()).toBe('all');
  });
});

describe('warm index: the tokenizer remembers what every query counted', () => {
  it('saves remembered pieces once a batch is waiting, and the rest when flushed', async () => {
    const dir = makeTempDir('aiwg-batched-pieces-');
    try {
      const path = pieceCountsPath(dir.root, 'o200k');
      const store = batchedSaves(await openPieceCounts(path));
      const piece = (i: number) => `  piece number ${i}\n`;
      for (let i = 0; i < BATCHED_SAVE_PIECES - 1; i++) store.set(piece(i), 5);
      await store.save();
      expect((await openPieceCounts(path)).remembered).toBe(0);
      store.set(piece(BATCHED_SAVE_PIECES - 1), 5);
      await store.save();
      expect((await openPieceCounts(path)).remembered).toBe(BATCHED_SAVE_PIECES);
      store.set(piece(BATCHED_SAVE_PIECES), 6);
      await store.save();
      expect((await openPieceCounts(path)).remembered).toBe(BATCHED_SAVE_PIECES);
      await store.flush();
      expect((await openPieceCounts(path)).get(piece(BATCHED_SAVE_PIECES))).toBe(6);
    } finally {
      dir.cleanup();
    }
  });

  it("a second query's new pieces are saved to the piece-count file, which the index opened once, in a batch or when it closes", async () => {
    const repo = makeFixtureRepo([{ date: '2026-01-05T10:00:00Z', files: SOURCES }]);
    const caches = makeTempDir('aiwg-index-pieces-');
    const config = ConfigSchema.parse({ relevance_scoring: { scoring_method: 'keyword' }, tokenizer: 'o200k', cache: { dir: caches.root } });
    const index = createRepoIndex({ root: repo.root, config });
    try {
      await index.query({ task: 'fix the retry backoff' });
      const stored = () => openPieceCounts(pieceCountsPath(caches.root, 'o200k'));
      // fewer new pieces than a batch: they wait in memory (the next query counts them from there)
      expect((await stored()).remembered).toBe(0);
      // a new file and a new task: pieces no query counted before
      const lines = Array.from({ length: 40 }, (_, i) => `  const bracket${i} = Math.round(income * 0.${2137 + i}); // bracket ${i} of the quarterly estimate\n`);
      writeFileSync(join(repo.root, 'src/billing/tax.ts'), `export function quarterlyTaxEstimate(income: number) {\n${lines.join('')}  return income;\n}\n`);
      const second = await index.query({ task: 'estimate the quarterly tax of an invoice with unusual rounding' });
      expect(second.rendered).toContain(lines[7]);
      expect((await stored()).remembered).toBe(0);
      await index.close();
      // closing writes what both queries counted, the new file's lines among it
      const after = await stored();
      expect(after.remembered).toBeGreaterThan(0);
      expect(after.get(lines[7] as string)).toBeGreaterThan(0);
    } finally {
      await index.close();
      repo.cleanup();
      caches.cleanup();
    }
  }, 120_000);
});
