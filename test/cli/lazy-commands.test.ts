import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/run-bin.js';
import { COMMANDS } from '../../src/cli/commands/index.js';

const run = promisify(execFile);

/**
 * The built CLI in a child process with module-loading hooks that print every file URL the
 * process loads: the ES module loader's (node:module register) for what it imports, and
 * require's (Module.prototype.load) for the bundle's CommonJS files and what they require.
 * What `aiwg --help` and a command's help load.
 */
const hooksDir = mkdtempSync(join(tmpdir(), 'aiwg-lazy-'));
writeFileSync(
  join(hooksDir, 'hooks.mjs'),
  // written synchronously: the hooks run on their own thread, whose buffered stderr a quick command's exit could cut short
  "import { writeSync } from 'node:fs';\nexport async function load(url, context, next) {\n  if (url.startsWith('file:')) writeSync(2, 'LOADED ' + url + '\\n');\n  return next(url, context);\n}\n",
);
writeFileSync(join(hooksDir, 'register.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(hooksDir, 'hooks.mjs')).href)});\n`);
writeFileSync(
  join(hooksDir, 'require-hook.cjs'),
  "const Module = require('node:module');\nconst { writeSync } = require('node:fs');\nconst { pathToFileURL } = require('node:url');\nconst load = Module.prototype.load;\nModule.prototype.load = function (filename) {\n  writeSync(2, 'LOADED ' + pathToFileURL(filename).href + '\\n');\n  return load.call(this, filename);\n};\n",
);

/**
 * The modules a command imports: bin/aiwg.js loads the command line's bundle (dist/cli/), whose
 * files are read back as the modules each holds (dist/cli/modules.json, written with the bundle).
 */
async function loadedBy(args: string[]): Promise<string[]> {
  const { stderr } = await run(process.execPath, ['--require', join(hooksDir, 'require-hook.cjs'), '--import', join(hooksDir, 'register.mjs'), BIN, ...args], { cwd: hooksDir });
  const files = stderr.split('\n').filter((l) => l.startsWith('LOADED ')).map((l) => l.slice('LOADED '.length));
  return files.flatMap((url) => (url.startsWith(BUNDLE_URL) ? (BUNDLED[url.slice(BUNDLE_URL.length)] ?? [url]).map((path) => pathToFileURL(join(PACKAGE_ROOT, path)).href) : [url]));
}

const PACKAGE_ROOT = dirname(dirname(BIN));
const BUNDLE_URL = pathToFileURL(join(PACKAGE_ROOT, 'dist', 'cli')).href + '/';
const BUNDLED = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'dist', 'cli', 'modules.json'), 'utf8')) as Record<string, string[]>;

const commandModules = (urls: string[]) => urls.filter((u) => u.includes('/src/cli/commands/')).map((u) => u.replace(/^.*\/src\/cli\/commands\//, '')).sort();
const HEAVY = ['gpt-tokenizer', '@huggingface/transformers', 'onnxruntime', 'web-tree-sitter', '@modelcontextprotocol', 'hnswlib'];

describe('lazy command loading', () => {
  afterAll(() => rmSync(hooksDir, { recursive: true, force: true }));

  it('aiwg --help imports the command table and no command module, tokenizer, embedding runtime or parser', async () => {
    const urls = await loadedBy(['--help']);
    expect(urls.some((u) => u.endsWith('/src/cli/main.js'))).toBe(true);
    expect(commandModules(urls)).toEqual(['index.js']);
    for (const name of HEAVY) expect(urls.filter((u) => u.includes(`/node_modules/${name}`))).toEqual([]);
  });

  it.each(COMMANDS.map((c) => c.name))('aiwg %s --help imports that command module only, and no tokenizer table or embedding runtime', async (name) => {
    const urls = await loadedBy([name, '--help']);
    const file = `${name}.js`;
    expect(commandModules(urls)).toEqual(['index.js', file].sort());
    for (const heavy of ['gpt-tokenizer', '@huggingface/transformers', 'onnxruntime']) expect(urls.filter((u) => u.includes(`/node_modules/${heavy}`))).toEqual([]);
  });

  it('each table row loads the command of its own name', async () => {
    for (const entry of COMMANDS) expect((await entry.load()).name).toBe(entry.name);
  });
});
