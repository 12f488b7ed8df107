import fc from 'fast-check';
import { createTokenizer, TOKENIZER_IDS, type Tokenizer } from '../../src/tokenize/tokenizer.js';

/** Text generators for property tests: short strings, so the suite stays fast. */

const PROSE = ['The', 'budget', 'holds.', 'Files', 'are', 'scored,', 'then', 'cut.', 'Why?', 'Because', 'tokens', 'cost', 'money.', 'e.g.', 'a', 'x'];
const SEPARATORS = [' ', ' ', ' ', '\n', '. ', '.\n', '\n\n', '\t'];
const NON_ASCII = ['日本語', 'の', '文章。', '中文', '한국어', 'é', 'e\u0301', 'n\u0303', 'a\u0308\u0304', '😀', '👩‍💻', '🇫🇷', '👍🏽', 'Ω', 'ß', 'ﬁ', '\u200b', 'Привет', 'мир.', 'ע', 'ب'];
const CODE = [
  'function ', 'fooBar', '(x: number)', ' => ', '{', '}', ';', '\n', '  ', '\t', 'const x = 1;', '// comment', '/* block */',
  'return', ' ', '"str"', "'s'", '`t${x}`', 'if (a && b)', '[0]', '<|endoftext|>', '<|im_start|>', '0x1F', '1e-6', '\\n', '#include <x>', 'def f():', '    pass',
];

const joined = (pieces: string[], maxLength: number) => fc.array(fc.constantFrom(...pieces), { maxLength }).map((parts) => parts.join(''));

/** Prose: words and sentence boundaries. */
export const proseText = fc
  .array(fc.tuple(fc.constantFrom(...PROSE), fc.constantFrom(...SEPARATORS)), { maxLength: 60 })
  .map((parts) => parts.map(([w, s]) => w + s).join(''));

/** Printable ASCII, arbitrary. */
export const asciiText = fc.string({ maxLength: 300 });

/** CJK, emoji (ZWJ sequences, flags, skin tones), combining marks, mixed with ASCII words. */
export const nonAsciiText = fc.oneof(
  joined([...NON_ASCII, ...PROSE, ' ', '\n'], 80),
  fc.string({ unit: 'grapheme', maxLength: 120 }),
);

/** Code-like text, including special-token strings that real repositories contain. */
export const codeText = joined(CODE, 120);

/** Any of the above. */
export const anyText = fc.oneof(proseText, asciiText, nonAsciiText, codeText);

export const TEXT_KINDS = [
  ['prose', proseText],
  ['ascii', asciiText],
  ['non-ascii', nonAsciiText],
  ['code', codeText],
] as const;

/** Line-oriented text for max_lines and line cuts. */
export const linesText = fc
  .array(fc.oneof(proseText, codeText, nonAsciiText).map((s) => s.replace(/\n/g, ' ')), { minLength: 0, maxLength: 30 })
  .chain((lines) => fc.boolean().map((trailing) => lines.join('\n') + (trailing && lines.length > 0 ? '\n' : '')));

/** Property runs per test: modest, to keep the suite fast on a shared machine. */
export const RUNS = { numRuns: 100 } as const;

/** All three tokenizers, created once per test file. */
export async function allTokenizers(): Promise<Tokenizer[]> {
  return Promise.all(TOKENIZER_IDS.map((id) => createTokenizer(id)));
}

/** Offsets where grapheme clusters start (and the end of the text). */
export function graphemeBoundaries(text: string): Set<number> {
  const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
  const bounds = new Set([text.length]);
  for (const { index } of segmenter.segment(text)) bounds.add(index);
  return bounds;
}
