import { existsSync, mkdirSync, readFileSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCollectStage } from '../../src/collect/collect-files.js';
import { gitBlobId } from '../../src/collect/read-candidate.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { emptyFactStore, factStorePath, FACT_STORE_VERSION, MAX_DELTA_SHARE, MAX_DELTAS, openFactStore, type FactStore } from '../../src/facts/fact-store.js';
import { ColumnText } from '../../src/facts/text-column.js';
import { makeFixtureRepo, makeTempDir, type Fixture } from '../helpers/fixture-repo.js';
import { testContext } from '../helpers/fakes.js';

/** A fact as plain data: a text fact loaded from a column (ColumnText) reads its text when asked. */
const plain = (value: unknown) => (value instanceof ColumnText ? { text: value.text, length: value.length } : value);

describe('fact store file', () => {
  let dir: Fixture;
  beforeAll(() => {
    dir = makeTempDir('aiwg-facts-');
  });
  afterAll(() => dir.cleanup());

  it('round-trips facts, collect facts, stat entries and commit times in one file', async () => {
    const path = join(dir.root, 'rt', 'facts.bin');
    const store = emptyFactStore(path);
    store.putFact('bm25-terms@1:', 'abc', { text: '\nretry\t2\n', length: 3 });
    store.putCollect('abc\0a.ts\x000', { lineCount: 4, hash: 'abc' });
    store.setStat('/repo', 'a.ts', { size: 10, mtimeMs: 1.5, ino: 7, blob: 'abc' });
    store.putCommitTimes('prefix:', { head: 'h1', times: new Map([['a.ts', 1000]]), reach: 3, recent: Buffer.from([1, 2, 3]) });
    expect(store.dirty).toBe(true);
    await store.save();
    expect(store.dirty).toBe(false);

    const again = await openFactStore(path);
    expect(again.corrupt).toBeUndefined();
    expect(plain(again.getFact('bm25-terms@1:', 'abc'))).toEqual({ text: '\nretry\t2\n', length: 3 });
    expect(again.getCollect('abc\0a.ts\x000')).toEqual({ lineCount: 4, hash: 'abc' });
    expect(again.stat('/repo', 'a.ts')).toEqual({ size: 10, mtimeMs: 1.5, ino: 7, blob: 'abc' });
    expect(again.commitTimes('prefix:')[0]?.times.get('a.ts')).toBe(1000);
    expect(again.commitTimes('prefix:')[0]?.reach).toBe(3);
    expect([...(again.commitTimes('prefix:')[0]?.recent ?? [])]).toEqual([1, 2, 3]);
    // the index directory ignores itself for git
    expect(readFileSync(join(dir.root, 'rt', '.gitignore'), 'utf8')).toContain('*');
  });

  const valid = async () => {
    const store = emptyFactStore(join(dir.root, 'valid', 'facts.bin'));
    store.putFact('k', 'h', 'value');
    await store.save();
    return readFileSync(store.path);
  };

  it.each([
    ['random bytes', () => Buffer.from('not an index at all, just text')],
    ['an empty file', () => Buffer.alloc(0)],
    ['a truncated file', (good: Buffer) => good.subarray(0, good.length - 5)],
    ['a flipped payload byte', (good: Buffer) => Buffer.from(good.map((b, i) => (i === good.length - 3 ? b ^ 0xff : b)))],
    ['another format version', (good: Buffer) => {
      const copy = Buffer.from(good);
      copy.writeUInt32LE(FACT_STORE_VERSION + 1, 8);
      return copy;
    }],
  ])('%s is a miss with a reason, never a crash', async (_name, damage) => {
    const path = join(dir.root, `bad-${_name.replace(/\W+/g, '-')}`, 'facts.bin');
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, damage(await valid()));
    const store = await openFactStore(path);
    expect(store.corrupt).toMatch(/\w/);
    expect(store.getFact('k', 'h')).toBeUndefined();
    // the next save replaces the damaged file with a good one
    await store.save();
    expect((await openFactStore(path)).corrupt).toBeUndefined();
  });
});

