import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigSchema, type ConfigInput } from '../../src/config/schema.js';
import { createLevelsStage } from '../../src/summarize/levels-stage.js';
import { CACHE_MARKER } from '../../src/cache/disk-cache.js';
import { createFileLevels } from '../../src/summarize/file-levels.js';
import { createSyntaxEngine, type SyntaxEngine } from '../../src/summarize/syntax/engine.js';
import type { CandidateFile } from '../../src/types.js';
import { fakeClock, memoryCache, testContext } from '../helpers/fakes.js';

const HOUR = 3_600_000;

function file(path: string, content: string): CandidateFile {
  return {
    path,
    content,
    size: Buffer.byteLength(content),
    mtimeMs: Date.UTC(2026, 0, 2),
    hash: createHash('sha256').update(content).digest('hex'),
    lineCount: content.split('\n').length,
  };
}

const SOURCE = `/** Adds numbers. */\nexport function add(a: number, b: number): number {\n  const sum = a + b;\n  return sum;\n}\n\nfunction hidden(): void {\n  console.log('x');\n  console.log('y');\n}\n`;

/** A syntax engine that counts the trees and outlines asked of it: a warm run must not ask for any. */
function countingSyntax(): SyntaxEngine & { parses: number; expected: string[] } {
  const real = createSyntaxEngine();
  const counting = {
    parses: 0,
    expected: [] as string[],
    expect: ((path) => void counting.expected.push(path)) as SyntaxEngine['expect'],
    withTree: ((language, content, use) => {
      counting.parses += 1;
      return real.withTree(language, content, use);
    }) as SyntaxEngine['withTree'],
    outline: ((language, content) => {
      counting.parses += 1;
      return real.outline(language, content);
    }) as SyntaxEngine['outline'],
    prefetch: real.prefetch,
    save: real.save,
    blockCounts: real.blockCounts,
  };
  return counting;
}

function setup(input: ConfigInput = {}) {
  const root = mkdtempSync(join(tmpdir(), 'aiwg-levels-'));
  const config = ConfigSchema.parse(input);
  const clock = fakeClock();
  const ctx = () => testContext({ config });
  return { root, config, clock, ctx };
}

