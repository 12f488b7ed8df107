import { describe, expect, it } from 'vitest';
import { compileStaticTokenizer } from '../../../src/scoring/semantic/static-tokenizer.js';
import { TOKENIZER_NORMALIZER, TOKENIZER_PRE_TOKENIZER } from '../../../src/scoring/semantic/static-model-builder.js';
import { packVocab, vocabLookup } from '../../../src/scoring/semantic/vocab-table.js';

/** A builder-shaped tokenizer.json with an added token ("zz") that a normalised word can also spell. */
function tokenizerJson(vocab: Record<string, number>) {
  return {
    added_tokens: [{ id: 3, content: 'zz', single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }],
    normalizer: TOKENIZER_NORMALIZER,
    pre_tokenizer: TOKENIZER_PRE_TOKENIZER,
    post_processor: null,
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
  };
}

describe('static tokenizer WordPiece', () => {
  const vocab = { '[UNK]': 0, z: 1, '##z': 2, zz: 5, plug: 6, '##in': 7, plugin: 8, '##s': 9 };
  const words = Object.keys(vocab);
  const packed = vocabLookup(packVocab(words, Object.values(vocab)));

  it.each([
    // the added token's id wins over the vocabulary's own "zz", also inside a word ("ZZZ" normalises to "zzz")
    ['ZZZ', [3, 2]],
    ['plugins', [8, 9]],
    ['plugx', [0]],
  ])('%s -> %j, from tokenizer.json and from a packed vocabulary alike', (text, ids) => {
    const fromJson = compileStaticTokenizer(tokenizerJson(vocab), Infinity, 'tokenizer.json');
    const fromPack = compileStaticTokenizer(tokenizerJson({}), Infinity, 'tokenizer.json', undefined, packed);
    expect(fromJson.encode(text)).toEqual(ids);
    expect(fromPack.encode(text)).toEqual(ids);
    expect(fromPack.maxId).toBe(fromJson.maxId);
  });

  it('a memo of two words, evicting on almost every word, gives the ids the default memo gives', () => {
    const text = 'plugins plugx ZZZ plugin plugins zz plugx plugins ZZZ PlugIns plug'.repeat(3);
    const small = compileStaticTokenizer(tokenizerJson(vocab), Infinity, 'tokenizer.json', 2);
    const large = compileStaticTokenizer(tokenizerJson(vocab), Infinity, 'tokenizer.json');
    expect(small.encode(text)).toEqual(large.encode(text));
    expect(small.encode(text)).toEqual(small.encode(text));
    expect(large.encode(text).length).toBeGreaterThan(20);
  });
});
