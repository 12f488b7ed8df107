import { existsSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBootFacts } from '../../src/assemble/run-boot-facts.js';
import { repositoryCacheDir, resolveCacheDir, resolveSummaryCacheDir } from '../../src/cache/cache-dir.js';
import { createCollectStage } from '../../src/collect/collect-files.js';
import { diskFactStore } from '../../src/collect/collect-ports.js';
import { ConfigSchema, type Config } from '../../src/config/schema.js';
import { makeFixtureRepo, makeTempDir, type Fixture } from '../helpers/fixture-repo.js';
import { runCli, testContext } from '../helpers/fakes.js';
import { runBin } from '../helpers/run-bin.js';

/**
 * Without cache.dir the caches of a root in a git repository live in the repository's common git
 * directory, which every worktree of it shares: a new worktree starts from the index the others
 * built, and reads only the files whose content is new to the repository.
 */
const defaults: Config = ConfigSchema.parse({});

/** The paths a collect of `root` under `config` read as content new to its cache, sorted. */
async function newContentOf(root: string, config: Config): Promise<{ paths: string[]; newContent: string[] }> {
  const context = testContext({ config, nowMs: Date.now() });
  const newContent: string[] = [];
  context.onNewContent = (file) => newContent.push(file.path);
  const result = await createCollectStage({ factStore: diskFactStore })({ root }, context);
  return { paths: result.files.map((f) => f.path).sort(), newContent: newContent.sort() };
}

/** What a context is made of: every tier's files, levels and tokens, and the exclusions. */
function chosen(stdout: string): { allocation: unknown; excluded: unknown } {
  const record = JSON.parse(stdout) as { allocation: unknown; excluded: unknown };
  return { allocation: record.allocation, excluded: record.excluded };
}

