import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isPackedVocab, mapVocab, packVocab, vocabLookup } from '../../../src/scoring/semantic/vocab-table.js';

const WORDS = ['the', 'plugin', '##s', '##ing', 'transform', 'hook', '[UNK]', 'é', '😀', '##😀', 'a', '##a', 'ab', '##ab', ''];

describe('packed vocabulary', () => {
  it('answers every lookup as a Map of the same words does: hits, misses, the longest piece', () => {
    const ids = WORDS.map((_, i) => i * 3);
    const packed = vocabLookup(packVocab(WORDS, ids));
    const map = mapVocab(new Map(WORDS.map((w, i) => [w, ids[i]!])));
    for (const word of [...WORDS, 'plugins', 'x', '##', 'th', 'thee', '😀😀']) expect(packed.get(word)).toBe(map.get(word));
    expect(packed.maxId).toBe(map.maxId);
    expect(packed.longest('transforming', 0, '')).toEqual([WORDS.indexOf('transform') * 3, 9]);
    expect(packed.longest('transforming', 9, '##')).toEqual([WORDS.indexOf('##ing') * 3, 12]);
    expect(packed.longest('zzz', 0, '')).toBeUndefined();
    expect(packed.longest('abab', 2, '##')).toEqual([WORDS.indexOf('##ab') * 3, 4]);
  });

  it('a word given twice keeps its last id, as Map.set does', () => {
    const packed = vocabLookup(packVocab(['x', 'y', 'x'], [1, 2, 7]));
    expect(packed.get('x')).toBe(7);
    expect(packed.get('y')).toBe(2);
  });

  it('property: lookups and longest pieces equal the Map path over random vocabularies and words', () => {
    const alphabet = fc.constantFrom('a', 'b', 'c', '#', 'é', 'Z');
    const token = fc.array(alphabet, { minLength: 1, maxLength: 6 }).map((cs) => cs.join(''));
    fc.assert(
      fc.property(fc.array(token, { minLength: 1, maxLength: 60 }), fc.array(token, { minLength: 1, maxLength: 20 }), fc.constantFrom('', '#', '##'), (words, probes, head) => {
        const ids = words.map((_, i) => i);
        const packed = vocabLookup(packVocab(words, ids));
        const map = mapVocab(new Map(words.map((w, i) => [w, i])));
        for (const probe of probes) {
          expect(packed.get(probe)).toBe(map.get(probe));
          for (let start = 0; start < probe.length; start++) expect(packed.longest(probe, start, head)).toEqual(map.longest(probe, start, head));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('a table read back that has not the shape of one is refused (a damaged pack is a miss)', () => {
    const good = packVocab(['a', 'b'], [0, 1]);
    expect(isPackedVocab(good)).toBe(true);
    expect(isPackedVocab({ ...good, ids: Int32Array.from([0, -1]) })).toBe(false);
    expect(isPackedVocab({ ...good, offsets: new Uint32Array(2) })).toBe(false);
    expect(isPackedVocab({ ...good, offsets: Uint32Array.from([0, 2, 2]), text: 'ab' })).toBe(true);
    expect(isPackedVocab({ ...good, offsets: Uint32Array.from([2, 0, 2]), text: 'ab' })).toBe(false);
    expect(isPackedVocab({ ...good, slots: new Int32Array(24) })).toBe(false);
    expect(isPackedVocab({ ...good, text: 'abc' })).toBe(false);
    // slots naming a word out of range, or more slots used than words (a probe might never end)
    expect(isPackedVocab({ ...good, slots: good.slots.map((x) => (x === 0 ? 0 : 3)) })).toBe(false);
    expect(isPackedVocab({ ...good, slots: good.slots.map(() => 1) })).toBe(false);
    expect(isPackedVocab(null)).toBe(false);
  });
});
