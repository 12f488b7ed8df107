import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { languageForPath } from '../../../src/summarize/languages/index.js';
import { createSyntaxEngine, MAX_PARSE_CHARS } from '../../../src/summarize/syntax/engine.js';
import { splitBlocks } from '../../../src/summarize/syntax/blocks.js';
import { buildSyntaxOutline, outlineBlock } from '../../../src/summarize/syntax/outline.js';
import { claimBlock, outlinePoolCounts, prefetchBlock, warmOutlinePool } from '../../../src/summarize/syntax/outline-pool.js';

// The pool's worker is the build's dist/src/summarize/syntax/outline-worker.js (`npm test` builds first).

const syntax = createSyntaxEngine();

/** A block outline parsed here (withTree, not the engine's outline). */
async function parsedHere(path: string, content: string, codeBefore = false) {
  const language = languageForPath(path)!;
  return syntax.withTree(language, content, (tree) => outlineBlock(tree, content, language, codeBefore));
}

function prefetchOutline(path: string, content: string, codeBefore = false): void {
  prefetchBlock(content, languageForPath(path)!.id, codeBefore);
}

/** A distinct source text per index, with definitions nested two deep. */
function source(kind: 'ts' | 'py' | 'go', i: number): string {
  if (kind === 'py') return `"""Module ${i}."""\n\nclass Retry${i}:\n    def attempt(self, n):\n        return n + ${i}\n\n\ndef helper_${i}(x):\n    return x * 2\n`;
  if (kind === 'go') return `package p${i}\n\n// Run${i} runs.\nfunc Run${i}(n int) int {\n\treturn n + ${i}\n}\n\ntype T${i} struct{ a int }\n`;
  return `import { x } from './x${i}.js';\n\n/** Retries. */\nexport class Retry${i} {\n  attempt(n: number): number {\n    return n + ${i};\n  }\n}\n\nexport function helper${i}(a: string): string {\n  return a;\n}\n`;
}

const POOL_MODULE = join(resolve(dirname(fileURLToPath(import.meta.url)), '../../..'), 'dist/src/summarize/syntax/outline-pool.js');

