import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { languageForPath, type LanguageSpec } from '../../../src/summarize/languages/index.js';
import { MIN_SPLIT_ROWS, splitBlocks } from '../../../src/summarize/syntax/blocks.js';
import { outlineBlockStore } from '../../../src/summarize/syntax/block-store.js';
import { createSyntaxEngine } from '../../../src/summarize/syntax/engine.js';
import { buildSyntaxOutline } from '../../../src/summarize/syntax/outline.js';

const syntax = createSyntaxEngine();

/** The outline of the whole text, parsed at once: what a file's outline by blocks must equal. */
async function wholeOutline(path: string, content: string) {
  const language = languageForPath(path)!;
  return syntax.withTree(language, content, (tree) => buildSyntaxOutline(tree, content, language));
}

/** The texts of a file's blocks. */
function blockTexts(content: string, style?: Parameters<typeof splitBlocks>[1]): string[] {
  return splitBlocks(content, style).map((b) => content.slice(b.start, b.end));
}

/**
 * A text differing from `content` in its first block only: the process remembers the outline of
 * every text it built (outline-memo.ts), so each engine here is given texts no other test used.
 */
function variant(content: string, tag: string, commentPrefix = '//'): string {
  return `${commentPrefix} ${tag}\n${content}`;
}

/** Filler lines inside a body, so a file passes MIN_SPLIT_ROWS. */
const body = (indent: string, n: number, line = (i: number) => `v${i} = ${i}`) => Array.from({ length: n }, (_, i) => `${indent}${line(i)}`).join('\n');

const TS = [
  '// Copyright header.',
  '',
  "'use strict';",
  "import { a } from './a.js';",
  "import { b } from './b.js';",
  '',
  '/** Retries a call. */',
  'export function retry(n: number): number {',
  body('  ', 12, (i) => `const x${i} = n + ${i};`),
  '  return n;',
  '}',
  '',
  '@sealed',
  'class Store {',
  '  get(key: string): string {',
  body('    ', 8, (i) => `const y${i} = key + ${i};`),
  '    return key;',
  '  }',
  '}',
  '',
  'const template = `',
  'function notCode() {}',
  '`;',
  '',
  '/*',
  'const alsoNotCode = 1;',
  '*/',
  'export const handler = (',
  '  req: string,',
  ') => req;',
  '',
  'exports.extra = retry;',
  'if (retry(1)) {',
  '  log();',
  '} else {',
  '  fail();',
  '}',
  'function last() {',
  body('  ', 6, (i) => `last${i}();`),
  '}',
  '',
].join('\n');

const PY = [
  '"""Module docstring.',
  '',
  'Text at column zero inside the docstring.',
  '"""',
  'import os',
  'import sys',
  '',
  "__all__ = ['public', 'Klass']",
  '',
  '',
  '# A comment on the decorator.',
  '@decorator(',
  '    "arg",',
  ')',
  '@another',
  'def public(x):',
  body('    ', 10),
  '    return x',
  '',
  '',
  'class Klass:',
  '    """Doc."""',
  '',
  '    def method(self):',
  body('        ', 10),
  '        return 1',
  '',
  '',
  'def _private():',
  '    pass',
  '',
  '',
  'try:',
  '    import fast',
  'except ImportError:',
  '    fast = None',
  'else:',
  '    pass',
  '',
  'if __name__ == "__main__":',
  '    public(1)',
  '',
].join('\n');

const GO = [
  '// Package p does things.',
  'package p',
  '',
  'import (',
  '\t"fmt"',
  '\t"os"',
  ')',
  '',
  '// Run runs.',
  'func Run(n int) int {',
  body('\t', 12, (i) => `n += ${i}`),
  '\treturn n',
  '}',
  '',
  'type T struct {',
  '\tA int',
  '\tb string',
  '}',
  '',
  'func (t *T) Name() string {',
  body('\t', 10, (i) => `fmt.Println(${i})`),
  '\treturn t.b',
  '}',
  '',
  'var x = os.Args',
  '',
].join('\n');