describe('fact store pruning (a map over its cap keeps what the process used)', () => {
  let dir: Fixture;
  beforeAll(() => {
    dir = makeTempDir('aiwg-facts-prune-');
  });
  afterAll(() => dir.cleanup());
  const limits = { maxEntriesPerMap: 10 };
  const KIND = 'bm25-terms@1:';
  const fact = (i: number) => ({ text: `\nw${i}\t1\n`, length: 1 });
  const keysIn = async (path: string) => {
    const store = await openFactStore(path, limits);
    return Array.from({ length: 40 }, (_, i) => `h${i}`).filter((h) => store.getFact(KIND, h) !== undefined);
  };

  /** A store of `count` facts (h0, h1, ...) written under a roomy cap, opened again under the small one. */
  const reopened = async (name: string, count: number): Promise<FactStore> => {
    const first = emptyFactStore(join(dir.root, name, 'facts.bin'), { maxEntriesPerMap: 100 });
    for (let i = 0; i < count; i++) first.putFact(KIND, `h${i}`, fact(i));
    await first.save();
    return openFactStore(first.path, limits);
  };

  it('keeps a copy of each fact put, equal to the value, never the value itself', () => {
    const store = emptyFactStore(join(dir.root, 'own', 'facts.bin'));
    const names = ['fetchWithRetry', 'loadConfig'];
    const value = { names, spans: [[1, 2]] };
    store.putFact('definitions@1:ts', 'abc', value);
    const kept = store.getFact('definitions@1:ts', 'abc') as typeof value;
    expect(kept).toEqual({ names: ['fetchWithRetry', 'loadConfig'], spans: [[1, 2]] });
    expect(kept).not.toBe(value);
    names.push('later');
    expect(kept.names).toEqual(['fetchWithRetry', 'loadConfig']);
  });

  it('a map loaded over the cap keeps only the entries this process read or wrote', async () => {
    const store = await reopened('loaded', 30);
    const path = store.path;
    for (const i of [3, 7, 11]) expect(plain(store.getFact(KIND, `h${i}`))).toEqual(fact(i));
    store.putFact(KIND, 'h31', fact(31));
    await store.save();
    expect(await keysIn(path)).toEqual(['h3', 'h7', 'h11', 'h31']);
  });

  it('a map that grows past the cap in one process keeps every entry it read before, and what it added', async () => {
    const store = await reopened('grown', 3);
    const path = store.path;
    // read while the map is small (nothing recorded yet), then grow it past the cap
    expect(plain(store.getFact(KIND, 'h1'))).toEqual(fact(1));
    for (let i = 10; i < 22; i++) store.putFact(KIND, `h${i}`, fact(i));
    await store.save();
    const kept = await keysIn(path);
    expect(kept).toContain('h1');
    for (let i = 10; i < 22; i++) expect(kept).toContain(`h${i}`);
  });
});

