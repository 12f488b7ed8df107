import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countTokens as o200kWhole } from 'gpt-tokenizer/encoding/o200k_base';
import { countTokens as cl100kWhole } from 'gpt-tokenizer/encoding/cl100k_base';
import { countJoined, createChars4Tokenizer, createTokenizer, isLongLived, memoiseTokenizers, type TokenizerId } from '../../src/tokenize/tokenizer.js';
import { isSafeStart, nextSafeSplit } from '../../src/tokenize/safe-split.js';
import { anyText, codeText, linesText, RUNS } from './arbitraries.js';

/** Independent whole counts: gpt-tokenizer directly, special-token strings counted as text. */
const NO_SPECIAL = { disallowedSpecial: new Set<string>(), allowedSpecial: new Set<string>() };
const WHOLE = { o200k: (t: string) => o200kWhole(t, NO_SPECIAL), cl100k: (t: string) => cl100kWhole(t, NO_SPECIAL) } as const;

/** Lines that start at every kind of character after a newline: safe starts, `/`, indentation before each kind, non-ASCII. */
const starts = fc.constantFrom('x', '}', '<', '#', '/', '//', ' ', '\t', '  x', '\t}', '  /', ' \n', ' \u00a0', ' \r\n', '\t é', '\n', '\r\n', 'é', '日', '1', "'s", '"', '*', '-', '|');
const pieceText = fc.array(fc.tuple(starts, fc.oneof(anyText, codeText)), { maxLength: 40 }).map((parts) => parts.map(([s, t]) => `${s}${t}\n`).join(''));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

describe.each(['o200k', 'cl100k'] as const)('%s tokenizer: piecewise, remembered counts', (id) => {
  it('equal the whole count of any text (pieces cut after a newline before a safe start)', async () => {
    const tokenizer = await createTokenizer(id);
    fc.assert(
      fc.property(fc.oneof(pieceText, linesText, anyText), (text) => {
        expect(tokenizer.count(text)).toBe(WHOLE[id](text));
        // Counted again, now from the remembered pieces, and inside a longer text.
        expect(tokenizer.count(text)).toBe(WHOLE[id](text));
        expect(tokenizer.count(`<context>\n${text}\n</context>\n`)).toBe(WHOLE[id](`<context>\n${text}\n</context>\n`));
      }),
      RUNS,
    );
  });

  it('countMany gives each text the count count gives it, in one batch', async () => {
    const tokenizer = await createTokenizer(id);
    fc.assert(
      fc.property(fc.array(fc.oneof(pieceText, linesText, anyText), { maxLength: 6 }), (texts) => {
        expect(tokenizer.countMany!(texts)).toEqual(texts.map((t) => WHOLE[id](t)));
      }),
      RUNS,
    );
  });

  it("equal the whole count of this repository's own sources, alone and concatenated", async () => {
    const tokenizer = await createTokenizer(id);
    const texts = sourceFiles('src').slice(0, 120).map((path) => readFileSync(path, 'utf8'));
    for (const text of texts) expect(tokenizer.count(text)).toBe(WHOLE[id](text));
    const all = texts.join('\n');
    expect(tokenizer.count(all)).toBe(WHOLE[id](all));
  });
});

describe.each(['o200k', 'cl100k'] as const)('countJoined (%s)', (id) => {
  it('is the whole count of first + second, from second\'s known count where the join is safe, and counted whole where not', async () => {
    const tokenizer = await createTokenizer(id);
    const heads = fc.oneof(pieceText, linesText, anyText, fc.constantFrom('', '\n', '<boot>\nused: 12\n</boot>\n', 'x \n', 'tail  '));
    fc.assert(
      fc.property(heads, fc.oneof(pieceText, linesText, anyText), (first, second) => {
        expect(countJoined(tokenizer, first, second, tokenizer.count(second))).toBe(WHOLE[id](first + second));
      }),
      RUNS,
    );
  });

  it('takes the known count where the join is safe, and counts the whole where it is not', async () => {
    const tokenizer = await createTokenizer(id);
    // a deliberately wrong known count shows which path was taken
    expect(countJoined(tokenizer, '<boot>\n</boot>\n', '<tier name="primary">\n</tier>\n', 1000)).toBe(tokenizer.count('<boot>\n</boot>\n') + 1000);
    expect(countJoined(tokenizer, '<boot>\n</boot>\n', ' \n', 1000)).toBe(WHOLE[id]('<boot>\n</boot>\n \n'));
    expect(countJoined(tokenizer, '<boot>', '\n</boot>\n', 1000)).toBe(WHOLE[id]('<boot>\n</boot>\n'));
  });
});

describe('countJoined (chars4)', () => {
  it('counts the whole text: ceil(length / 4) does not add up', () => {
    const chars4 = createChars4Tokenizer();
    // a deliberately wrong known count: the sum would be 1001
    expect(countJoined(chars4, 'ab\n', 'cd\n', 1000)).toBe(2);
  });
});

describe('safe split points', () => {
  it.each([
    ['a\nb', 2],
    ['a\n b\nc', 2],
    ['a\n\t\t}', 2],
    ['a\n  /b', 2],
    ['a\n \nc', 4],
    ['a\n   ', -1],
    ['a\n \u00a0b\nc', 6],
    ['a\n é\nc', 5],
    ['a\n/b\n}', 5],
    ['no newline', -1],
    ['ends with a newline\n', -1],
    ['\n\nx', 2],
  ])('nextSafeSplit(%j) = %i', (text, at) => {
    expect(nextSafeSplit(text)).toBe(at);
  });

  it('a safe start is printable ASCII other than space and slash', () => {
    expect([...' !/0A}~\t\u007f'].map((c) => isSafeStart(c.charCodeAt(0)))).toEqual([false, true, false, true, true, true, true, false, false]);
  });
});

describe('memoiseTokenizers', () => {
  it('makes each id once, and again after a failed load', async () => {
    const made: TokenizerId[] = [];
    let failNext = true;
    const once = memoiseTokenizers(async (id) => {
      made.push(id);
      if (id === 'cl100k' && failNext) {
        failNext = false;
        throw new Error('table missing');
      }
      return createTokenizer(id);
    });
    const [a, b] = await Promise.all([once('o200k'), once('o200k')]);
    expect(a).toBe(b);
    expect(await once('o200k')).toBe(a);
    await expect(once('cl100k')).rejects.toThrow('table missing');
    expect((await once('cl100k')).id).toBe('cl100k');
    expect(made).toEqual(['o200k', 'cl100k', 'cl100k']);
  });

  it('marks what it makes as long-lived, and nothing else', async () => {
    const once = memoiseTokenizers();
    expect(isLongLived(await once('o200k'))).toBe(true);
    expect(isLongLived(await createTokenizer('o200k'))).toBe(false);
  });
});