describe('top-level blocks (blocks.ts)', () => {
  it('cover the text exactly, in order, each starting at a line start, and put no cut where the statement goes on', () => {
    for (const content of [TS, PY, GO]) {
      const blocks = splitBlocks(content);
      expect(blocks.length).toBeGreaterThan(3);
      expect(blocks[0]!.start).toBe(0);
      expect(blocks.at(-1)!.end).toBe(content.length);
      for (let i = 1; i < blocks.length; i++) {
        expect(blocks[i]!.start).toBe(blocks[i - 1]!.end);
        expect(content[blocks[i]!.start - 1]).toBe('\n');
        expect(blocks[i]!.row).toBe(content.slice(0, blocks[i]!.start).split('\n').length - 1);
      }
    }
    const ts = blockTexts(TS);
    // the header, the directive and the first code line stay together; so does the run of imports
    expect(ts[0]).toContain('// Copyright header.');
    expect(ts[0]).toContain("import { b } from './b.js';");
    // the doc comment and the decorator go with what they document
    expect(ts.some((t) => t.startsWith('/** Retries a call. */\nexport function retry'))).toBe(true);
    expect(ts.some((t) => t.startsWith('@sealed\nclass Store'))).toBe(true);
    // nothing starts inside a template string or a block comment, after an opening line, or at `} else {`
    for (const start of ['function notCode', 'const alsoNotCode', ') => req', '} else {']) expect(ts.some((t) => t.startsWith(start))).toBe(false);
    const py = blockTexts(PY);
    expect(py[0]).toContain('Text at column zero inside the docstring.');
    expect(py.some((t) => t.startsWith('# A comment on the decorator.\n@decorator(\n'))).toBe(true);
    expect(py.some((t) => t.startsWith('def public'))).toBe(false);
    expect(py.some((t) => t.startsWith('except') || t.startsWith('else'))).toBe(false);
  });

  it('a file under MIN_SPLIT_ROWS rows is one block', () => {
    const content = Array.from({ length: MIN_SPLIT_ROWS - 1 }, (_, i) => `const a${i} = ${i};`).join('\n');
    expect(splitBlocks(content)).toEqual([{ start: 0, end: content.length, row: 0 }]);
  });

  it('a language with a preprocessor is never cut inside a column-0 #if region; a language parsed whole is never cut', async () => {
    const cs = [
      'using System;',
      '#if HAVE_SPANS',
      'using System.Buffers;',
      'static class Spans {',
      body('    ', 8, (i) => `// line ${i}`),
      '}',
      '#endif',
      '',
      'namespace N;',
      '',
      'public class A {',
      body('    ', MIN_SPLIT_ROWS, (i) => `public int F${i};`),
      '}',
      '',
    ].join('\n');
    const texts = blockTexts(cs, 'preprocessor');
    expect(texts.length).toBeGreaterThan(1);
    // cut by lines alone, the region would be cut
    expect(blockTexts(cs).some((t) => t.startsWith('static class Spans'))).toBe(true);
    for (const start of ['using System.Buffers', 'static class Spans', '#endif']) expect(texts.some((t) => t.startsWith(start))).toBe(false);
    const [csharp, php] = [languageForPath('A.cs')!, languageForPath('a.php')!];
    expect(splitBlocks(cs, csharp.blocks).map((b) => cs.slice(b.start, b.end))).toEqual(texts);
    expect(await createSyntaxEngine().outline(csharp, cs)).toEqual(await wholeOutline('A.cs', cs));
    const source = `<?php\n\nfunction a() {\n${body('    ', MIN_SPLIT_ROWS, (i) => `$v${i} = ${i};`)}\n}\n\nfunction b() {\n    return 1;\n}\n`;
    expect(splitBlocks(source, php.blocks)).toHaveLength(1);
    const engine = createSyntaxEngine();
    expect(await engine.outline(php, source)).toEqual(await wholeOutline('a.php', source));
    expect(engine.blockCounts()).toEqual({ kept: 0, parsed: 0 });
  });

  it('an edit inside one definition leaves the text of every other block as it was', () => {
    const edited = TS.replace('const x3 = n + 3;', 'const x3 = n + 3;\n  const added = true;');
    const before = blockTexts(TS);
    const after = blockTexts(edited);
    expect(after).toHaveLength(before.length);
    const changed = after.filter((text, i) => text !== before[i]);
    expect(changed).toHaveLength(1);
    expect(changed[0]).toContain('const added = true;');
  });

  it.each([
    ['TypeScript', 'src/store.ts', TS],
    ['TypeScript with CRLF line ends', 'src/crlf.ts', TS.replaceAll('\n', '\r\n')],
    ['Python', 'pkg/mod.py', PY],
    ['Go', 'p/run.go', GO],
  ])('a %s outline by blocks equals the outline of the whole file', async (_name, path, content) => {
    const language = languageForPath(path)!;
    const engine = createSyntaxEngine();
    expect(await engine.outline(language, content)).toEqual(await wholeOutline(path, content));
    expect(engine.blockCounts().parsed).toBe(splitBlocks(content).length);
  });

  it('an export list in a later block applies to definitions in earlier ones (Python __all__, CommonJS exports)', async () => {
    const py = `${PY}\n\ndef later():\n${body('    ', 4)}\n\n__all__ = ['later']\n`;
    const items = await createSyntaxEngine().outline(languageForPath('m.py')!, py);
    expect(items).toEqual(await wholeOutline('m.py', py));
    // the first __all__ is the surface: `_private` stays private, `public` is exported
    expect(items!.find((i) => i.name === 'public')!.exported).toBe(true);
    const js = `function helper() {\n${body('  ', MIN_SPLIT_ROWS)}\n}\n\nfunction other() {\n  return 1;\n}\n\nmodule.exports = { helper };\n`;
    const jsItems = await createSyntaxEngine().outline(languageForPath('m.js')!, js);
    expect(jsItems).toEqual(await wholeOutline('m.js', js));
    expect(jsItems!.find((i) => i.name === 'helper')!.exported).toBe(true);
    expect(jsItems!.find((i) => i.name === 'other')!.exported).toBe(false);
  });

  it('a file whose header holds no code keeps its header comments (the code-before flag follows the blocks)', async () => {
    const content = `/* License\n   text */\n\n// More header.\n\n'use strict';\n\n// Still header.\n${TS.slice(TS.indexOf('/** Retries'))}`;
    const items = await createSyntaxEngine().outline(languageForPath('h.ts')!, content);
    expect(items).toEqual(await wholeOutline('h.ts', content));
  });

  it('a block cut in the wrong place (a syntax error in it) makes the engine parse the whole file instead', async () => {
    // a template string whose column-0 lines are counted wrong by the quote guess (a backtick in a comment)
    const content = `// a stray \` in a comment\nconst s = \`\n${body('', MIN_SPLIT_ROWS, (i) => `line${i} = x`)}\n\`;\nfunction after() {\n  return s;\n}\n`;
    const engine = createSyntaxEngine();
    expect(await engine.outline(languageForPath('q.js')!, content)).toEqual(await wholeOutline('q.js', content));
  });
});