describe('fact store deltas', () => {
  let dir: Fixture;
  beforeAll(() => {
    dir = makeTempDir('aiwg-facts-delta-');
  });
  afterAll(() => dir.cleanup());

  const DELTA_MAGIC = Buffer.from('AIWGIDXD', 'latin1');
  const deltasIn = (path: string) => {
    const data = readFileSync(path);
    let n = 0;
    for (let at = data.indexOf(DELTA_MAGIC); at >= 0; at = data.indexOf(DELTA_MAGIC, at + 1)) n++;
    return n;
  };
  /** A store whose base holds `count` facts of ~200 bytes, saved and opened again. */
  const based = async (name: string, count = 200): Promise<FactStore> => {
    const path = join(dir.root, name, 'facts.bin');
    const store = emptyFactStore(path);
    for (let i = 0; i < count; i++) store.putFact('bm25-terms@1:', `base${i}`, { text: `\n${'word'.repeat(50)}${i}\t1\n`, length: 200 });
    store.setStat('/repo', 'gone.ts', { size: 1, mtimeMs: 1, ino: 1, ctimeMs: 1, blob: 'b0' });
    store.setStat('/repo', 'kept.ts', { size: 2, mtimeMs: 2, ino: 2, ctimeMs: 2, blob: 'b1' });
    await store.save();
    return openFactStore(path);
  };

  it('a save that adds a little appends one delta after the unchanged base; a reopen sees every change', async () => {
    const store = await based('append');
    const before = readFileSync(store.path);
    store.putFact('bm25-terms@1:', 'new', { text: '\nfresh\t1\n', length: 1 });
    store.putCollect('new\0a.ts\x000', { lineCount: 1, hash: 'new' });
    store.retainStats('/repo', new Set(['kept.ts']));
    store.setStat('/repo', 'added.ts', { size: 3, mtimeMs: 3, ino: 3, ctimeMs: 3, blob: 'b2' });
    store.putCommitTimes('prefix:', { head: 'h2', times: new Map([['a.ts', 2000]]) });
    await store.save();
    const after = readFileSync(store.path);
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
    expect(deltasIn(store.path)).toBe(1);

    const again = await openFactStore(store.path);
    expect(again.corrupt).toBeUndefined();
    expect(plain(again.getFact('bm25-terms@1:', 'base7'))).toEqual({ text: `\n${'word'.repeat(50)}7\t1\n`, length: 200 });
    expect(plain(again.getFact('bm25-terms@1:', 'new'))).toEqual({ text: '\nfresh\t1\n', length: 1 });
    expect(again.getCollect('new\0a.ts\x000')).toEqual({ lineCount: 1, hash: 'new' });
    expect(again.stat('/repo', 'gone.ts')).toBeUndefined();
    expect(again.stat('/repo', 'kept.ts')?.blob).toBe('b1');
    expect(again.stat('/repo', 'added.ts')?.blob).toBe('b2');
    expect(again.commitTimes('prefix:')[0]?.times.get('a.ts')).toBe(2000);
    // nothing changed: nothing written
    await again.save();
    expect(readFileSync(store.path).equals(after)).toBe(true);
  });

  it(`deltas that would outgrow ${MAX_DELTA_SHARE} of the base rewrite the whole store as one base`, async () => {
    const store = await based('outgrow', 20);
    const base = statSync(store.path).size;
    for (let i = 0; i < 40; i++) store.putFact('bm25-terms@1:', `more${i}`, { text: 'x'.repeat(200), length: 200 });
    await store.save();
    expect(deltasIn(store.path)).toBe(0);
    expect(statSync(store.path).size).toBeGreaterThan(base);
    const again = await openFactStore(store.path);
    expect(plain(again.getFact('bm25-terms@1:', 'more39'))).toEqual({ text: 'x'.repeat(200), length: 200 });
    expect(again.getFact('bm25-terms@1:', 'base19')).toBeDefined();
  });

  it(`after MAX_DELTAS deltas (${MAX_DELTAS}) the next save rewrites the whole store, also when a later process counts them`, async () => {
    const store = await based('many', 2000);
    for (let i = 0; i < MAX_DELTAS - 1; i++) {
      store.putFact('k', `small${i}`, i);
      await store.save();
    }
    expect(deltasIn(store.path)).toBe(MAX_DELTAS - 1);
    // another process reads them all, appends the last one the bound allows, then rewrites
    const later = await openFactStore(store.path);
    later.putFact('k', 'last', -1);
    await later.save();
    expect(deltasIn(store.path)).toBe(MAX_DELTAS);
    later.putFact('k', 'over', -2);
    await later.save();
    expect(deltasIn(store.path)).toBe(0);
    const again = await openFactStore(store.path);
    expect([again.getFact('k', 'small0'), again.getFact('k', 'last'), again.getFact('k', 'over'), again.getFact('bm25-terms@1:', 'base1999')].map(plain)).toEqual([0, -1, -2, { text: `\n${'word'.repeat(50)}1999\t1\n`, length: 200 }]);
  });

  it('two processes appending to one store keep both deltas', async () => {
    const first = await based('two');
    const second = await openFactStore(first.path);
    first.putFact('k', 'from-first', 1);
    second.putFact('k', 'from-second', 2);
    await Promise.all([first.save(), second.save()]);
    expect(deltasIn(first.path)).toBe(2);
    const again = await openFactStore(first.path);
    expect([again.getFact('k', 'from-first'), again.getFact('k', 'from-second')]).toEqual([1, 2]);
  });

  it('a store another process rewrote meanwhile is rewritten, not appended to', async () => {
    const first = await based('rewritten', 20);
    const second = await openFactStore(first.path);
    for (let i = 0; i < 40; i++) second.putFact('k', `big${i}`, 'y'.repeat(200));
    await second.save();
    first.putFact('k', 'small', 1);
    await first.save();
    expect(deltasIn(first.path)).toBe(0);
    expect((await openFactStore(first.path)).getFact('k', 'small')).toBe(1);
  });

  it.each([
    ['a torn last delta (a write cut short)', (path: string) => truncateSync(path, statSync(path).size - 5), [true, false]],
    ['a flipped byte in the first of two deltas', (path: string, firstDeltaAt: number) => {
      const data = readFileSync(path);
      data[firstDeltaAt + 30] ^= 0xff;
      writeFileSync(path, data);
    }, [false, true]],
  ] as const)('%s is skipped: the base and the other delta still count, and the next save rewrites the file', async (_name, damage, expected) => {
    const store = await based(`damaged-${_name.replace(/\W+/g, '-')}`);
    store.putFact('k', 'first', 1);
    await store.save();
    const firstDeltaAt = readFileSync(store.path).indexOf(DELTA_MAGIC);
    store.putFact('k', 'second', 2);
    await store.save();
    expect(deltasIn(store.path)).toBe(2);
    damage(store.path, firstDeltaAt);

    const again = await openFactStore(store.path);
    expect(again.corrupt).toBeUndefined();
    expect(again.getFact('bm25-terms@1:', 'base0')).toBeDefined();
    expect([again.getFact('k', 'first') !== undefined, again.getFact('k', 'second') !== undefined]).toEqual(expected);
    again.putFact('k', 'third', 3);
    await again.save();
    expect(deltasIn(store.path)).toBe(0);
    const rewritten = await openFactStore(store.path);
    expect(rewritten.getFact('k', 'third')).toBe(3);
  });
});

