import { describe, expect, it } from 'vitest';
import { isProgressLine, normaliseToolOutput, outputPointer, prepareToolOutput } from '../../src/conversation/tool-output.js';
import { sha256Hex } from '../../src/util/hash.js';
import { createChars4Tokenizer } from '../../src/tokenize/tokenizer.js';

const tokenizer = createChars4Tokenizer();

describe('normaliseToolOutput (spec 002 D: noise removed before the cap)', () => {
  it.each<[string, string, string, number]>([
    ['ANSI colours', '\u001b[31mFAIL\u001b[0m a.test.ts', 'FAIL a.test.ts', 0],
    ['carriage-return redraws keep the last state', 'build 10%\rbuild 60%\rbuild done', 'build done', 0],
    ['a run of progress lines keeps its last line', 'start\nDownloading 10%\nDownloading 50%\nDownloading 100%\nend', 'start\n[... 2 progress lines collapsed ...]\nDownloading 100%\nend', 2],
    ['ninja-style step counters', '[1/3] cc a.c\n[2/3] cc b.c\n[3/3] link\nok', '[... 2 progress lines collapsed ...]\n[3/3] link\nok', 2],
    ['a run of identical lines becomes one and a count', 'x\nwarn: deprecated\nwarn: deprecated\nwarn: deprecated\nwarn: deprecated\ny', 'x\nwarn: deprecated\n[... previous line repeated 3 more times ...]\ny', 3],
    ['two identical lines stay', 'a\na\nb', 'a\na\nb', 0],
    ['blank-line runs shrink to one', 'a\n\n\n\nb', 'a\n\nb', 2],
    ['trailing spaces go', 'a   \nb\t', 'a\nb', 0],
    ['ordinary output is untouched', 'src/a.ts:3: error TS2322\nFound 1 error.', 'src/a.ts:3: error TS2322\nFound 1 error.', 0],
  ])('%s', (_, raw, text, collapsed) => {
    expect(normaliseToolOutput(raw)).toEqual({ text, collapsed });
  });

  it.each([
    ['Receiving objects:  45% (450/1000)', true],
    ['[#####     ] 50%', true],
    ['  67%', true],
    ['|', true],
    ['Coverage of src/a.ts is 87% of lines, below the 90% threshold set in the config file', false],
    ['error: expected 3', false],
  ])('isProgressLine(%j) is %s', (line, expected) => {
    expect(isProgressLine(line)).toBe(expected);
  });
});

describe('prepareToolOutput (spec 002 D: capped, full text out of band, pointer left)', () => {
  const raw = Array.from({ length: 400 }, (_, i) => `line ${i}: compiled module ${i}`).join('\n');

  it('passes a small verbatim output through', () => {
    expect(prepareToolOutput('ok', { cap: 100, tokenizer, storeOutOfBand: true })).toEqual({ text: 'ok', tokens: 1, changed: false, capped: false });
  });

  it('caps at the cap, keeps the end, and points to the full text', () => {
    const out = prepareToolOutput(raw, { cap: 200, tokenizer, storeOutOfBand: true });
    expect(out.tokens).toBeLessThanOrEqual(200);
    expect(out.tokens).toBe(tokenizer.count(out.text));
    expect(out.capped).toBe(true);
    expect(out.pointer).toBe(outputPointer(raw));
    expect(out.pointer).toMatch(/^sha256:[0-9a-f]{16}$/);
    expect(sha256Hex(raw).startsWith(out.pointer!.slice(7))).toBe(true);
    const lines = out.text.split('\n');
    expect(lines[0]).toBe(`[full output, ${tokenizer.count(raw).toLocaleString('en-US')} tokens, stored out of band: aiwg conversation show-output ${out.pointer}]`);
    expect(lines[1]).toMatch(/^\[\.\.\. .* cut .*\]$/);
    expect(lines[lines.length - 1]).toBe('line 399: compiled module 399');
  });

  it('points to the full text when only noise was removed', () => {
    const noisy = 'Downloading 1%\nDownloading 2%\nDownloading 3%\ndone';
    const out = prepareToolOutput(noisy, { cap: 1000, tokenizer, storeOutOfBand: true });
    expect(out).toMatchObject({ changed: true, capped: false, pointer: outputPointer(noisy) });
    expect(out.text).toContain('[... 2 progress lines collapsed ...]\nDownloading 3%\ndone');
  });

  it('leaves no pointer when nothing is stored', () => {
    const out = prepareToolOutput(raw, { cap: 200, tokenizer, storeOutOfBand: false });
    expect(out.pointer).toBeUndefined();
    expect(out.text).not.toContain('show-output');
    expect(out.tokens).toBeLessThanOrEqual(200);
  });
});
