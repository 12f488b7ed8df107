import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fileBlockCost, fileBlockCosts } from '../../src/assemble/block-cost.js';
import { renderFileBlock } from '../../src/assemble/render.js';
import { getOutputFormat } from '../../src/assemble/formats/index.js';
import { createTokenizer, memoiseTokenizers, type Tokenizer } from '../../src/tokenize/tokenizer.js';
import type { RenderFormat } from '../../src/stages.js';

const tokenizers: Tokenizer[] = [];
beforeAll(async () => {
  tokenizers.push(await createTokenizer('o200k'), await createTokenizer('cl100k'));
});

/** Lines that stress pre-token boundaries: indentation, comments, slashes, punctuation runs, CRLF. */
const LINE = fc.oneof(
  fc.constantFrom('', ' ', '  indented();', '\tx', '// comment', '/* c */', '/// doc', '}', '});', '*/', '#!/bin', '\r', '123456', "'s", 'ü', '日本', '🙂', '```', '</context>', '<|endoftext|>', '   ', '- item', '"quoted"'),
  fc.string({ unit: 'grapheme-ascii', maxLength: 16 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
);
const CONTENT = fc.array(LINE, { maxLength: 14 }).chain((lines) => fc.constantFrom('', '\n', '\n\n').map((end) => lines.join('\n') + end));

describe('fileBlockParts', () => {
  it.each(['xml', 'markdown'] as RenderFormat[])('%s: prefix + content + suffix is the block whenever parts are given', (format) => {
    const f = getOutputFormat(format);
    fc.assert(
      fc.property(CONTENT, fc.boolean(), (content, truncated) => {
        const input = { path: 'src/a.ts', level: 'detailed' as const, content, tokens: 7, truncated };
        const parts = f.fileBlockParts?.(input);
        if (parts) expect(parts.prefix + content + parts.suffix).toBe(f.fileBlock(input));
        else expect(format).toBe('xml');
      }),
      { numRuns: 300 },
    );
  });
});

describe('fileBlockCost', () => {
  it.each(['xml', 'markdown', 'json'] as RenderFormat[])('equals the whole count of block + separator, and the block prints that cost (%s, o200k and cl100k)', (format) => {
    fc.assert(
      fc.property(CONTENT, fc.constantFrom('src/a.ts', 'docs/x y.md', 'b'), (content, path) => {
        for (const tokenizer of tokenizers) {
          const input = { path, level: 'full' as const, content, tokens: tokenizer.count(content) };
          const { block, cost } = fileBlockCost(input, format, tokenizer);
          expect(block).toBe(renderFileBlock({ ...input, tokens: cost }, format));
          expect(cost).toBe(tokenizer.count(block + getOutputFormat(format).blockSeparator));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('fileBlockCosts', () => {
  it.each(['xml', 'markdown', 'json'] as RenderFormat[])('gives each block what fileBlockCost gives it alone, asking the tokenizer a few times, not once per block (%s)', (format) => {
    fc.assert(
      fc.property(fc.array(fc.tuple(CONTENT, fc.constantFrom('src/a.ts', 'docs/x y.md', 'b')), { minLength: 1, maxLength: 40 }), (files) => {
        for (const tokenizer of tokenizers) {
          const inputs = files.map(([content, path]) => ({ path, level: 'detailed' as const, content, tokens: tokenizer.count(content) }));
          let calls = 0;
          const counting: Tokenizer = {
            id: tokenizer.id,
            count: (text) => {
              calls++;
              return tokenizer.count(text);
            },
            countMany: (texts) => {
              calls++;
              return tokenizer.countMany!(texts);
            },
          };
          expect(fileBlockCosts(inputs, format, counting)).toEqual(inputs.map((input) => fileBlockCost(input, format, tokenizer)));
          // one batch per round of the settling loop (at most five), whatever the number of blocks
          expect(calls).toBeLessThanOrEqual(5);
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe('fileBlockCosts with a long-lived tokenizer', () => {
  it.each(['xml', 'markdown', 'json'] as RenderFormat[])('keeps each block\'s cost: a block asked again is not counted again, and equals a one-shot count (%s)', async (format) => {
    const oneShot = tokenizers[0]!;
    const kept = await memoiseTokenizers()('o200k');
    let counted: string[] = [];
    const spied = kept.countMany!;
    kept.countMany = (texts) => {
      counted.push(...texts);
      return spied(texts);
    };
    fc.assert(
      fc.property(fc.array(fc.tuple(CONTENT, fc.constantFrom('src/a.ts', 'docs/x y.md', 'b'), fc.constantFrom('full', 'detailed') as fc.Arbitrary<'full' | 'detailed'>), { minLength: 1, maxLength: 20 }), (files) => {
        // one block per path and level, as an allocation asks: the kept cost of a path and level is its last content's
        const inputs = files.map(([content, path, level], i) => ({ path: `${i}/${path}`, level, content, tokens: oneShot.count(content) }));
        const expected = inputs.map((input) => fileBlockCost(input, format, oneShot));
        expect(fileBlockCosts(inputs, format, kept)).toEqual(expected);
        counted = [];
        // asked again: every block from what was kept, nothing counted
        expect(fileBlockCosts(inputs, format, kept)).toEqual(expected);
        expect(counted).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  it('costs a block again when its content changed under the same path, level and count', async () => {
    const kept = await memoiseTokenizers()('o200k');
    const before = { path: 'src/a.ts', level: 'full' as const, content: 'const a = 1;\n', tokens: 6 };
    const after = { ...before, content: 'const a = 1;\n'.repeat(30) };
    fileBlockCosts([before], 'xml', kept);
    expect(fileBlockCosts([after], 'xml', kept)).toEqual([fileBlockCost(after, 'xml', tokenizers[0]!)]);
  });
});
