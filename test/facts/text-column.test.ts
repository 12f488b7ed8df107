import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { ColumnText, isTextColumn, loadTextColumn, persistedFacts, type TextColumn } from '../../src/facts/text-column.js';
import { emptyFactStore, FACT_STORE_MAGIC, FACT_STORE_VERSION, openFactStore } from '../../src/facts/fact-store.js';
import { termsFact } from '../../src/scoring/bm25.js';
import { encodeFramed } from '../../src/util/framed-file.js';
import { makeTempDir, type Fixture } from '../helpers/fixture-repo.js';

const texts = new Map([
  ['a', termsFact('retry loop retryLoop')],
  ['b', termsFact('')],
  ['c', termsFact('HttpClient client client')],
]);

describe('text facts as a column', () => {
  it('stores a map of text facts as one column and loads each fact with its text and number', () => {
    const column = persistedFacts(texts);
    expect(isTextColumn(column)).toBe(true);
    const loaded = loadTextColumn(column as TextColumn)!;
    expect([...loaded.keys()]).toEqual(['a', 'b', 'c']);
    for (const [key, fact] of texts) {
      const got = loaded.get(key) as ColumnText;
      expect(got).toBeInstanceOf(ColumnText);
      expect([got.text, got.length]).toEqual([fact.text, fact.length]);
    }
    // a loaded column stored again (with one plain fact added) keeps every text
    const again = loadTextColumn(persistedFacts(new Map([...loaded, ['d', termsFact('token budget')]])) as TextColumn)!;
    expect((again.get('c') as ColumnText).text).toBe(texts.get('c')!.text);
    expect((again.get('d') as ColumnText).text).toBe(termsFact('token budget').text);
  });

  it('keeps a map that is not all ASCII text facts a plain map, with loaded facts made plain objects', () => {
    const loaded = loadTextColumn(persistedFacts(texts) as TextColumn)!;
    for (const other of [{ text: 'caf\u00e9', length: 1 }, { text: 'x', length: 1, extra: true }, 'a string', 7]) {
      const kept = persistedFacts(new Map<string, unknown>([...loaded, ['z', other]]));
      expect(kept).toBeInstanceOf(Map);
      expect((kept as Map<string, unknown>).get('a')).toEqual({ text: texts.get('a')!.text, length: texts.get('a')!.length });
      expect((kept as Map<string, unknown>).get('z')).toEqual(other);
    }
    expect(persistedFacts(new Map([['line\nbreak', texts.get('a')!]]))).toBeInstanceOf(Map);
    expect(persistedFacts(new Map())).toBeInstanceOf(Map);
  });

  it('refuses a column whose keys or offsets do not match its entries', () => {
    const column = persistedFacts(texts) as TextColumn;
    expect(loadTextColumn({ ...column, keys: 'a\nb' })).toBeNull();
    const offsets = Uint32Array.from(column.offsets);
    offsets[1] = offsets[2]! + 1;
    expect(loadTextColumn({ ...column, offsets })).toBeNull();
    expect(isTextColumn({ ...column, numbers: new Float64Array(2) })).toBe(false);
  });
});

describe('the fact store with a column', () => {
  let dir: Fixture;
  beforeAll(() => {
    dir = makeTempDir('aiwg-column-');
  });
  afterAll(() => dir.cleanup());

  it('round-trips text facts through a column, and other kinds as maps', async () => {
    const store = emptyFactStore(join(dir.root, 'rt', 'facts.bin'));
    for (const [key, fact] of texts) store.putFact('bm25-terms@1:', key, fact);
    store.putFact('imports@1:ts', 'a', ['./b']);
    await store.save();
    const again = await openFactStore(store.path);
    expect(again.corrupt).toBeUndefined();
    expect(again.getFact('bm25-terms@1:', 'c')).toBeInstanceOf(ColumnText);
    expect((again.getFact('bm25-terms@1:', 'c') as ColumnText).text).toBe(texts.get('c')!.text);
    expect(again.getFact('imports@1:ts', 'a')).toEqual(['./b']);
  });

  it('a column that does not hold together is a miss with a reason, never a crash', async () => {
    const column = persistedFacts(texts) as TextColumn;
    const path = join(dir.root, 'bad', 'facts.bin');
    mkdirSync(join(path, '..'), { recursive: true });
    const facts = new Map([['bm25-terms@1:', { ...column, keys: 'only-one' }]]);
    writeFileSync(path, encodeFramed(FACT_STORE_MAGIC, FACT_STORE_VERSION, { facts, collect: new Map(), stats: new Map(), commits: new Map() }));
    const store = await openFactStore(path);
    expect(store.corrupt).toMatch(/unexpected content \(facts of bm25-terms@1:\)/);
    expect(store.getFact('bm25-terms@1:', 'a')).toBeUndefined();
  });
});
