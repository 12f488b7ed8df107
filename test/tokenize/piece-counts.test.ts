import { spawnSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { countTokens as o200kWhole } from 'gpt-tokenizer/encoding/o200k_base';
import { bpeCounter, inThreadCounter } from '../../src/tokenize/bpe-counter.js';
import { openPieceCounts, pieceCountsPath } from '../../src/tokenize/piece-counts.js';
import { createTokenizer } from '../../src/tokenize/tokenizer.js';
import { makeTempDir } from '../helpers/fixture-repo.js';
import { anyText, codeText, RUNS } from './arbitraries.js';

const NO_SPECIAL = { disallowedSpecial: new Set<string>(), allowedSpecial: new Set<string>() };
const whole = (text: string) => o200kWhole(text, NO_SPECIAL);
const SOURCES = ['src/pipeline.ts', 'src/tokenize/tokenizer.ts', 'src/allocate/allocate-context.ts', 'README.md'].map((p) => readFileSync(p, 'utf8'));

describe('piece counts remembered across runs', () => {
  const tmp = makeTempDir('aiwg-pieces-');
  afterAll(() => tmp.cleanup());

  it('a later run counts the same texts exactly from the file alone, and has nothing to add to it', async () => {
    const path = pieceCountsPath(join(tmp.root, 'cache'), 'o200k');
    const first = await openPieceCounts(path);
    const tokenizer = await createTokenizer('o200k', { pieceCounts: first });
    for (const text of SOURCES) expect(tokenizer.count(text)).toBe(whole(text));
    await first.save();
    const written = statSync(path);
    expect(written.size).toBeGreaterThan(16);

    const second = await openPieceCounts(path);
    const again = await createTokenizer('o200k', { pieceCounts: second });
    for (const text of SOURCES) expect(again.count(text)).toBe(whole(text));
    await second.save();
    // every piece came from the file: it was not written again
    expect(statSync(path).mtimeMs).toBe(written.mtimeMs);
  });

  it('keeps each of many pieces apart (no two keys meet) and merges new ones into the sorted file', async () => {
    const path = join(tmp.root, 'many.bin');
    const pieces = fc.sample(fc.oneof(anyText, codeText), { numRuns: 4000, seed: 7 });
    const distinct = [...new Set(pieces)];
    const half = Math.floor(distinct.length / 2);
    const a = await openPieceCounts(path);
    distinct.slice(0, half).forEach((p, i) => a.set(p, i));
    await a.save();
    const b = await openPieceCounts(path);
    distinct.slice(half).forEach((p, i) => b.set(p, half + i));
    await b.save();
    const c = await openPieceCounts(path);
    distinct.forEach((p, i) => expect(c.get(p)).toBe(i));
    expect(c.get('a piece never stored')).toBeUndefined();
    // one store saved twice keeps what its first save wrote
    c.set('first late piece', 7);
    await c.save();
    c.set('second late piece', 8);
    await c.save();
    const d = await openPieceCounts(path);
    expect([d.get('first late piece'), d.get('second late piece'), d.get(distinct[0]!)]).toEqual([7, 8, 0]);
  });

  it.each([
    ['a flipped byte', (data: Buffer) => (data[data.length - 3]! ^= 0x40, data)],
    ['a truncated file', (data: Buffer) => data.subarray(0, data.length - 5)],
    ['another format', (data: Buffer) => (data.write('XXXXXXXX', 0), data)],
    ['an empty file', () => Buffer.alloc(0)],
  ])('%s is an empty table (a miss), never a wrong count or an error', async (_name, damage) => {
    const path = join(tmp.root, `damaged-${_name.replace(/\W/g, '')}.bin`);
    const store = await openPieceCounts(path);
    store.set('function retry() {\n', 5);
    await store.save();
    writeFileSync(path, damage(readFileSync(path)));
    const reopened = await openPieceCounts(path);
    expect(reopened.get('function retry() {\n')).toBeUndefined();
    const tokenizer = await createTokenizer('o200k', { pieceCounts: reopened });
    expect(tokenizer.count(SOURCES[0]!)).toBe(whole(SOURCES[0]!));
  });
});

describe('BPE counter: a worker thread first, this thread once it counts much', () => {
  it('gives the counts of the encoding itself, batch after batch, before and after it switches to this thread', () => {
    const counter = bpeCounter('o200k');
    const here = inThreadCounter('o200k');
    const batches = fc.sample(fc.array(fc.oneof(anyText, codeText), { minLength: 1, maxLength: 12 }), { numRuns: RUNS.numRuns, seed: 3 });
    for (const batch of batches) {
      const expected = batch.map(whole);
      expect(counter.countPieces(batch)).toEqual(expected);
      expect(here.countPieces(batch)).toEqual(expected);
    }
    expect(counter.countPieces([])).toEqual([]);
  });

  it('never keeps a process alive: one that counted on the worker exits by itself', () => {
    const module = pathToFileURL(resolve('dist/src/tokenize/bpe-counter.js')).href;
    const script = [
      `const { bpeCounter } = await import(${JSON.stringify(module)});`,
      `console.log(bpeCounter('o200k').countPieces(['hello', ' world']).join(','));`,
    ].join('\n');
    // a generous limit that only catches a hang
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    expect({ status: child.status, signal: child.signal, stderr: child.stderr, stdout: child.stdout.trim() }).toEqual({ status: 0, signal: null, stderr: '', stdout: '1,1' });
  });
});
