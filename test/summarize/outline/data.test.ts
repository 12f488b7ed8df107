import { describe, expect, it } from 'vitest';
import { outlineData, parseTomlKeys } from '../../../src/summarize/outline/data.js';
import { renderItems } from '../../../src/summarize/outline/render.js';
import { outlineMarkdown } from '../../../src/summarize/outline/markdown.js';
import { analyzeFile } from '../../../src/summarize/outline/index.js';
import { createSyntaxEngine } from '../../../src/summarize/syntax/engine.js';

const render = async (format: 'json' | 'yaml' | 'toml', text: string) => {
  const items = await outlineData(format, text);
  return items && renderItems(items, new Set());
};

describe('data outlines', () => {
  it.each([
    ['json', '{"a": {"b": 1}, "list": [1, 2]}', 'a:\n  b: 1\nlist: [2 items] e.g. 1'],
    ['json', '// tsconfig style\n{ "compilerOptions": { "strict": true, }, }', 'compilerOptions:\n  strict: true'],
    ['json', '[{"id": 1, "name": "x"}]', '(root): [1 item] of {id, name}'],
    ['yaml', 'a: 1\n---\nb: 2\n', '(root): [2 items] of {a}'],
    ['yaml', 'empty: {}\nlong: ' + 'y'.repeat(100), `empty: {}\nlong: ${'y'.repeat(59)}…`],
    ['toml', 'title = "x"\n[a.b]\nc = 1 # note\n', 'title: "x"\na:\n  b:\n    c: 1'],
    ['toml', 'deps = [\n  "a",\n  "b",\n]\n[[bin]]\nname = "one"\n[[bin]]\nname = "two"\n', 'deps: [\nbin: [2 items] of {name}'],
  ] as const)('%s %j', async (format, text, expected) => {
    expect(await render(format, text)).toBe(expected);
  });

  it('a document that does not parse is null (the line fallback takes it)', async () => {
    expect(await render('json', '{"a": ')).toBeNull();
    expect(await render('yaml', 'a: [1, 2')).toBeNull();
    expect(() => parseTomlKeys('just words')).toThrow();
    const analysis = await analyzeFile('broken.json', '{"a": \n  1', { syntax: createSyntaxEngine() });
    expect(analysis).toMatchObject({ family: 'text', fileType: 'JSON' });
  });

  it('stops at depth 4 with a key count', async () => {
    expect(await render('json', '{"a":{"b":{"c":{"d":{"e":1},"f":2}}}}')).toBe('a:\n  b:\n    c:\n      d: {1 key}\n      f: 2');
  });
});

describe('markdown outline', () => {
  it('nests headings, skips fenced code and front matter, keeps first sentences', () => {
    const md = '---\ntitle: x\n---\nIntro line. More.\n\n# A\n\nFirst. Second.\n\n```\n# not a heading\n```\n\n## B\n- item one. two\n\nC\n===\n';
    const items = outlineMarkdown(md);
    expect(renderItems(items, new Set())).toBe('Intro line.\n# A\nFirst.\n## B\nitem one.\n# C');
    expect(items.map((i) => i.name ?? i.kind)).toEqual(['comment', 'A', 'C']);
    expect(items[1]!.children.map((c) => c.name)).toEqual(['B']);
  });
});
