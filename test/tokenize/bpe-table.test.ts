import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { countTokens as o200kWhole } from 'gpt-tokenizer/encoding/o200k_base';
import { countTokens as cl100kWhole } from 'gpt-tokenizer/encoding/cl100k_base';
import { ConfigSchema } from '../../src/config/schema.js';
import { indexDirOf, resolveCacheDir } from '../../src/cache/cache-dir.js';
import { runContextBudget } from '../../src/pipeline.js';
import { loadEncoding, readEncodingAhead } from '../../src/tokenize/bpe-encoding.js';
import { bpeTablePath, readBpeTable, readBpeTableAhead, repositoryBpeTablePath, writeBpeTable } from '../../src/tokenize/bpe-table.js';
import { makeFixtureRepo, makeTempDir } from '../helpers/fixture-repo.js';
import { anyText, RUNS } from './arbitraries.js';

/**
 * The flat BPE table counts exactly what gpt-tokenizer counts (special tokens as text), for both
 * encodings, on arbitrary text (lone surrogates included) and on real source files; a damaged
 * table file is a miss, and gpt-tokenizer's load writes the file again.
 */
const NO_SPECIAL = { disallowedSpecial: new Set<string>(), allowedSpecial: new Set<string>() };
const WHOLE = { o200k: (t: string) => o200kWhole(t, NO_SPECIAL), cl100k: (t: string) => cl100kWhole(t, NO_SPECIAL) } as const;
const SOURCES = ['src/pipeline.ts', 'src/tokenize/tokenizer.ts', 'README.md', 'package-lock.json', 'test/helpers/secret-fixture.ts'].map((p) => readFileSync(p, 'utf8'));
/** Text the generators rarely make: lone surrogates, long digit and space runs, mixed scripts in one word. */
const EDGES = [
  // byte order marks: gpt-tokenizer's decoder drops a leading one when it looks a byte pair up
  '\ufeff', '\ufeffabc', 'a\ufeffb', '\ufeff{"a": 1}', '\ufeff\ufeff',
  // a binary file read as UTF-8 (replacement characters, NULs)
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe, 0xef, 0xbb, 0xbf, 0x00, 0xc3, 0x28, 0xe2, 0x82]).toString('utf8'),
  '\ud800', 'a\udc00b', '\ud83d\ude00\ud800', '1234567890123', ' '.repeat(40), '\n\n\n  \t\r\n', 'naïveCafé日本語abc', "don't WE'LL", '<|endoftext|><|fim_prefix|>', '\u0000\u0001\u007f', 'ﬀ'.repeat(20),
];