describe('the repository cache (default cache location)', () => {
  let repo: Fixture;
  let other: Fixture;
  let worktree: string;
  let common: string;

  beforeAll(() => {
    repo = makeFixtureRepo([
      { date: '2026-01-05T10:00:00Z', files: { 'src/a.ts': 'export const a = 1;\n', 'src/b.ts': 'export const b = 2;\n', 'README.md': '# demo\n' } },
      { date: '2026-01-06T10:00:00Z', files: { 'src/b.ts': 'export const b = 3; // the newer b\n' } },
    ]);
    other = makeTempDir('aiwg-worktrees-');
    worktree = join(realpathSync(other.root), 'older');
    repo.git('worktree', 'add', '-q', '--detach', worktree, 'HEAD~1');
    common = join(realpathSync(repo.root), '.git');
  });
  afterAll(() => {
    repo.cleanup();
    other.cleanup();
  });

  it('is <common git dir>/aiwg-context for the main worktree and every linked one', () => {
    const root = realpathSync(repo.root);
    expect(repositoryCacheDir(root)).toBe(join(common, 'aiwg-context'));
    expect(repositoryCacheDir(worktree)).toBe(join(common, 'aiwg-context'));
    expect(resolveCacheDir(worktree, defaults)).toBe(join(common, 'aiwg-context'));
    expect(resolveSummaryCacheDir(worktree, defaults)).toBe(join(common, 'aiwg-context', 'summaries'));
    // the header names it the same way from every worktree
    const hints = (at: string) => runBootFacts({ root: at, config: defaults, runId: 'r' }).cacheHints;
    expect(hints(worktree)).toEqual(['<git common dir>/aiwg-context/summaries/ (summaries by content hash)']);
    expect(hints(root)).toEqual(hints(worktree));
  });

  it('keeps <root>/.aiwg/rag/ outside a repository, below its top level, and where the user chose a place', () => {
    const plain = makeTempDir('aiwg-plain-');
    try {
      expect(repositoryCacheDir(plain.root)).toBeUndefined();
      expect(resolveCacheDir(plain.root, defaults)).toBe(join(plain.root, '.aiwg', 'rag'));
      expect(resolveSummaryCacheDir(plain.root, defaults)).toBe(join(plain.root, '.aiwg', 'rag', 'summaries'));
    } finally {
      plain.cleanup();
    }
    // nothing above the root is looked at
    const below = join(realpathSync(repo.root), 'src');
    expect(resolveCacheDir(below, defaults)).toBe(join(below, '.aiwg', 'rag'));
    // cache.dir, and a summary cache_path of the user's own, win
    const root = realpathSync(repo.root);
    expect(resolveCacheDir(root, ConfigSchema.parse({ cache: { dir: '/tmp/elsewhere' } }))).toBe('/tmp/elsewhere');
    const ownPath = ConfigSchema.parse({ summarization: { caching: { cache_path: 'my-summaries/' } } });
    expect(resolveSummaryCacheDir(root, ownPath)).toBe(join(root, 'my-summaries'));
    expect(resolveCacheDir(root, ownPath)).toBe(join(common, 'aiwg-context'));
  });

  it('is not taken from a .git file that is no linked worktree\'s, a symlinked .git, nor a directory that is no git directory', () => {
    const fake = makeTempDir('aiwg-fake-git-');
    try {
      // a .git file naming the linked worktree's git directory, which names that worktree back
      const linked = repo.git('-C', worktree, 'rev-parse', '--absolute-git-dir').trim();
      writeFileSync(join(fake.root, '.git'), `gitdir: ${linked}\n`);
      expect(repositoryCacheDir(fake.root)).toBeUndefined();
      // a .git file naming a repository's own git directory (no worktree's: nothing names it back)
      const named = join(fake.root, 'named');
      mkdirSync(named);
      writeFileSync(join(named, '.git'), `gitdir: ${common}\n`);
      expect(repositoryCacheDir(named)).toBeUndefined();
      // a symlinked .git
      const linkedDir = join(fake.root, 'symlinked');
      mkdirSync(linkedDir);
      symlinkSync(common, join(linkedDir, '.git'));
      expect(repositoryCacheDir(linkedDir)).toBeUndefined();
      // a .git directory without HEAD and objects
      const bare = join(fake.root, 'sub');
      mkdirSync(join(bare, '.git'), { recursive: true });
      expect(repositoryCacheDir(bare)).toBeUndefined();
    } finally {
      fake.cleanup();
    }
  });

  it('a new worktree reads only the files whose content the repository has not indexed yet', async () => {
    const collect = (root: string) => newContentOf(root, defaults);
    const main = await collect(realpathSync(repo.root));
    expect(main.paths).toEqual(['README.md', 'src/a.ts', 'src/b.ts']);
    expect(main.newContent).toEqual(['README.md', 'src/a.ts', 'src/b.ts']);
    expect(existsSync(join(common, 'aiwg-context', 'index'))).toBe(true);
    // the worktree one commit back: only the older b.ts is content the repository has not seen
    const older = await collect(worktree);
    expect(older.paths).toEqual(['README.md', 'src/a.ts', 'src/b.ts']);
    expect(older.newContent).toEqual(['src/b.ts']);
    // nothing of the cache was written into either checkout
    expect(existsSync(join(worktree, '.aiwg', 'rag', 'index'))).toBe(false);
    expect(existsSync(join(repo.root, '.aiwg', 'rag', 'index'))).toBe(false);
  });

  it('aiwg cache, run in a linked worktree, shows and clears the repository cache', async () => {
    const index = join(common, 'aiwg-context', 'index');
    const stats = JSON.parse((await runCli(['cache', 'stats', '--json'], worktree)).stdout) as { caches: Array<{ name: string; dir: string; entries: number }> };
    const indexStats = stats.caches.find((c) => c.name === 'index');
    expect(indexStats).toMatchObject({ dir: index });
    expect(indexStats!.entries).toBeGreaterThan(0);
    expect((await runCli(['cache', 'clear'], worktree)).code).toBe(0);
    const after = JSON.parse((await runCli(['cache', 'stats', '--json'], realpathSync(repo.root))).stdout) as typeof stats;
    expect(after.caches.find((c) => c.name === 'index')?.entries ?? 0).toBe(0);
  });
});