async function until(condition: () => boolean): Promise<void> {
  // a generous wait for the worker thread, not a timing assertion
  for (let waited = 0; !condition() && waited < 60_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
}

describe('outline pool (a second thread parses new blobs)', () => {
  it('hands over the outline the worker parsed, equal to one parsed here, once', async () => {
    const texts = (['ts', 'py', 'go'] as const).map((kind, i) => ({ path: `src/f${i}.${kind}`, content: source(kind, 1000 + i) }));
    const before = outlinePoolCounts().parsedByWorker;
    for (const t of texts) prefetchOutline(t.path, t.content);
    await until(() => outlinePoolCounts().parsedByWorker >= before + texts.length);
    expect(outlinePoolCounts().parsedByWorker).toBe(before + texts.length);
    for (const t of texts) {
      const language = languageForPath(t.path)!;
      const claimed = claimBlock(t.content, language.id, false);
      expect(claimed).toBeDefined();
      expect(await claimed).toEqual(await parsedHere(t.path, t.content));
      // handed over once: the engine keeps it in its memo from here
      expect(claimBlock(t.content, language.id, false)).toBeUndefined();
    }
  });

  it('parses every text exactly once, on one thread or the other, when callers claim while the worker works', async () => {
    const texts = Array.from({ length: 120 }, (_, i) => ({ path: `src/m${i}.ts`, content: source('ts', i) }));
    const before = outlinePoolCounts();
    for (const t of texts) prefetchOutline(t.path, t.content);
    const language = languageForPath('a.ts')!;
    let here = 0;
    for (const t of texts) {
      const claimed = claimBlock(t.content, language.id, false);
      if (claimed === undefined) here++;
      const items = claimed === undefined ? await parsedHere(t.path, t.content) : await claimed;
      expect(items).toEqual(await parsedHere(t.path, t.content));
    }
    const after = outlinePoolCounts();
    expect(after.takenBack - before.takenBack).toBe(here);
    expect(after.parsedByWorker - before.parsedByWorker + here).toBe(texts.length);
  });

  it('a text left unclaimed while thousands of others come and go is still handed over (no slot is reused under it)', async () => {
    const language = languageForPath('a.ts')!;
    const first = source('ts', 90_000);
    // a few unclaimed texts posted before it: the worker, newest first, starts elsewhere
    for (let i = 0; i < 50; i++) prefetchOutline(`src/before${i}.ts`, source('ts', 91_000 + i));
    prefetchOutline('src/first.ts', first);
    const waits: Array<Promise<unknown>> = [];
    for (let i = 0; i < 6000; i++) {
      const content = `export const v${i} = ${i};\n`;
      prefetchOutline(`src/v${i}.ts`, content);
      const claimed = claimBlock(content, language.id, false);
      if (claimed) waits.push(claimed);
    }
    await Promise.all(waits);
    const claimed = claimBlock(first, language.id, false);
    const items = claimed === undefined ? await parsedHere('src/first.ts', first) : await claimed;
    expect(items).toEqual(await parsedHere('src/first.ts', first));
  }, 120_000);

  it('the engine answers from the pool: its outline equals a parse of the whole file here', async () => {
    const engine = createSyntaxEngine();
    const path = 'lib/engine-pool.py';
    const content = source('py', 5000);
    const before = outlinePoolCounts().parsedByWorker;
    engine.prefetch([{ path, content }]);
    await until(() => outlinePoolCounts().parsedByWorker > before);
    const language = languageForPath(path)!;
    expect(await engine.outline(language, content)).toEqual(await syntax.withTree(language, content, (tree) => buildSyntaxOutline(tree, content, language)));
  });

  it('the engine prefetches each block of a long file: every one parsed once, on one thread or the other, and the outline equals a whole parse', async () => {
    const engine = createSyntaxEngine();
    const path = 'lib/long.ts';
    const content = Array.from({ length: 30 }, (_, i) => source('ts', 60_000 + i)).join('\n');
    const language = languageForPath(path)!;
    const before = outlinePoolCounts();
    engine.prefetch([{ path, content }]);
    const items = await engine.outline(language, content);
    expect(items).toEqual(await syntax.withTree(language, content, (tree) => buildSyntaxOutline(tree, content, language)));
    const after = outlinePoolCounts();
    // each block (an import, a class with its doc comment, a function, 30 times over) parsed once
    expect(splitBlocks(content)).toHaveLength(90);
    expect(after.parsedByWorker - before.parsedByWorker + after.takenBack - before.takenBack).toBe(90);
  });

  it('ignores texts without a grammar and texts it already has', async () => {
    const engine = createSyntaxEngine();
    const before = outlinePoolCounts();
    engine.prefetch([{ path: 'README.md', content: '# title\n' }]);
    expect(claimBlock('# title\n', 'markdown', false)).toBeUndefined();
    const content = source('go', 7000);
    prefetchOutline('a.go', content);
    prefetchOutline('b.go', content);
    await until(() => outlinePoolCounts().parsedByWorker > before.parsedByWorker);
    const claimed = claimBlock(content, languageForPath('a.go')!.id, false);
    expect(await claimed).toEqual(await parsedHere('a.go', content));
    expect(outlinePoolCounts().parsedByWorker - before.parsedByWorker).toBe(1);
  });

  it('keeps a block parsed with and without code before it apart', async () => {
    const content = `// Header comment.\n'use strict';\n\nexport const a = 1;\n`;
    const before = outlinePoolCounts().parsedByWorker;
    prefetchOutline('c.js', content, false);
    prefetchOutline('c.js', content, true);
    await until(() => outlinePoolCounts().parsedByWorker >= before + 2);
    const language = languageForPath('c.js')!;
    const first = await claimBlock(content, language.id, false);
    const later = await claimBlock(content, language.id, true);
    expect(first).toEqual(await parsedHere('c.js', content, false));
    expect(later).toEqual(await parsedHere('c.js', content, true));
    // the header comment is the file's header only when no code came before it
    expect(first!.items[0]!.isHeader).toBe(true);
    expect(later!.items[0]!.isHeader).toBe(false);
  });

  it('loads a grammar ahead once per language when warmed (the engine warms it for new content with a grammar); blocks are parsed as before', async () => {
    const engine = createSyntaxEngine();
    const before = outlinePoolCounts().grammarsWarmed;
    engine.expect('src/warm.rs', 'fn main() {}\n');
    engine.expect('src/other.rs', 'fn other() {}\n');
    warmOutlinePool('rust');
    // no grammar, or too large to parse: nothing to warm
    engine.expect('README.md', '# title\n');
    engine.expect('src/huge.c', 'x'.repeat(MAX_PARSE_CHARS + 1));
    await until(() => outlinePoolCounts().grammarsWarmed > before);
    const content = 'pub fn retry(n: u32) -> u32 {\n    n + 1\n}\n';
    const parsed = outlinePoolCounts().parsedByWorker;
    prefetchOutline('src/warm.rs', content);
    await until(() => outlinePoolCounts().parsedByWorker > parsed);
    expect(await claimBlock(content, languageForPath('src/warm.rs')!.id, false)).toEqual(await parsedHere('src/warm.rs', content));
    expect(outlinePoolCounts().grammarsWarmed - before).toBe(1);
  });

  it('never keeps a process alive: one that claimed a text and left another unclaimed exits by itself', () => {
    const script = [
      `const { prefetchBlock, claimBlock, outlinePoolCounts, warmOutlinePool } = await import(${JSON.stringify(pathToFileURL(POOL_MODULE).href)});`,
      // a grammar warmed ahead (its answer may come after everything else) holds nothing either
      `warmOutlinePool('python');`,
      `prefetchBlock('export const a = 1;\\n', 'typescript', false);`,
      `prefetchBlock('export const b = 2;\\n', 'typescript', false);`,
      // claimed once answered (no wait on the worker), the other never claimed
      `while (outlinePoolCounts().parsedByWorker < 2) await new Promise((r) => setTimeout(r, 10));`,
      `const items = await claimBlock('export const a = 1;\\n', 'typescript', false);`,
      `console.log(Array.isArray(items?.items) ? 'claimed' : 'wrong');`,
    ].join('\n');
    // a generous limit that only catches a hang
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    expect({ status: child.status, signal: child.signal, stderr: child.stderr, stdout: child.stdout.trim() }).toEqual({ status: 0, signal: null, stderr: '', stdout: 'claimed' });
  });
});
