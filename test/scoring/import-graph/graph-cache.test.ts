import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildImportGraph } from '../../../src/scoring/import-graph/index.js';
import { importGraphCache } from '../../../src/scoring/import-graph/graph-cache.js';
import { makeTempDir } from '../../helpers/fixture-repo.js';
import { candidates } from '../helpers.js';

const PROJECT = {
  // extends a package outside the collected files: the graph warns, and the warning is kept too
  'tsconfig.json': '{ "extends": "@tsconfig/node20/tsconfig.json", "compilerOptions": { "baseUrl": ".", "paths": { "@app/*": ["src/*"] } } }',
  'src/main.ts': "import { a } from '@app/a';\nimport { b } from './b.js';\nimport { missing } from './nowhere.js';\n",
  'src/a.ts': "import { b } from './b.js';\n",
  'src/b.ts': 'export const b = 1;\n',
  'lib/tool.py': 'import os\nfrom lib import helper\n',
  'lib/helper.py': '',
  'README.md': '# demo\n',
};

describe('the import graph kept between one-shot runs', () => {
  const tmp = makeTempDir('aiwg-graph-cache-');
  afterAll(() => tmp.cleanup());

  /** A graph as the signal reads it: edges both ways and the warnings, in their order. */
  const shape = (graph: { imports: Map<string, string[]>; importers: Map<string, string[]>; warnings: string[] }) => ({
    imports: [...graph.imports],
    importers: [...graph.importers],
    warnings: graph.warnings,
  });

  it('gives back the graph a build gives, for the same files', async () => {
    const files = candidates(PROJECT);
    const built = buildImportGraph(files);
    expect(built.imports.get('src/main.ts')).toEqual(['src/a.ts', 'src/b.ts']);
    expect(built.warnings.length).toBeGreaterThan(0);
    const cache = importGraphCache(join(tmp.root, 'same'));
    expect(cache.load(files)).toBeUndefined();
    cache.save(files, built);
    await waitUntil(() => cache.load(files) !== undefined);
    expect(shape(cache.load(files)!)).toEqual(shape(built));
    // the files of another run, the same paths and contents: the same graph
    expect(shape(cache.load(candidates(PROJECT))!)).toEqual(shape(built));
  });

  it.each([
    ['a changed config file', { 'tsconfig.json': '{ "compilerOptions": { "baseUrl": ".", "paths": { "@app/*": ["lib/*"] } } }' }],
    ['a new file', { 'src/nowhere.ts': '' }],
  ])('is a miss after %s, whose build differs', async (_name, change) => {
    const cache = importGraphCache(join(tmp.root, _name.replace(/\W+/g, '-')));
    const files = candidates(PROJECT);
    cache.save(files, buildImportGraph(files));
    await waitUntil(() => cache.load(files) !== undefined);
    const changed = candidates({ ...PROJECT, ...change });
    expect(cache.load(changed)).toBeUndefined();
    expect(shape(buildImportGraph(changed))).not.toEqual(shape(buildImportGraph(files)));
  });

  it.each([
    ['one edge gone', { 'src/a.ts': '' }],
    ['edges to new places and a new warning', { 'src/b.ts': "import { a } from '@app/a';\nimport { x } from '../lib/tool.py';\n" }],
    ['a Python import changed', { 'lib/tool.py': 'import os\n' }],
  ])('over the same paths with a file changed (%s), resolves that file again and gives what a build gives', async (_name, change) => {
    const cache = importGraphCache(join(tmp.root, `update-${_name.replace(/\W+/g, '-')}`));
    const files = candidates(PROJECT);
    cache.save(files, buildImportGraph(files));
    await waitUntil(() => cache.load(files) !== undefined);
    const changed = candidates({ ...PROJECT, ...change });
    const built = buildImportGraph(changed);
    expect(shape(built)).not.toEqual(shape(buildImportGraph(files)));
    expect(shape(cache.load(changed)!)).toEqual(shape(built));
    // the updated graph is kept: the next run over these files takes it as it is
    await waitUntil(() => {
      const again = cache.load(changed);
      return again !== undefined && !('basis' in again);
    });
    expect(shape(cache.load(changed)!)).toEqual(shape(built));
  });

  it('does not update a graph when more than a quarter of the files changed (a build is no slower)', async () => {
    const cache = importGraphCache(join(tmp.root, 'many-changed'));
    const files = candidates(PROJECT);
    cache.save(files, buildImportGraph(files));
    await waitUntil(() => cache.load(files) !== undefined);
    expect(cache.load(candidates({ ...PROJECT, 'src/a.ts': '', 'src/b.ts': '', 'lib/helper.py': 'x = 1\n' }))).toBeUndefined();
  });

  it.each([
    ['a flipped byte', (data: Buffer) => (data[data.length - 2]! ^= 0x20, data)],
    ['a truncated file', (data: Buffer) => data.subarray(0, data.length - 3)],
    ['another format version', (data: Buffer) => (data.writeUInt32LE(999, 8), data)],
    ['not a graph at all', () => Buffer.from('{"imports": {}}')],
  ])('%s is a miss, never an error', async (_name, damage) => {
    const dir = join(tmp.root, `damaged-${_name.replace(/\W+/g, '-')}`);
    const cache = importGraphCache(dir);
    const files = candidates(PROJECT);
    cache.save(files, buildImportGraph(files));
    await waitUntil(() => cache.load(files) !== undefined);
    const path = join(dir, 'index', 'import-graph.bin');
    writeFileSync(path, damage(readFileSync(path)));
    expect(cache.load(files)).toBeUndefined();
  });

  it('a missing or unreadable file is a miss', () => {
    const dir = join(tmp.root, 'unreadable');
    mkdirSync(join(dir, 'index', 'import-graph.bin'), { recursive: true });
    expect(importGraphCache(dir).load(candidates(PROJECT))).toBeUndefined();
    expect(importGraphCache(join(tmp.root, 'never')).load(candidates(PROJECT))).toBeUndefined();
  });
});

/** Wait until `done` (the cache writes in the background), polling; a broken write fails the test by its timeout. */
async function waitUntil(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((next) => setTimeout(next, 5));
}