function settle(root: string, paths: string[]): void {
  const past = Date.now() / 1000 - 60;
  for (const path of paths) utimesSync(join(root, path), past, past);
}

describe('collect through the fact store', () => {
  let repo: Fixture;
  let caches: Fixture;
  const files = {
    'src/a.ts': "import { b } from './b.js';\nexport const a = b + 1; // see @src/b.ts\n",
    'src/b.ts': 'export const b = 1;\n',
    'src/c.py': 'import os\nprint(os.name)\n',
    'README.md': '# demo\n',
  };
  beforeAll(() => {
    repo = makeFixtureRepo([
      { date: '2026-01-01T00:00:00Z', files },
      { date: '2026-01-02T00:00:00Z', files: { 'src/b.ts': 'export const b = 2;\n' } },
    ]);
    caches = makeTempDir('aiwg-collect-caches-');
  });
  afterAll(() => {
    repo.cleanup();
    caches.cleanup();
  });

  /** The real file system, counting what is read and what the run is told of (onNewContent). */
  async function countingCollect(root: string, cacheDir: string) {
    const { nodeFs, diskFactStore } = await import('../../src/collect/collect-ports.js');
    const real = nodeFs();
    const read: string[] = [];
    const statted: string[] = [];
    const fs = {
      ...real,
      readFile: async (path: string) => {
        read.push(path.slice(root.length + 1));
        return real.readFile(path);
      },
      lstat: async (path: string) => (statted.push(path.slice(root.length + 1)), real.lstat(path)),
    };
    const context = testContext({ config: ConfigSchema.parse({ cache: { dir: cacheDir } }), nowMs: Date.now() });
    const newContent: string[] = [];
    const sizes: string[] = [];
    context.onNewContent = (file) => {
      newContent.push(file.path);
      sizes.push(`${file.path}:${file.content.length}`);
    };
    const result = await createCollectStage({ fs, factStore: diskFactStore })({ root }, context);
    return { result, read: read.sort(), statted: statted.sort(), newContent: newContent.sort(), sizes: sizes.sort(), warnings: result.warnings };
  }

  it('says new content is coming from git\'s index alone, before git status answers and before any file is read; a warm run does not', async () => {
    const { nodeFs, diskFactStore, execGit } = await import('../../src/collect/collect-ports.js');
    const cacheDir = join(caches.root, 'ahead');
    // `pauseMs`: how long git status waits for the run to be told before it answers anyway
    const run = async (pauseMs: number) => {
      const events: string[] = [];
      const real = execGit();
      let told: () => void = () => undefined;
      const toldOrLate = new Promise<void>((resolve) => {
        told = resolve;
        setTimeout(resolve, pauseMs).unref();
      });
      // git status answers only once the run has been told (or the pause is over)
      const git = {
        ...real,
        run: async (args: string[], cwd: string) => {
          const output = await real.run(args, cwd);
          if (args[0] === 'status') await toldOrLate;
          return output;
        },
      };
      const fs = nodeFs();
      const context = testContext({ config: ConfigSchema.parse({ cache: { dir: cacheDir } }), nowMs: Date.now() });
      context.onNewContentAhead = () => {
        events.push('ahead');
        told();
      };
      context.onNewContent = (file) => void events.push(`read ${file.path}`);
      await createCollectStage({ fs: { ...fs, readFile: async (path: string) => (events.push('read'), fs.readFile(path)) }, git, factStore: diskFactStore })({ root: repo.root }, context);
      return events;
    };
    // cold: status answers only once told (the generous pause only ends a broken run)
    const cold = await run(20_000);
    expect(cold[0]).toBe('ahead');
    expect(cold.filter((e) => e === 'ahead')).toHaveLength(1);
    expect(cold.filter((e) => e.startsWith('read ')).length).toBeGreaterThan(0);
    // warm: never told; status answers after a pause long enough for the check to look at every file
    expect(await run(300)).toEqual([]);
  });

  it('answers the tracked files whose blobs it knows while git status runs, and reads what status then names as changed', async () => {
    const { nodeFs, diskFactStore, execGit } = await import('../../src/collect/collect-ports.js');
    const cacheDir = join(caches.root, 'early');
    await countingCollect(repo.root, cacheDir);
    repo.write('src/b.ts', 'export const b = 3; // changed after the index was built\n');
    settle(repo.root, ['src/b.ts']);
    const real = execGit();
    const fs = nodeFs();
    const looked: string[] = [];
    let statusAnswered = false;
    let lookedBeforeStatus = 0;
    const git = {
      ...real,
      run: async (args: string[], cwd: string) => {
        const output = await real.run(args, cwd);
        if (args[0] === 'status') {
          // status answers once the known files were looked at (the generous pause only ends a broken run)
          for (let waited = 0; looked.length < 3 && waited < 20_000; waited += 10) await new Promise((next) => setTimeout(next, 10));
          lookedBeforeStatus = looked.length;
          statusAnswered = true;
        }
        return output;
      },
    };
    const read: string[] = [];
    const counting = { ...fs, readFile: async (path: string) => (read.push(path.slice(repo.root.length + 1)), fs.readFile(path)) };
    // a known file is answered from its blob's facts: the lookups before status answered are counted
    const factStore: typeof diskFactStore = async (...args) => {
      const store = await diskFactStore(...args);
      return new Proxy(store, {
        get: (target, key) => {
          if (key === 'getCollect') return (factKey: string) => (statusAnswered ? undefined : looked.push(factKey), target.getCollect(factKey));
          const value: unknown = Reflect.get(target, key);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    };
    const context = testContext({ config: ConfigSchema.parse({ cache: { dir: cacheDir } }), nowMs: Date.now() });
    const result = await createCollectStage({ fs: counting, git, factStore })({ root: repo.root }, context);
    expect(lookedBeforeStatus).toBeGreaterThanOrEqual(3);
    // the changed file is read by its content, though its index blob was known
    expect(read).toEqual(['src/b.ts']);
    expect(result.files.find((f) => f.path === 'src/b.ts')?.content).toBe('export const b = 3; // changed after the index was built\n');
    expect(result.git.dirty.has('src/b.ts')).toBe(true);
    repo.git('checkout', '--', 'src/b.ts');
  });

  it('re-reads a file changed within the racy window on every run until it settles, as content it knows', async () => {
    const cache = join(caches.root, 'racy');
    repo.write('fresh.md', '# just written\n');
    expect((await countingCollect(repo.root, cache)).newContent).toContain('fresh.md');
    const again = await countingCollect(repo.root, cache);
    expect(again.read).toEqual(['fresh.md']);
    // its blob's facts are known: the run is not told of new content (nothing to embed or outline ahead)
    expect(again.newContent).toEqual([]);
    expect(again.result.files.find((f) => f.path === 'fresh.md')?.content).toBe('# just written\n');
    settle(repo.root, ['fresh.md']);
    await countingCollect(repo.root, cache);
    expect((await countingCollect(repo.root, cache)).read).toEqual([]);
    rmSync(join(repo.root, 'fresh.md'));
  });

  it('reads every file once, then nothing unchanged', async () => {
    const cache = join(caches.root, 'one');
    const cold = await countingCollect(repo.root, cache);
    expect(cold.read).toEqual(['README.md', 'src/a.ts', 'src/b.ts', 'src/c.py']);
    const warm = await countingCollect(repo.root, cache);
    expect(warm.read).toEqual([]);
    // git status vouches for the tracked files, and their facts know their size: no stat either
    expect(warm.statted).toEqual([]);
    // the mtime of each is looked up when asked for, and is the file's
    expect(warm.result.files).toEqual(cold.result.files);
    repo.write('src/c.py', 'import sys\nprint(sys.argv)\n');
    repo.write('new.md', '# new\n');
    // written a minute ago: a stat taken in the same instant as a write is not trusted (racy), one older is
    settle(repo.root, ['src/c.py', 'new.md']);
    const edited = await countingCollect(repo.root, cache);
    expect(edited.read).toEqual(['new.md', 'src/c.py']);
    // the run is told of each file with new content (and given it), and a warm run of none
    expect(cold.sizes).toEqual(Object.keys(files).sort().map((path) => `${path}:${files[path as keyof typeof files].length}`));
    expect(cold.newContent).toEqual(cold.read);
    expect(warm.newContent).toEqual([]);
    expect(edited.newContent).toEqual(['new.md', 'src/c.py']);
    expect(edited.sizes).toEqual([`new.md:${'# new\n'.length}`, `src/c.py:${'import sys\nprint(sys.argv)\n'.length}`]);
    expect((await countingCollect(repo.root, cache)).read).toEqual([]);
  });

  it('hands a file it read cold on as a known blob: its text, redacted, is read again only when a stage asks', async () => {
    const { nodeFs, diskFactStore } = await import('../../src/collect/collect-ports.js');
    const { SECRETS } = await import('../helpers/secret-fixture.js');
    const withKey = makeFixtureRepo([{ date: '2026-01-01T00:00:00Z', files: { 'src/keys.ts': `export const token = '${SECRETS.github}';\n`, 'src/plain.ts': 'export const plain = 1;\n' } }]);
    try {
      const real = nodeFs();
      const readLater: string[] = [];
      const fs = { ...real, readFileSync: (path: string) => (readLater.push(path.slice(withKey.root.length + 1)), real.readFileSync!(path)) };
      const context = testContext({ config: ConfigSchema.parse({ cache: { dir: join(caches.root, 'cold-lazy') } }), nowMs: Date.now() });
      const told: string[] = [];
      // the run is told of new content with its text in hand
      context.onNewContent = (file) => told.push(file.content);
      const result = await createCollectStage({ fs, factStore: diskFactStore })({ root: withKey.root }, context);
      expect(told).toHaveLength(2);
      expect(told).toContain('export const plain = 1;\n');
      expect(readLater).toEqual([]);
      const keys = result.files.find((f) => f.path === 'src/keys.ts')!;
      expect(keys.content).not.toContain(SECRETS.github);
      expect(keys.content).toBe(told.find((t) => t.includes('token'))!);
      expect(readLater).toEqual(['src/keys.ts']);
      // read once, then kept
      expect(keys.content.length).toBeGreaterThan(0);
      expect(readLater).toEqual(['src/keys.ts']);
    } finally {
      withKey.cleanup();
    }
  });

  it('a sparse entry (skip-worktree, no file on disk) is no candidate, and an assume-unchanged file is read from disk', async () => {
    const cache = join(caches.root, 'index-flags');
    await countingCollect(repo.root, cache);
    // the working tree as the tests before left it, put back after
    const before = Object.fromEntries(['src/c.py', 'src/a.ts'].map((path) => [path, readFileSync(join(repo.root, path), 'utf8')]));
    repo.git('update-index', '--skip-worktree', 'src/c.py');
    rmSync(join(repo.root, 'src/c.py'));
    repo.git('update-index', '--assume-unchanged', 'src/a.ts');
    repo.write('src/a.ts', 'export const a = "edited where git status does not look";\n');
    settle(repo.root, ['src/a.ts']);
    try {
      const run = await countingCollect(repo.root, cache);
      expect(run.result.files.map((f) => f.path)).not.toContain('src/c.py');
      const edited = run.result.files.find((f) => f.path === 'src/a.ts');
      expect(edited?.content).toBe('export const a = "edited where git status does not look";\n');
      expect(edited?.hash).toBe(gitBlobId(Buffer.from(edited!.content)));
      expect(run.read).toEqual(['src/a.ts']);
    } finally {
      repo.git('update-index', '--no-skip-worktree', 'src/c.py');
      repo.git('update-index', '--no-assume-unchanged', 'src/a.ts');
      for (const [path, text] of Object.entries(before)) repo.write(path, text);
      settle(repo.root, Object.keys(before));
    }
  });

  it('a corrupt index is a miss: everything is read again, the result is the cold one, and it is rebuilt', async () => {
    const cache = join(caches.root, 'corrupt');
    const cold = await countingCollect(repo.root, cache);
    writeFileSync(factStorePath(cache), 'garbage');
    const again = await countingCollect(repo.root, cache);
    expect(again.result.files).toEqual(cold.result.files);
    expect(again.read).toEqual(cold.read);
    expect(again.warnings.join('\n')).toMatch(/index .* was ignored \(not an aiwg index file\)/);
    expect((await countingCollect(repo.root, cache)).read).toEqual([]);
  });

  it('an index path that cannot be written is a warning, not a failure', async () => {
    const cache = join(caches.root, 'blocked');
    mkdirSync(factStorePath(cache), { recursive: true });
    const run = await countingCollect(repo.root, cache);
    expect(run.result.files.map((f) => f.path)).toContain('src/a.ts');
    expect(run.warnings.join('\n')).toMatch(/could not be saved/);
  });

  it('a new checkout at another commit reuses facts by blob id: only blobs that differ are read', async () => {
    const cache = join(caches.root, 'shared');
    await countingCollect(repo.root, cache);
    const clone = makeTempDir('aiwg-clone-');
    try {
      clone.git('clone', '-q', repo.root, join(clone.root, 'co'));
      const root = join(clone.root, 'co');
      clone.git('-C', root, 'checkout', '-q', 'HEAD~1');
      const run = await countingCollect(root, cache);
      // HEAD~1 differs from the indexed working tree in src/b.ts (older commit) and src/c.py (edited, uncommitted, there)
      expect(run.read).toEqual(['src/b.ts', 'src/c.py']);
      expect(run.result.files.find((f) => f.path === 'src/b.ts')?.content).toBe(files['src/b.ts']);
      expect(existsSync(factStorePath(cache))).toBe(true);
    } finally {
      clone.cleanup();
    }
  });
});
