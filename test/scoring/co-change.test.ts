import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCollectStage } from '../../src/collect/collect-files.js';
import { execGit } from '../../src/collect/collect-ports.js';
import { buildCoChange, loadCoChange, parseNameLog, readCachedCoChange } from '../../src/collect/co-change.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { addCoChangeEvidence } from '../../src/scoring/co-change.js';
import { createTaskAlignmentSignal } from '../../src/scoring/signals/task-alignment.js';
import type { CollectResult } from '../../src/types.js';
import { makeFixtureRepo, makeTempDir, type Fixture } from '../helpers/fixture-repo.js';
import { testContext } from '../helpers/fakes.js';
import { byPath, signalInput } from './helpers.js';

const PARSER = 'export function parseTokens(tokens) {\n  // parse the token stream into a syntax tree\n  return tokens.map((token) => ({ kind: token }));\n}\n';
const LEXER = 'export function scan(text) {\n  return text.split(/\\s+/);\n}\n';
const OTHER = 'export function formatDate(d) {\n  return d.toISOString();\n}\n';
const TASK = 'parseTokens builds a wrong syntax tree for the token stream';

const config = (cacheDir: string, share: number) =>
  ConfigSchema.parse({ cache: { dir: cacheDir }, relevance_scoring: { scoring_method: 'keyword', co_change: { share } } });

async function alignment(collected: CollectResult, share: number, cacheDir: string): Promise<Map<string, number>> {
  const cfg = config(cacheDir, share);
  const input = signalInput(collected.files, { task: TASK, git: collected.git, config: cfg });
  const scores = await createTaskAlignmentSignal().score(input, testContext({ config: cfg }), {} as never);
  return new Map([...scores].map(([path, f]) => [path, f.score]));
}

describe('co-change table', () => {
  it('counts pairs per commit and skips commits touching more than maxFiles files', () => {
    const table = buildCoChange([['a', 'b'], ['a', 'b', 'c'], ['a', 'b', 'c', 'd', 'e']], 3);
    expect(table.commits).toBe(2);
    expect(table.touched.get('a')).toBe(2);
    expect(table.pairs.get('a')?.get('b')).toBe(2);
    expect(table.pairs.get('a')?.get('d')).toBeUndefined();
  });

  it('parses `git log -z --name-only --format=%x00` under a prefix', () => {
    const out = '\0\0\nsub/a.js\0sub/b.js\0top.js\0\0\0\nsub/c.js\0';
    expect(parseNameLog(out, 'sub/')).toEqual([['a.js', 'b.js'], ['c.js']]);
  });

  it('lifts the partner of a strong file to a share of its score, never above it', () => {
    const table = buildCoChange([['s', 'p'], ['s', 'p'], ['s'], ['s', 'q']], 30);
    const run = byPath({ s: 0.9, p: 0.1, q: 0.1 });
    const { scores, lifted } = addCoChangeEvidence(run.values, run.paths, run.positions, table, 0.8);
    expect(run.at(scores, 'p')).toBeCloseTo(0.8 * (2 / 4) * 0.9, 9);
    expect(run.at(scores, 'q')).toBe(0.1); // changed together once: below MIN_TOGETHER
    expect(Object.fromEntries(lifted)).toEqual({ p: 's' });
    expect(run.at(addCoChangeEvidence(run.values, run.paths, run.positions, table, 0).scores, 'p')).toBe(0.1);
  });

  it('lifts a partner with no match of its own, and no file outside the run', () => {
    const table = buildCoChange([['s', 'p', 'gone'], ['s', 'p', 'gone']], 30);
    // p has no entry (no keyword match): it is still a candidate, so it rises; `gone` is not one
    const run = byPath({ s: 0.9 }, ['p', 's']);
    const { scores, lifted } = addCoChangeEvidence(run.values, run.paths, run.positions, table, 0.8);
    expect(run.at(scores, 'p')).toBeCloseTo(0.8 * 0.9, 9);
    expect(Object.fromEntries(lifted)).toEqual({ p: 's' });
    expect(scores).toHaveLength(2);
  });
});

