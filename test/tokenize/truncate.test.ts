import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { applyMaxLines, countLines, TRUNCATE_STRATEGIES, truncateWithStrategy, type TruncateStrategy } from '../../src/tokenize/truncate.js';
import { createChars4Tokenizer, createTokenizer, TOKENIZER_IDS, type Tokenizer, type TokenizerId } from '../../src/tokenize/tokenizer.js';
import { anyText, graphemeBoundaries, linesText, RUNS, TEXT_KINDS } from './arbitraries.js';

const tokenizers = new Map<TokenizerId, Tokenizer>();
beforeAll(async () => {
  for (const id of TOKENIZER_IDS) tokenizers.set(id, await createTokenizer(id));
});
const get = (id: TokenizerId): Tokenizer => tokenizers.get(id) ?? createChars4Tokenizer();

const TOKEN_MARKER = /^\[\.\.\. [\d,]+ (lines?|characters?) \([\d,]+ tokens?\) cut \.\.\.\]$/;
const LINE_MARKER = /^\[\.\.\. [\d,]+ lines? cut \.\.\.\]$/;
const CUTTING: TruncateStrategy[] = ['start', 'middle', 'end'];

/** Split a truncated result at its marker line into the kept head and tail. */
function splitAtMarker(out: string, marker: RegExp): { head: string; marker: string; tail: string } | undefined {
  const lines = out.split('\n');
  const at = lines.findIndex((line) => marker.test(line));
  if (at === -1) return undefined;
  const head = lines.slice(0, at).join('\n');
  return { head: at > 0 ? `${head}\n` : '', marker: lines[at] ?? '', tail: lines.slice(at + 1).join('\n') };
}

/** The kept parts are the original's head and tail (a char cut adds a newline before the marker). */
function keptPartsMatch(original: string, head: string, tail: string): boolean {
  const headOk = head === '' || original.startsWith(head) || original.startsWith(head.slice(0, -1));
  return headOk && original.endsWith(tail);
}

/** How many lines of the original contribute to the kept head and tail (a line cut in two counts once). */
function originalLinesKept(original: string, head: string, tail: string): number {
  const headEnd = original.startsWith(head) ? head.length : head.length - 1; // a char cut adds "\n" before the marker
  const tailStart = original.length - tail.length;
  const sameLine = headEnd > 0 && tail.length > 0 && original[headEnd - 1] !== '\n' && !original.slice(headEnd, tailStart).includes('\n');
  return countLines(original.slice(0, headEnd)) + countLines(tail) - (sameLine ? 1 : 0);
}

describe.each(TOKENIZER_IDS)('truncateWithStrategy with %s', (id) => {
  it.each(TEXT_KINDS)('every strategy stays within its budget, exactly counted (%s)', (_kind, text) => {
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 150 }), fc.constantFrom(...TRUNCATE_STRATEGIES), (t, budget, strategy) => {
        const tk = get(id);
        const out = truncateWithStrategy(t, { budget, strategy, tokenizer: tk });
        const original = tk.count(t);
        if (original <= budget) {
          expect(out).toEqual({ text: t, tokens: original, originalTokens: original, truncated: false });
          return;
        }
        if (strategy === 'never') {
          expect(out).toBeNull();
          return;
        }
        if (out === null) return;
        expect(out.tokens).toBe(tk.count(out.text));
        expect(out.tokens).toBeLessThanOrEqual(budget);
        expect(out.originalTokens).toBe(original);
        expect(out.truncated).toBe(true);
        const parts = splitAtMarker(out.text, TOKEN_MARKER);
        expect(parts, `marker missing in ${JSON.stringify(out.text)}`).toBeDefined();
        if (!parts) return;
        expect(keptPartsMatch(t, parts.head, parts.tail)).toBe(true);
        expect(parts.head.length + parts.tail.length).toBeGreaterThan(0);
        if (strategy === 'end') expect(parts.tail).toBe('');
        if (strategy === 'start') expect(parts.head).toBe('');
      }),
      RUNS,
    );
  });

  it('returns null when the budget is below the marker size', () => {
    const text = 'one line of text here\n'.repeat(50);
    for (const strategy of CUTTING) expect(truncateWithStrategy(text, { budget: 4, strategy, tokenizer: get(id) })).toBeNull();
  });

  it('max_lines holds together with the budget', () => {
    fc.assert(
      fc.property(linesText, fc.integer({ min: 1, max: 8 }), fc.integer({ min: 20, max: 400 }), fc.constantFrom(...CUTTING), (t, maxLines, budget, strategy) => {
        const tk = get(id);
        const out = truncateWithStrategy(t, { budget, strategy, tokenizer: tk, maxLines });
        if (out === null) return;
        expect(out.tokens).toBeLessThanOrEqual(budget);
        const parts = splitAtMarker(out.text, TOKEN_MARKER);
        expect(parts ? originalLinesKept(t, parts.head, parts.tail) : countLines(out.text)).toBeLessThanOrEqual(maxLines);
        if (!out.truncated) expect(out.text).toBe(t);
      }),
      RUNS,
    );
  });
});