describe('BPE table', () => {
  const tmp = makeTempDir('aiwg-bpe-table-');
  afterAll(() => tmp.cleanup());

  for (const id of ['o200k', 'cl100k'] as const) {
    it(`${id}: counts what gpt-tokenizer counts, on arbitrary and real text`, async () => {
      const path = bpeTablePath(join(tmp.root, id), id);
      await writeBpeTable(path, id);
      const table = readBpeTable(path, id)!;
      expect(table).toBeDefined();
      for (const text of [...SOURCES, ...EDGES]) expect(table.countTokens(text)).toBe(WHOLE[id](text));
      fc.assert(
        fc.property(anyText, fc.string({ unit: 'binary', maxLength: 60 }), (text, raw) => {
          expect(table.countTokens(text)).toBe(WHOLE[id](text));
          expect(table.countTokens(raw)).toBe(WHOLE[id](raw));
        }),
        RUNS,
      );
    });
  }

  it("a missing or damaged table is a miss; gpt-tokenizer's load writes it for the next one, of the right encoding", async () => {
    const path = bpeTablePath(join(tmp.root, 'damaged'), 'o200k');
    expect(readBpeTable(path, 'o200k')).toBeUndefined();
    const fromPackage = loadEncoding('o200k', path);
    await new Promise((done) => setTimeout(done, 0));
    for (let i = 0; i < 100 && !existsSync(path); i++) await new Promise((done) => setTimeout(done, 50));
    expect(readBpeTable(path, 'o200k')).toBeDefined();
    // the table of one encoding is not taken for the other's
    expect(readBpeTable(path, 'cl100k')).toBeUndefined();
    const fromTable = loadEncoding('o200k', path);
    for (const text of SOURCES) expect(fromTable.countTokens(text)).toBe(fromPackage.countTokens(text));
    const bytes = readFileSync(path);
    writeFileSync(path, bytes.subarray(0, bytes.length - 100));
    expect(readBpeTable(path, 'o200k')).toBeUndefined();
    // the leading frame (section sizes, page checks) is checked when the table opens
    const frameByte = 30;
    bytes[frameByte] ^= 0xff;
    writeFileSync(path, bytes);
    expect(readBpeTable(path, 'o200k')).toBeUndefined();
    bytes[frameByte] ^= 0xff;
    writeFileSync(path, 'not a table');
    expect(readBpeTable(path, 'o200k')).toBeUndefined();
    expect(loadEncoding('o200k', path).countTokens(SOURCES[0]!)).toBe(WHOLE.o200k(SOURCES[0]!));
  });

  it('a damaged page is found when it is read: the counts stay exact and the file goes, to be written again', async () => {
    const path = bpeTablePath(join(tmp.root, 'paged'), 'o200k');
    await writeBpeTable(path, 'o200k');
    const intact = readFileSync(path);
    // the last 4 MB of the 4.5 MB raw table damaged: the counts below soon read a damaged page
    const damaged = Buffer.from(intact);
    for (let i = damaged.length - 1; i >= damaged.length - 4_000_000; i--) damaged[i] ^= 0x5a;
    writeFileSync(path, damaged);
    const table = readBpeTable(path, 'o200k')!;
    expect(table).toBeDefined();
    expect(existsSync(path)).toBe(true);
    for (const text of [...SOURCES, ...EDGES]) expect(table.countTokens(text)).toBe(WHOLE.o200k(text));
    expect(existsSync(path)).toBe(false);
    // the next load writes it again, whole
    loadEncoding('o200k', path);
    for (let i = 0; i < 100 && !existsSync(path); i++) await new Promise((done) => setTimeout(done, 50));
    expect(readFileSync(path).equals(intact)).toBe(true);
  });

  it('read ahead, its pages are taken from that read: the counts stay exact, also when the file was damaged after the read, or before it', async () => {
    const path = bpeTablePath(join(tmp.root, 'ahead'), 'o200k');
    await writeBpeTable(path, 'o200k');
    const intact = readFileSync(path);
    // arrived before the table opens
    await readBpeTableAhead(path);
    const arrived = readBpeTable(path, 'o200k')!;
    for (const text of [...SOURCES, ...EDGES]) expect(arrived.countTokens(text)).toBe(WHOLE.o200k(text));
    // not arrived yet when the table opens: pages read until it does
    const pending = readBpeTableAhead(path);
    const early = readBpeTable(path, 'o200k')!;
    expect(early.countTokens(SOURCES[0]!)).toBe(WHOLE.o200k(SOURCES[0]!));
    await pending;
    for (const text of [...SOURCES, ...EDGES]) expect(early.countTokens(text)).toBe(WHOLE.o200k(text));
    // read ahead whole, then the file damaged: pages come from the read, which is intact
    await readBpeTableAhead(path);
    const damaged = Buffer.from(intact);
    for (let i = damaged.length - 1; i >= damaged.length - 4_000_000; i--) damaged[i] ^= 0x5a;
    writeFileSync(path, damaged);
    const fromRead = readBpeTable(path, 'o200k')!;
    for (const text of [...SOURCES, ...EDGES]) expect(fromRead.countTokens(text)).toBe(WHOLE.o200k(text));
    // no damaged page was seen (that would have removed the file): every page came from the read
    expect(existsSync(path)).toBe(true);
    // damaged before the read: its pages fail their checks there and in the file, the counts stay exact and the file goes
    await readBpeTableAhead(path);
    const both = readBpeTable(path, 'o200k')!;
    for (const text of [...SOURCES, ...EDGES]) expect(both.countTokens(text)).toBe(WHOLE.o200k(text));
    expect(existsSync(path)).toBe(false);
  });

  it('reads ahead only the table file a load tries first (the first that exists), not the others', async () => {
    const first = bpeTablePath(join(tmp.root, 'ahead-first'), 'o200k');
    const second = repositoryBpeTablePath(join(tmp.root, 'ahead-second'), 'o200k');
    await writeBpeTable(first, 'o200k');
    await writeBpeTable(second, 'o200k');
    expect(readBpeTableAhead(join(tmp.root, 'missing.bin'))).toBeUndefined();
    await readEncodingAhead([join(tmp.root, 'missing.bin'), first, second]);
    // both damaged after the read: the first's pages come from its read and it stays; the
    // second was not read ahead, so its damage is seen (and it goes); the counts stay exact
    for (const path of [first, second]) {
      const damaged = readFileSync(path);
      for (let i = damaged.length - 1; i >= damaged.length - 4_000_000; i--) damaged[i] ^= 0x5a;
      writeFileSync(path, damaged);
    }
    for (const path of [first, second]) {
      const table = readBpeTable(path, 'o200k')!;
      for (const text of SOURCES.slice(0, 2)) expect(table.countTokens(text)).toBe(WHOLE.o200k(text));
    }
    expect([existsSync(first), existsSync(second)]).toEqual([true, false]);
  });

  it('is kept once per machine beside the models: a run in a second repository reads the first one\'s table and writes none of its own', async () => {
    const xdg = join(tmp.root, 'xdg');
    const path = bpeTablePath(join(xdg, 'aiwg-context'), 'o200k');
    const config = ConfigSchema.parse({ relevance_scoring: { scoring_method: 'keyword' }, tokenizer: 'o200k' });
    const repos = ['a', 'b'].map((name) =>
      makeFixtureRepo([{ files: { 'src/retry.ts': `export function retry${name}(attempts: number) {\n  return attempts + 1;\n}\n` }, date: '2026-01-02T00:00:00Z' }]),
    );
    try {
      const [first, second] = repos;
      await runContextBudget({ task: 'retry attempts', root: first!.root, config, env: { XDG_CACHE_HOME: xdg } });
      for (let i = 0; i < 100 && !existsSync(path); i++) await new Promise((done) => setTimeout(done, 50));
      expect(readBpeTable(path, 'o200k')).toBeDefined();
      const written = statSync(path).mtimeMs;
      const { rendered } = await runContextBudget({ task: 'retry attempts', root: second!.root, config, env: { XDG_CACHE_HOME: xdg } });
      expect(rendered).toContain('retryb');
      expect(statSync(path).mtimeMs).toBe(written);
      // the repositories' own index directories hold no table
      for (const repo of repos) {
        const index = indexDirOf(resolveCacheDir(repo.root, config));
        expect(existsSync(index) ? readdirSync(index).filter((name) => name.startsWith('bpe-')) : []).toEqual([]);
      }
    } finally {
      for (const repo of repos) repo.cleanup();
    }
  });

  it('where the model cache cannot be written (a read-only home), the repository\'s cache keeps the table and the next run reads it there', async () => {
    // a file where the model cache's directory would be: nothing can be made under it
    const blocked = join(tmp.root, 'not-a-directory');
    writeFileSync(blocked, 'in the way\n');
    const config = ConfigSchema.parse({ relevance_scoring: { scoring_method: 'keyword' }, tokenizer: 'o200k' });
    const repo = makeFixtureRepo([{ files: { 'src/retry.ts': 'export function retry(attempts: number) {\n  return attempts + 1;\n}\n' }, date: '2026-01-02T00:00:00Z' }]);
    try {
      const kept = repositoryBpeTablePath(resolveCacheDir(repo.root, config), 'o200k');
      await runContextBudget({ task: 'retry attempts', root: repo.root, config, env: { XDG_CACHE_HOME: blocked } });
      for (let i = 0; i < 100 && !existsSync(kept); i++) await new Promise((done) => setTimeout(done, 50));
      expect(readBpeTable(kept, 'o200k')).toBeDefined();
      const written = statSync(kept).mtimeMs;
      const { rendered } = await runContextBudget({ task: 'retry attempts', root: repo.root, config, env: { XDG_CACHE_HOME: blocked } });
      expect(rendered).toContain('retry');
      expect(statSync(kept).mtimeMs).toBe(written);
      expect(await writeBpeTable(bpeTablePath(join(blocked, 'aiwg-context'), 'o200k'), 'o200k')).toBe(false);
    } finally {
      repo.cleanup();
    }
  });
});