describe('outline block store (block-store.ts)', () => {
  const dirs: string[] = [];
  const cacheDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'aiwg-blocks-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  /** An engine of a new process: its block store reads the cache directory afresh. */
  const engineOn = (dir: string) => createSyntaxEngine({ blocks: outlineBlockStore(dir) });
  /** A process that outlines `texts` and saves its block store, as a run does. */
  const seedStore = async (dir: string, language: LanguageSpec, ...texts: string[]) => {
    const engine = engineOn(dir);
    for (const text of texts) await engine.outline(language, text);
    await engine.save();
    return engine;
  };

  it('a changed file is parsed only in the blocks that changed, by a later process, and its outline equals a whole parse', async () => {
    const dir = cacheDir();
    const language = languageForPath('src/store.ts')!;
    const original = variant(TS, 'store test');
    await seedStore(dir, language, original);
    const edited = original.replace('const y2 = key + 2;', 'const y2 = key + 22;');
    const later = engineOn(dir);
    expect(await later.outline(language, edited)).toEqual(await wholeOutline('src/store.ts', edited));
    expect(later.blockCounts()).toEqual({ kept: splitBlocks(edited).length - 1, parsed: 1 });
    // the same through the levels stage's order: prefetched (the cut and the lookups are kept for the outline), then outlined
    const again = original.replace('const y3 = key + 3;', 'const y3 = key + 33;');
    const prefetched = engineOn(dir);
    prefetched.prefetch([{ path: 'src/store.ts', content: again }]);
    expect(await prefetched.outline(language, again)).toEqual(await wholeOutline('src/store.ts', again));
    expect(prefetched.blockCounts()).toEqual({ kept: splitBlocks(again).length - 1, parsed: 1 });
  });

  it('a save appends a frame with the blocks it made; a damaged frame loses only its own blocks', async () => {
    const dir = cacheDir();
    const file = join(dir, 'index', 'outline-blocks.bin');
    const language = languageForPath('src/store.ts')!;
    const original = variant(TS, 'append test');
    await seedStore(dir, language, original);
    const base = readFileSync(file);
    // a later process adds one changed block: the file grows by one frame, its start unchanged
    const edited = original.replace('const x5 = n + 5;', 'const x5 = n + 55;');
    const second = engineOn(dir);
    await second.outline(language, edited);
    expect(second.blockCounts()).toEqual({ kept: splitBlocks(edited).length - 1, parsed: 1 });
    await second.save();
    const grown = readFileSync(file);
    expect(grown.length).toBeGreaterThan(base.length);
    expect(grown.length - base.length).toBeLessThan(base.length / 2);
    expect(grown.subarray(0, base.length).equals(base)).toBe(true);
    const third = engineOn(dir);
    await third.outline(language, `${edited}\n`);
    expect(third.blockCounts()).toEqual({ kept: splitBlocks(edited).length - 1, parsed: 1 });
    // a flipped byte in the appended frame: its block is parsed again, the base still serves
    const damaged = Buffer.from(grown);
    damaged[grown.length - 3] = damaged[grown.length - 3]! ^ 0xff;
    writeFileSync(file, damaged);
    const fourth = engineOn(dir);
    await fourth.outline(language, `${edited}\n\n`);
    expect(fourth.blockCounts()).toEqual({ kept: splitBlocks(edited).length - 2, parsed: 2 });
  });

  it('a damaged or foreign store file is a miss, never an error, and the next save replaces it', async () => {
    const dir = cacheDir();
    const file = join(dir, 'index', 'outline-blocks.bin');
    const language = languageForPath('p/run.go')!;
    // a store of this version, then the same with another version in its frame header
    await seedStore(dir, language, variant(GO, 'seed'));
    const otherVersion = Buffer.from(readFileSync(file));
    otherVersion.writeUInt32LE(otherVersion.readUInt32LE(8) + 1, 8);
    for (const [i, junk] of [Buffer.from('not a store'), otherVersion, Buffer.alloc(0)].entries()) {
      writeFileSync(file, junk);
      const content = variant(GO, `damaged ${i}`);
      const engine = engineOn(dir);
      expect(await engine.outline(language, content)).toEqual(await wholeOutline('p/run.go', content));
      expect(engine.blockCounts()).toEqual({ kept: 0, parsed: splitBlocks(content).length });
      await engine.save();
      // the save replaced the file (appending after it would leave its blocks unread)
      const reread = engineOn(dir);
      await reread.outline(language, variant(GO, `damaged ${i} again`));
      expect(reread.blockCounts()).toEqual({ kept: splitBlocks(GO).length - 1, parsed: 1 });
    }
  });

  it('keeps the blocks used last when it must drop some to stay within its size', async () => {
    const dir = cacheDir();
    const language = languageForPath('pkg/mod.py')!;
    // two versions of a module that share no block
    const old = variant(PY.replaceAll('v', 'w').replace('Module docstring', 'Old module'), 'evict old', '#');
    const current = variant(PY, 'evict current', '#');
    await seedStore(dir, language, old, current);
    // a process that uses the current version's blocks and adds one, with room for a little more than one of the two versions once it rewrites (REWRITE_SHARE)
    const bytes = statSync(join(dir, 'index', 'outline-blocks.bin')).size;
    const small = createSyntaxEngine({ blocks: outlineBlockStore(dir, { maxBytes: Math.floor(bytes * 0.8) }) });
    await small.outline(language, current.replace('return x', 'return x + 1'));
    expect(small.blockCounts()).toEqual({ kept: splitBlocks(current).length - 1, parsed: 1 });
    await small.save();
    // what the save left out is gone from this process's memory too
    await small.outline(language, `${old}\n\n`);
    expect(small.blockCounts().kept).toBeLessThan(splitBlocks(current).length - 1 + splitBlocks(old).length - 1);
    const after = engineOn(dir);
    await after.outline(language, current.replace('return x', 'return x + 2'));
    expect(after.blockCounts()).toEqual({ kept: splitBlocks(current).length - 1, parsed: 1 });
    const dropped = engineOn(dir);
    await dropped.outline(language, `${old}\n`);
    expect(dropped.blockCounts().kept).toBeLessThan(splitBlocks(old).length - 1);
  });
});
