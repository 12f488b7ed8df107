import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createChars4Tokenizer } from '../../../src/tokenize/tokenizer.js';
import { createSyntaxEngine } from '../../../src/summarize/syntax/engine.js';
import { buildSyntaxOutline } from '../../../src/summarize/syntax/outline.js';
import { languageForPath } from '../../../src/summarize/languages/index.js';
import { cutToLimit, dropOrder, dropRank, renderOutline } from '../../../src/summarize/outline/render.js';
import { outlineLines } from '../../../src/summarize/outline/fallback.js';
import type { OutlineItem } from '../../../src/summarize/outline/types.js';

const SOURCE = `// Header: what this module is for.
import { a } from './a.js';

export function publicTop(x: number): number {
  return x + 1;
}

function privateTop(): void {
  console.log('hidden');
}

export class Service {
  private cache = new Map<string, number>();

  publicMethod(): number {
    return 1;
  }

  private privateMethod(): number {
    return 2;
  }
}
`;

const chars4 = createChars4Tokenizer();
const syntax = createSyntaxEngine();

async function outline(source: string, path = 'service.ts'): Promise<OutlineItem[]> {
  const language = languageForPath(path)!;
  return (await syntax.withTree(language, source, (tree) => buildSyntaxOutline(tree, source, language)))!;
}

/** Names (or first words) still present in a rendering. */
function kept(text: string): string[] {
  return ['Header', 'import', 'publicTop', 'privateTop', 'cache', 'publicMethod', 'privateMethod', 'class Service'].filter((n) => text.includes(n));
}

describe('renderOutline shortening order', () => {
  it('ranks: nested private > top private > nested exported > import > top exported > header', async () => {
    const items = await outline(SOURCE);
    const order = dropOrder(items).map((i) => `${dropRank(i)}:${i.name ?? i.kind}`);
    expect(order).toEqual(['6:privateMethod', '6:cache', '5:privateTop', '4:publicMethod', '3:import', '2:Service', '2:publicTop', '1:comment']);
  });

  it('drops the least important items first as the limit falls, never cutting a line', async () => {
    const items = await outline(SOURCE);
    const unlimited = renderOutline(items, { tokenizer: chars4, limit: -1, commentPrefix: '//' });
    const seen: string[][] = [];
    for (let limit = chars4.count(unlimited); limit >= 0; limit -= 4) {
      const text = renderOutline(items, { tokenizer: chars4, limit, commentPrefix: '//' });
      expect(chars4.count(text)).toBeLessThanOrEqual(limit);
      for (const line of text.split('\n')) {
        expect(unlimited.split('\n').includes(line) || line.startsWith('// … ')).toBe(true);
      }
      seen.push(kept(text));
    }
    // Each kept set is a subset of the one before it.
    for (let i = 1; i < seen.length; i++) for (const name of seen[i]!) expect(seen[i - 1]).toContain(name);
    const firstGone = (name: string) => seen.findIndex((s) => !s.includes(name));
    expect(firstGone('privateMethod')).toBeLessThanOrEqual(firstGone('privateTop'));
    expect(firstGone('privateTop')).toBeLessThanOrEqual(firstGone('publicMethod'));
    expect(firstGone('publicMethod')).toBeLessThanOrEqual(firstGone('import'));
    expect(firstGone('import')).toBeLessThanOrEqual(firstGone('publicTop'));
    expect(firstGone('publicTop')).toBeLessThanOrEqual(firstGone('Header'));
  });

  it('says how many items were omitted', async () => {
    const items = await outline(SOURCE);
    const text = renderOutline(items, { tokenizer: chars4, limit: 60, commentPrefix: '//' });
    expect(text).toMatch(/\/\/ … \d+ items? omitted to fit 60 tokens$/);
    expect(text).toContain('export function publicTop');
    expect(text).not.toContain('privateMethod');
  });

  it('property: any limit is held, and every line is whole', () => {
    const items = outlineLines(Array.from({ length: 40 }, (_, i) => `line ${i} ${'x'.repeat(i % 7)}`).join('\n'));
    const unlimited = renderOutline(items, { tokenizer: chars4, limit: -1, commentPrefix: '#' }).split('\n');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 200 }), (limit) => {
        const text = renderOutline(items, { tokenizer: chars4, limit, commentPrefix: '#' });
        expect(chars4.count(text)).toBeLessThanOrEqual(limit);
        for (const line of text === '' ? [] : text.split('\n')) expect(unlimited.includes(line) || line.startsWith('# … ')).toBe(true);
      }),
    );
  });
});

describe('cutToLimit (last resort)', () => {
  it('keeps whole lines and adds a marker', () => {
    const text = ['alpha alpha alpha al', 'beta beta beta beta ', 'gamma gamma gamma ga', 'delta delta delta de'].join('\n');
    const cut = cutToLimit(text, { tokenizer: chars4, limit: 16, commentPrefix: '#' });
    expect(cut).toBe('alpha alpha alpha al\n# … 3 more lines cut to fit 16 tokens');
  });

  it('returns nothing when not even the marker fits', () => {
    expect(cutToLimit('one very long line that cannot fit', { tokenizer: chars4, limit: 2, commentPrefix: '#' })).toBe('');
  });

  it('a minified one-line file becomes a marker line, not half a line', async () => {
    const items = outlineLines(`var a=${'1+'.repeat(500)}1;`);
    const text = renderOutline(items, { tokenizer: chars4, limit: 30, commentPrefix: '#' });
    expect(text).toBe('# … 1 item omitted to fit 30 tokens');
  });
});
