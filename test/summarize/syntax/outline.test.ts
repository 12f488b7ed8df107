import { describe, expect, it } from 'vitest';
import { languageForPath } from '../../../src/summarize/languages/index.js';
import { renderItems } from '../../../src/summarize/outline/render.js';
import { createSyntaxEngine } from '../../../src/summarize/syntax/engine.js';
import { buildSyntaxOutline } from '../../../src/summarize/syntax/outline.js';

const syntax = createSyntaxEngine();

async function detailed(path: string, source: string): Promise<string> {
  const language = languageForPath(path)!;
  const items = await syntax.withTree(language, source, (tree) => buildSyntaxOutline(tree, source, language));
  return renderItems(items!, new Set());
}

describe('syntax outlines', () => {
  it.each([
    [
      'python class docstring kept whole, bodies elided with a line count',
      'k.py',
      'class K:\n    """Line one.\n\n    Line three.\n    """\n\n    def m(self):\n        a = 1\n        return a\n',
      'class K:\n    """Line one.\n\n    Line three.\n    """\n\n    def m(self):\n        ...  # 2 lines',
    ],
    [
      'a trailing comment on a closing line is not repeated',
      'n.cpp',
      'namespace n {\nint f() {\n  return 1;\n}\n}  // namespace n\n',
      'namespace n {\nint f() { … }\n}  // namespace n',
    ],
    [
      'multi-line statements keep their first line and a marker',
      's.ts',
      "setup({\n  retries: 3,\n});\n",
      'setup({ …',
    ],
    [
      'test suites are outlined: describe blocks keep their cases, case bodies are elided',
      's.test.ts',
      "describe('retry', () => {\n  beforeEach(() => {\n    reset();\n  });\n\n  it('works', async () => {\n    expect(1).toBe(1);\n  });\n  it.each([1, 2])('case %s', (n) => {\n    expect(n).toBeGreaterThan(0);\n  });\n});\n",
      "describe('retry', () => {\n  beforeEach(() => { … });\n\n  it('works', async () => { … });\n  it.each([1, 2])('case %s', (n) => { … });\n});",
    ],
    [
      'one-line bodies stay as they are',
      'o.go',
      'package o\n\nfunc One() int { return 1 }\n',
      'package o\n\nfunc One() int { return 1 }',
    ],
    [
      'arrow functions in const declarations are elided like functions',
      'a.ts',
      'export const run = async (x: number): Promise<void> => {\n  await x;\n};\n',
      'export const run = async (x: number): Promise<void> => { … };',
    ],
    [
      'two definitions on one row (non-ASCII text before them) do not repeat the row',
      'u.ts',
      'const s = "ü😀"; export function f(a = "é") {\n  return a;\n}\n',
      'const s = "ü😀"; export function f(a = "é") {\nexport function f(a = "é") { … }',
    ],
  ])('%s', async (_name, path, source, expected) => {
    expect(await detailed(path, source)).toBe(expected);
  });
});

describe('SyntaxEngine.outline: one parse per text for the whole process', () => {
  it('gives what buildSyntaxOutline gives, and the same items to another engine asked for the same text', async () => {
    const language = languageForPath('src/retry.ts')!;
    const source = `export function retryOnce${Date.now()}(attempt: number): number {\n  return attempt + 1;\n}\n\nexport class Backoff {\n  next(): number {\n    return 2;\n  }\n}\n`;
    const direct = await syntax.withTree(language, source, (tree) => buildSyntaxOutline(tree, source, language));
    const first = await createSyntaxEngine().outline(language, source);
    expect(first).toEqual(direct);
    const second = await createSyntaxEngine().outline(language, source);
    expect(second).toBe(first);
    // another text, or another language, is parsed for itself
    const changed = await createSyntaxEngine().outline(language, source.replace('attempt + 1', 'attempt + 2'));
    expect(changed).not.toBe(first);
    const asJs = await createSyntaxEngine().outline(languageForPath('src/retry.js')!, source);
    expect(asJs).not.toBe(first);
  });
});