describe('createLevelsStage', () => {
  it('returns the four levels of every file, sorted by path, and a warm stage reads them from disk', async () => {
    const { root, config, clock, ctx } = setup();
    const files = [file('src/z.ts', SOURCE), file('src/a.ts', SOURCE.replace('add', 'plus')), file('README.md', '# Demo\n\nA demo.\n')];
    const input = { root, files, lastModifiedMs: new Map([['src/z.ts', Date.UTC(2025, 5, 1)]]) };
    const cold = countingSyntax();
    const first = await createLevelsStage({ root, config }, { syntax: cold, now: clock.now })(input, ctx());
    expect([...first.keys()]).toEqual(['README.md', 'src/a.ts', 'src/z.ts']);
    expect(first.get('src/z.ts')!.map((l) => l.level)).toEqual(['full', 'detailed', 'summary', 'stub']);
    expect(first.get('src/z.ts')![3]!.content).toContain('last modified: 2025-06-01T00:00:00Z');
    expect(first.get('src/a.ts')![3]!.content).toContain('last modified: 2026-01-02T00:00:00Z');
    expect(cold.parses).toBe(2);
    // Namespaces, beside the marker that tells `aiwg cache clear` the directory is ours.
    expect(readdirSync(join(root, '.aiwg', 'rag', 'summaries')).sort()).toEqual([CACHE_MARKER, 'detailed']);
    // The detailed entry, keyed by content, carries the file's token count and its local summary:
    // no token-count entry, no summary entry (one write and one read per file).
    expect(existsSync(join(root, '.aiwg', 'rag', 'tokens'))).toBe(false);

    const warm = countingSyntax();
    const second = await createLevelsStage({ root, config }, { syntax: warm, now: clock.now })(input, ctx());
    expect(second).toEqual(first);
    expect(warm.parses).toBe(0);
  });

  it('told of new content, gets its syntax engine ready for it; with summarization off it parses nothing, so it does not', async () => {
    const { root, config } = setup();
    const syntax = countingSyntax();
    const stage = createLevelsStage({ root, config }, { syntax });
    stage.newContent!(file('src/z.ts', SOURCE));
    stage.newContent!(file('README.md', '# Demo\n'));
    expect(syntax.expected).toEqual(['src/z.ts', 'README.md']);
    expect(syntax.parses).toBe(0);
    const off = countingSyntax();
    createLevelsStage({ root, config: ConfigSchema.parse({ summarization: { enabled: false } }) }, { syntax: off }).newContent!(file('src/z.ts', SOURCE));
    expect(off.expected).toEqual([]);
  });

  it('settle waits for the outline blocks a one-shot stage is keeping; a long-lived stage lets them go on', async () => {
    const { root, config, ctx } = setup();
    const input = { root, files: [file('src/z.ts', SOURCE)], lastModifiedMs: new Map<string, number>() };
    let release!: () => void;
    const saved = new Promise<void>((resolve) => (release = resolve));
    const oneShot = createLevelsStage({ root, config }, { syntax: { ...countingSyntax(), save: () => saved } });
    await oneShot(input, ctx());
    let settled = false;
    const settling = oneShot.settle!().then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    release();
    await settling;
    expect(settled).toBe(true);
    // a save that never ends does not hold a long-lived stage's runs
    const longLived = createLevelsStage({ root, config, longLived: true }, { syntax: { ...countingSyntax(), save: () => new Promise<void>(() => undefined) } });
    await longLived(input, ctx());
    await longLived.settle!();
  });

  it('a long-lived stage writes its entries behind its answer, and a later stage reads them warm', async () => {
    const { root, config, clock, ctx } = setup();
    const input = { root, files: [file('src/z.ts', SOURCE), file('src/a.ts', SOURCE.replace('add', 'plus'))], lastModifiedMs: new Map<string, number>() };
    const first = await createLevelsStage({ root, config, longLived: true }, { now: clock.now })(input, ctx());
    // the writes are on the thread pool: wait for both entries (no temp file left beside them)
    const entries = () => readdirSync(join(root, '.aiwg', 'rag', 'summaries', 'detailed'), { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.json'));
    for (let i = 0; i < 200 && entries().length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(entries()).toHaveLength(2);
    const warm = countingSyntax();
    expect(await createLevelsStage({ root, config }, { syntax: warm, now: clock.now })(input, ctx())).toEqual(first);
    expect(warm.parses).toBe(0);
  });

  it('a summary of its own is read when the detailed entry carries none (written before, or for another summary limit)', async () => {
    const { config, ctx } = setup();
    const caches = { summaryCache: memoryCache(), tokenCache: memoryCache() };
    const f = file('a.ts', SOURCE);
    const first = await createFileLevels(config, { syntax: createSyntaxEngine(), ...caches })(f, 0, ctx());
    // another summary limit: the detailed entry is served, its summary is not the one asked for
    const other = ConfigSchema.parse({ summarization: { levels: { summary: { token_limit: 40 } } } });
    const second = await createFileLevels(other, { syntax: createSyntaxEngine(), ...caches })(f, 0, ctx());
    expect(second.cached).toEqual({ full: true, detailed: true, summary: false, stub: false });
    expect(second.levels[2]!.tokens).toBeLessThanOrEqual(40);
    // that summary went to an entry of its own, read by the next run with that limit
    const third = await createFileLevels(other, { syntax: createSyntaxEngine(), ...caches })(f, 0, ctx());
    expect(third.cached.summary).toBe(true);
    expect(third.levels).toEqual(second.levels);
    expect((await createFileLevels(config, { syntax: createSyntaxEngine(), ...caches })(f, 0, ctx())).levels).toEqual(first.levels);
  });

  it('reports which levels came from the cache', async () => {
    const { config, ctx } = setup();
    const caches = { summaryCache: memoryCache(), tokenCache: memoryCache() };
    const build = () => createFileLevels(config, { syntax: createSyntaxEngine(), ...caches });
    const f = file('a.ts', SOURCE);
    expect((await build()(f, 0, ctx())).cached).toEqual({ full: false, detailed: false, summary: false, stub: false });
    expect((await build()(f, 0, ctx())).cached).toEqual({ full: true, detailed: true, summary: true, stub: false });
  });

  it('invalidate_on_change: changed content is a miss; off, the old entry is served by path', async () => {
    for (const invalidate of [true, false]) {
      const { config, ctx } = setup({ summarization: { caching: { invalidate_on_change: invalidate } } });
      const caches = { summaryCache: memoryCache(), tokenCache: memoryCache() };
      const build = createFileLevels(config, { syntax: createSyntaxEngine(), ...caches });
      await build(file('a.ts', SOURCE), 0, ctx());
      const changed = await build(file('a.ts', SOURCE.replace('add', 'sum')), 0, ctx());
      expect(changed.cached.detailed).toBe(!invalidate);
      expect(changed.levels[1]!.content.includes('function sum')).toBe(invalidate);
      // The full level is always the file as it is now.
      expect(changed.levels[0]!.content).toContain('function sum');
    }
  });

  it('max_age_hours: entries older than the limit are recomputed (fake clock)', async () => {
    const { root, config, clock, ctx } = setup({ summarization: { caching: { max_age_hours: 24 } } });
    const input = { root, files: [file('a.ts', SOURCE)], lastModifiedMs: new Map() };
    await createLevelsStage({ root, config }, { now: clock.now })(input, ctx());
    clock.advance(23 * HOUR);
    const fresh = countingSyntax();
    await createLevelsStage({ root, config }, { syntax: fresh, now: clock.now })(input, ctx());
    expect(fresh.parses).toBe(0);
    clock.advance(2 * HOUR);
    const stale = countingSyntax();
    await createLevelsStage({ root, config }, { syntax: stale, now: clock.now })(input, ctx());
    expect(stale.parses).toBe(1);
  });

  it('caching disabled writes nothing', async () => {
    const { root, config, ctx } = setup({ summarization: { caching: { enabled: false } } });
    await createLevelsStage({ root, config })({ root, files: [file('a.ts', SOURCE)], lastModifiedMs: new Map() }, ctx());
    expect(readdirSync(root)).toEqual([]);
  });

  it('cache.dir puts every cache in a shared directory', async () => {
    const shared = mkdtempSync(join(tmpdir(), 'aiwg-shared-'));
    const { root, ctx } = setup();
    const config = ConfigSchema.parse({ cache: { dir: shared } });
    await createLevelsStage({ root, config })({ root, files: [file('a.ts', SOURCE)], lastModifiedMs: new Map() }, ctx());
    expect(readdirSync(shared).sort()).toEqual(['summaries']);
    expect(readdirSync(root)).toEqual([]);
  });

  it('summarization disabled: a file is whole or a stub, and nothing is parsed or cached for the levels nobody shows', async () => {
    const { root, config, ctx } = setup({ summarization: { enabled: false } });
    const syntax = countingSyntax();
    const summaries = memoryCache();
    const tokens = memoryCache();
    const files = [file('a.ts', SOURCE), file('README.md', '# Demo\n\nA demo.\n')];
    const stage = createLevelsStage({ root, config }, { syntax, summaryCache: summaries, tokenCache: tokens });
    const levels = await stage({ root, files, lastModifiedMs: new Map() }, ctx());
    for (const source of files) {
      const [full, detailed, summary, stub] = levels.get(source.path)!;
      expect(full!.content).toBe(source.content);
      expect(stub!.content).toContain(source.path);
      expect(detailed).toEqual({ ...stub, level: 'detailed' });
      expect(summary).toEqual({ ...stub, level: 'summary' });
    }
    expect(syntax.parses).toBe(0);
    expect(summaries.entries.size).toBe(0);
    // the whole files' counts are still kept for the next run
    expect(tokens.entries.size).toBe(2);
    // and the same levels as one file built alone
    const alone = await createFileLevels(config, { syntax: createSyntaxEngine() })(file('a.ts', SOURCE), 0, ctx());
    expect(alone.levels[1]!.content).toBe(alone.levels[3]!.content);
    expect(alone.levels[2]!.content).toBe(alone.levels[3]!.content);
  });

  it('a level that would not be smaller repeats the level above', async () => {
    const { config, ctx } = setup();
    const { levels } = await createFileLevels(config, { syntax: createSyntaxEngine() })(file('tiny.ts', 'x;\n'), 0, ctx());
    expect(levels.map((l) => l.content)).toEqual(['x;\n', 'x;\n', 'x;\n', 'x;\n']);
  });

  it('a cache that cannot be written is a warning, not a failure', async () => {
    // keyed by path, so the token count is written to its own cache too
    const { config, ctx } = setup({ summarization: { caching: { invalidate_on_change: false } } });
    const failing = { get: async () => undefined, set: async () => Promise.reject(Object.assign(new Error('no space'), { code: 'ENOSPC' })) };
    const context = ctx();
    const failingTokens = { ...failing };
    const { levels } = await createFileLevels(config, { syntax: createSyntaxEngine(), summaryCache: failing, tokenCache: failingTokens })(file('a.ts', SOURCE), 0, context);
    expect(levels).toHaveLength(4);
    expect(context.warnings).toEqual([
      'could not write the token-count cache (ENOSPC): levels are computed but not cached',
      'could not write the detailed-level cache (ENOSPC): levels are computed but not cached',
    ]);
  });

  it('counts the whole text of every file no cache counted in one batch first (prepare), and a warm stage counts none', async () => {
    const { root, config, clock } = setup();
    const files = [file('src/a.ts', SOURCE), file('src/b.ts', SOURCE.replace('add', 'plus')), file('README.md', '# Demo\n')];
    const input = { root, files, lastModifiedMs: new Map<string, number>() };
    const batches: string[][] = [];
    const chars4 = testContext().tokenizer;
    const tokenizer = { ...chars4, countMany: (texts: readonly string[]) => (batches.push([...texts]), texts.map((t) => chars4.count(t))) };
    const stage = createLevelsStage({ root, config }, { now: clock.now });
    const plain = await createLevelsStage({ root: mkdtempSync(join(tmpdir(), 'aiwg-levels-')), config }, { now: clock.now })(input, testContext({ config }));
    const cold = await stage(input, testContext({ config, tokenizer }));
    expect(batches).toEqual([[...files].sort((a, b) => (a.path < b.path ? -1 : 1)).map((f) => f.content)]);
    // the same levels as a stage that counted file by file
    expect(cold).toEqual(plain);
    batches.length = 0;
    await createLevelsStage({ root, config }, { now: clock.now })(input, testContext({ config, tokenizer }));
    expect(batches).toEqual([]);
  });
});

describe('createLevelsStage clock', () => {
  it('without an injected clock, cache ages follow ctx.nowMs of the run', async () => {
    const root = mkdtempSync(join(tmpdir(), 'aiwg-levels-clock-'));
    const config = ConfigSchema.parse({ summarization: { caching: { max_age_hours: 1 } } });
    const input = { root, files: [file('a.ts', SOURCE)], lastModifiedMs: new Map() };
    const at = (nowMs: number) => ({ ...testContext({ config }), nowMs });
    await createLevelsStage({ root, config })(input, at(Date.UTC(2026, 0, 1, 0)));
    const within = countingSyntax();
    await createLevelsStage({ root, config }, { syntax: within })(input, at(Date.UTC(2026, 0, 1, 0, 59)));
    expect(within.parses).toBe(0);
    const after = countingSyntax();
    await createLevelsStage({ root, config }, { syntax: after })(input, at(Date.UTC(2026, 0, 1, 1, 1)));
    expect(after.parses).toBe(1);
  });
});