describe('co-change evidence from a fixture repository', () => {
  let repo: Fixture;
  let cache: Fixture;
  let plain: Fixture;

  beforeAll(() => {
    const day = (d: number) => `2026-01-${String(d).padStart(2, '0')}T10:00:00Z`;
    repo = makeFixtureRepo([
      { files: { 'src/parser.js': PARSER, 'src/lexer.js': LEXER, 'src/other.js': OTHER }, date: day(1) },
      { files: { 'src/parser.js': `${PARSER}// v2\n`, 'src/lexer.js': `${LEXER}// v2\n` }, date: day(2) },
      { files: { 'src/other.js': `${OTHER}// v2\n` }, date: day(3) },
      { files: { 'src/parser.js': `${PARSER}// v3\n`, 'src/lexer.js': `${LEXER}// v3\n` }, date: day(4) },
      { files: { 'src/parser.js': `${PARSER}// v4\n`, 'src/lexer.js': `${LEXER}// v4\n` }, date: day(5) },
    ]);
    cache = makeTempDir('aiwg-cochange-cache-');
    plain = makeTempDir('aiwg-cochange-plain-');
    for (const [path, content] of Object.entries({ 'src/parser.js': PARSER, 'src/lexer.js': LEXER, 'src/other.js': OTHER })) plain.write(path, content);
  });
  afterAll(() => {
    repo.cleanup();
    cache.cleanup();
    plain.cleanup();
  });

  it('the file that always changes with the task\'s strong file rises, never above it; the other does not', async () => {
    const on = await createCollectStage()({ root: repo.root }, testContext({ config: config(cache.root, 0.8) }));
    expect(on.git.coChange?.commits).toBe(5);
    const off = await createCollectStage()({ root: repo.root }, testContext({ config: config(cache.root, 0) }));
    expect(off.git.coChange).toBeUndefined();
    const lifted = await alignment(on, 0.8, cache.root);
    const base = await alignment(off, 0, cache.root);
    expect(base.get('src/parser.js')).toBeGreaterThan(0.6);
    expect(lifted.get('src/lexer.js')).toBeGreaterThan(base.get('src/lexer.js') as number);
    expect(lifted.get('src/lexer.js')).toBeLessThanOrEqual(lifted.get('src/parser.js') as number);
    expect(lifted.get('src/parser.js')).toBe(base.get('src/parser.js'));
    expect(lifted.get('src/other.js')).toBe(base.get('src/other.js'));
  });

  it('outside git the signal is neutral', async () => {
    const collected = await createCollectStage()({ root: plain.root }, testContext({ config: config(cache.root, 0.8) }));
    expect(collected.git.coChange).toBeUndefined();
    expect(await alignment(collected, 0.8, cache.root)).toEqual(await alignment(collected, 0, cache.root));
  });

  it('caches the table by HEAD; a corrupt cache entry is a miss', async () => {
    const dir = makeTempDir('aiwg-cochange-corrupt-');
    try {
      const head = repo.git('rev-parse', 'HEAD').trim();
      const options = { prefix: '', head, commits: 300, maxFiles: 30, cacheDir: dir.root };
      const first = await loadCoChange(execGit(), repo.root, options);
      const entries = readdirSync(join(dir.root, 'index', 'co-change'));
      expect(entries).toHaveLength(1);
      const file = join(dir.root, 'index', 'co-change', entries[0] as string);
      expect(await readCachedCoChange(file)).toEqual(first);
      writeFileSync(file, '{"commits": 5, "files": [[1, ');
      expect(await readCachedCoChange(file)).toBeUndefined();
      expect(await loadCoChange(execGit(), repo.root, options)).toEqual(first);
      expect(await readCachedCoChange(file)).toEqual(first);
    } finally {
      dir.cleanup();
    }
  });
});