describe('truncateWithStrategy, exact cuts (chars4)', () => {
  const tk = createChars4Tokenizer();
  const text = Array.from({ length: 10 }, (_, i) => `line ${i} is here`).join('\n'); // 10 lines of 14 or 15 chars

  it.each([
    ['end', 'line 0 is here\nline 1 is here\n[... 8 lines (30 tokens) cut ...]'],
    ['start', '[... 8 lines (30 tokens) cut ...]\nline 8 is here\nline 9 is here'],
    ['middle', 'line 0 is here\n[... 8 lines (30 tokens) cut ...]\nline 9 is here'],
  ] as const)('%s keeps whole lines and marks the cut', (strategy, expected) => {
    const out = truncateWithStrategy(text, { budget: 18, strategy, tokenizer: tk });
    expect(out?.text).toBe(expected);
    expect(out?.tokens).toBeLessThanOrEqual(18);
  });

  it('never is whole or null', () => {
    expect(truncateWithStrategy(text, { budget: 18, strategy: 'never', tokenizer: tk })).toBeNull();
    expect(truncateWithStrategy(text, { budget: 1000, strategy: 'never', tokenizer: tk })?.truncated).toBe(false);
    expect(truncateWithStrategy(text, { budget: 1000, strategy: 'never', tokenizer: tk, maxLines: 3 })).toBeNull();
  });

  it('cuts characters when whole lines would waste most of the budget', () => {
    const minified = `short\n${'x'.repeat(400)}`;
    const out = truncateWithStrategy(minified, { budget: 30, strategy: 'end', tokenizer: tk });
    expect(out?.text).toMatch(/^short\nx+\n\[\.\.\. [\d,]+ characters \([\d,]+ tokens\) cut \.\.\.\]$/);
    expect(out?.tokens).toBeLessThanOrEqual(30);
  });

  it.each(['end', 'start'] as const)('cuts characters between grapheme clusters (%s)', (strategy) => {
    const emoji = '👩‍💻e\u0301🇫🇷'.repeat(60); // no line breaks: a character cut
    const out = truncateWithStrategy(emoji, { budget: 40, strategy, tokenizer: tk });
    const kept = (out?.text ?? '').split('\n').find((line) => !line.startsWith('[...')) ?? '';
    expect(kept.length).toBeGreaterThan(0);
    expect(graphemeBoundaries(emoji).has(strategy === 'end' ? kept.length : emoji.length - kept.length)).toBe(true);
  });

  it('applies max_lines before the budget, with one marker', () => {
    const out = truncateWithStrategy(text, { budget: 1000, strategy: 'middle', tokenizer: tk, maxLines: 3 });
    expect(out?.text).toBe('line 0 is here\nline 1 is here\n[... 7 lines (26 tokens) cut ...]\nline 9 is here');
  });

  it('writes thousands separators in the marker', () => {
    const big = 'word '.repeat(5000);
    const out = truncateWithStrategy(big, { budget: 40, strategy: 'end', tokenizer: tk });
    expect(out?.text).toMatch(/\[\.\.\. \d{1,2},\d{3} characters \(6,\d{3} tokens\) cut \.\.\.\]$/);
  });
});

describe('applyMaxLines', () => {
  it.each([
    ['end', 'a\nb\n[... 3 lines cut ...]'],
    ['start', '[... 3 lines cut ...]\nd\ne\n'],
    ['middle', 'a\n[... 3 lines cut ...]\ne\n'],
    ['never', 'a\nb\nc\nd\ne\n'],
  ] as const)('%s', (strategy, expected) => {
    expect(applyMaxLines('a\nb\nc\nd\ne\n', 2, strategy).text).toBe(expected);
  });

  it('keeps at most maxLines lines of the text plus one marker line', () => {
    fc.assert(
      fc.property(linesText, fc.integer({ min: 1, max: 10 }), fc.constantFrom(...CUTTING), (t, maxLines, strategy) => {
        const out = applyMaxLines(t, maxLines, strategy);
        expect(out.truncated).toBe(countLines(t) > maxLines);
        if (!out.truncated) return out.text === t;
        const parts = splitAtMarker(out.text, LINE_MARKER);
        expect(parts).toBeDefined();
        if (!parts) return false;
        return countLines(parts.head) + countLines(parts.tail) <= maxLines && keptPartsMatch(t, parts.head, parts.tail);
      }),
      RUNS,
    );
  });

  it.each([0, -1])('maxLines %d means no limit', (maxLines) => {
    fc.assert(fc.property(anyText, (t) => applyMaxLines(t, maxLines, 'end').text === t), RUNS);
  });
});

describe('large texts', () => {
  it.each(CUTTING)('%s cuts 500 kB with few count() calls and fills the budget', async (strategy) => {
    const tk = await createTokenizer('o200k');
    let calls = 0;
    const counting: Tokenizer = { id: tk.id, count: (t) => (calls++, tk.count(t)) };
    const text = 'const value = compute(input); // a line of code\n'.repeat(10_000);
    const out = truncateWithStrategy(text, { budget: 5000, strategy, tokenizer: counting });
    expect(out?.tokens).toBeLessThanOrEqual(5000);
    expect(out?.tokens).toBeGreaterThan(4900);
    expect(calls).toBeLessThan(60);
  });
});
