import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { chunkByLines, chunkFile, MAX_CHUNKS_PER_FILE } from '../../../src/scoring/semantic/chunker.js';

const ts = [
  "import { a } from './a.js';",
  "import { b } from './b.js';",
  '',
  'export function first(x: number) {',
  '  return x + 1;',
  '}',
  '',
  'export class Second {',
  '  run() {',
  '',
  '    return 2;',
  '  }',
  '}',
  'const third = 3;',
].join('\n');

const ranges = (chunks: Array<{ startLine: number; endLine: number }>) => chunks.map((c) => [c.startLine, c.endLine]);

describe('chunkByLines', () => {
  it.each([
    ['packs the whole file when it fits', ts, 1000, [[1, 14]]],
    ['cuts at blank-line and top-level-definition boundaries', ts, 60, [[1, 3], [4, 7], [8, 13], [14, 14]]],
    ['skips an empty file', '', 100, []],
    ['skips whitespace only', '\n\n   \n', 100, []],
  ])('%s', (_name, content, max, expected) => {
    expect(ranges(chunkByLines(content, max))).toEqual(expected);
  });

  it('cuts a long block into overlapping line windows', () => {
    const content = Array.from({ length: 40 }, (_, i) => `  line number ${String(i).padStart(2, '0')} of a long body`).join('\n');
    const chunks = chunkByLines(content, 200);
    expect(chunks.length).toBeGreaterThan(5);
    for (let i = 1; i < chunks.length; i++) {
      expect(chunks[i]!.startLine).toBeLessThanOrEqual(chunks[i - 1]!.endLine);
      expect(chunks[i]!.startLine).toBeGreaterThan(chunks[i - 1]!.startLine);
    }
    expect(chunks[chunks.length - 1]!.endLine).toBe(40);
  });

  it('cuts a minified line by characters', () => {
    const chunks = chunkByLines(`var a=1;${'x'.repeat(5000)}`, 1000);
    expect(chunks.length).toBeGreaterThanOrEqual(5);
    expect(chunks.every((c) => c.text.length <= 1000 && c.startLine === 1)).toBe(true);
  });

  it('never exceeds maxChars and keeps every non-blank line (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 120 }), { maxLength: 80 }), fc.integer({ min: 20, max: 400 }), (lines, max) => {
        const content = lines.join('\n');
        const chunks = chunkByLines(content, max);
        for (const c of chunks) expect(c.text.length).toBeLessThanOrEqual(max);
        const covered = new Set<number>();
        for (const c of chunks) for (let l = c.startLine; l <= c.endLine; l++) covered.add(l);
        lines.forEach((line, i) => {
          if (line.trim() !== '' && i < lines.length) expect(covered.has(i + 1)).toBe(true);
        });
      }),
      { numRuns: 150 },
    );
  });
});

describe('chunkFile', () => {
  it('does not cut a class at a blank line inside it (its next line is indented)', () => {
    const chunks = chunkFile(ts, 60);
    expect(ranges(chunks)).toEqual([[1, 3], [4, 7], [8, 13], [14, 14]]);
    expect(chunks.find((c) => c.startLine === 8)!.text).toContain('return 2;');
  });
  it('caps the chunks of a huge file', () => {
    const content = Array.from({ length: 5000 }, (_, i) => `line ${i}\n`).join('\n');
    expect(chunkFile(content, 50).length).toBe(MAX_CHUNKS_PER_FILE);
  });
});