describe('worktrees sharing the repository cache, their processes at once; clones sharing a cache.dir', () => {
  const TASK = 'fix the retry backoff of the http client';
  let repo: Fixture;
  let other: Fixture;

  beforeAll(() => {
    repo = makeFixtureRepo([
      {
        date: '2026-01-05T10:00:00Z',
        files: {
          'src/http/client.ts': "import { backoff } from './retry.js';\nexport function request(attempt: number) { return backoff(attempt); }\n",
          'src/http/retry.ts': 'export function backoff(attempt: number) { return 2 ** attempt * 100; }\n',
          'src/billing/invoice.ts': 'export function invoiceTotal(lines: number[]) { return lines.reduce((a, b) => a + b, 0); }\n',
          'docs/http.md': '# HTTP\n\nThe client retries with an exponential backoff.\n',
        },
      },
      { date: '2026-01-06T10:00:00Z', files: { 'src/http/retry.ts': 'export function backoff(attempt: number) { return Math.min(2 ** attempt * 100, 5000); }\n' } },
      { date: '2026-01-07T10:00:00Z', files: { 'src/http/timeout.ts': 'export const TIMEOUT_MS = 30_000;\n', 'src/http/retry.ts': null } },
    ]);
    other = makeTempDir('aiwg-worktrees-');
  });
  afterAll(() => {
    repo.cleanup();
    other.cleanup();
  });

  it('each prints the context a cold run on its own tree prints, round after round', async () => {
    const main = realpathSync(repo.root);
    const worktrees = [main];
    for (const back of [1, 2]) {
      const path = join(realpathSync(other.root), `back-${back}`);
      repo.git('worktree', 'add', '-q', '--detach', path, `HEAD~${back}`);
      worktrees.push(path);
    }
    const args = ['context-budget', TASK, '--json', '--no-record'];
    // the reference: each tree cold, with a cache of its own
    const cold = await Promise.all(worktrees.map((at, i) => runBin(args, at, { AIWG_CACHE_DIR: join(other.root, `cold-${i}`) })));
    for (const run of cold) expect(run.code, run.stderr).toBe(0);
    for (let round = 0; round < 2; round++) {
      const runs = await Promise.all(worktrees.map((at) => runBin(args, at)));
      runs.forEach((run, i) => {
        expect(run.code, run.stderr).toBe(0);
        expect(chosen(run.stdout)).toEqual(chosen(cold[i]!.stdout));
      });
    }
    expect(existsSync(join(main, '.git', 'aiwg-context', 'index'))).toBe(true);
    for (const at of worktrees) expect(existsSync(join(at, '.aiwg', 'rag', 'index'))).toBe(false);
  }, 120_000);

  it('a new clone at another commit, sharing a cache.dir with another clone, reads only what the cache lacks and prints what a cold run prints', async () => {
    const shared = join(realpathSync(other.root), 'shared-cache');
    const config = ConfigSchema.parse({ cache: { dir: shared } });
    const clone = (name: string, back: number) => {
      const path = join(realpathSync(other.root), name);
      repo.git('clone', '-q', repo.root, path);
      repo.git('-C', path, 'checkout', '-q', '--detach', `HEAD~${back}`);
      return path;
    };
    const first = clone('clone-head', 0);
    expect((await newContentOf(first, config)).newContent).toEqual(['docs/http.md', 'src/billing/invoice.ts', 'src/http/client.ts', 'src/http/timeout.ts']);
    // a second clone one commit back: only its retry.ts is content the shared cache has not seen
    const second = clone('clone-back-1', 1);
    expect((await newContentOf(second, config)).newContent).toEqual(['src/http/retry.ts']);
    const args = ['context-budget', TASK, '--json', '--no-record'];
    for (const [i, at] of [first, second].entries()) {
      const cold = await runBin(args, at, { AIWG_CACHE_DIR: join(other.root, `clone-cold-${i}`) });
      const sharing = await runBin(args, at, { AIWG_CACHE_DIR: shared });
      expect(cold.code, cold.stderr).toBe(0);
      expect(sharing.code, sharing.stderr).toBe(0);
      expect(chosen(sharing.stdout)).toEqual(chosen(cold.stdout));
    }
    // cache.dir is where the caches went: the clones' own git directories hold none
    for (const at of [first, second]) expect(existsSync(join(at, '.git', 'aiwg-context'))).toBe(false);
  }, 120_000);
});
