import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
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

  it('says when its write is done: the graph is on disk, whole, once written() resolves', async () => {
    const files = candidates(PROJECT);
    const built = buildImportGraph(files);
    const dir = join(tmp.root, 'written');
    const cache = importGraphCache(dir);
    cache.save(files, built);
    await cache.written();
    expect(readdirSync(join(dir, 'index')).filter((name) => name.startsWith('import-graph.bin'))).toEqual(['import-graph.bin']);
    expect(shape(importGraphCache(dir).load(files)!)).toEqual(shape(built));
  });

  it.each([
    ['a changed config file', { 'tsconfig.json': '{ "compilerOptions": { "baseUrl": ".", "paths": { "@app/*": ["lib/*"] } } }' }, []],
    ['a new file an import now finds', { 'src/nowhere.ts': '' }, []],
    ['a file removed', {}, ['src/b.ts']],
    ['a file renamed', { 'src/c.ts': 'export const b = 1;\n' }, ['src/b.ts']],
    ['a new tsconfig nearer to a file', { 'src/tsconfig.json': '{ "compilerOptions": { "baseUrl": ".", "paths": { "@app/*": ["./*"] } } }' }, []],
    ['a new Python module', { 'lib/os.py': '' }, []],
    ['one edge gone', { 'src/a.ts': '' }, []],
    ['edges to new places and a new warning', { 'src/b.ts': "import { a } from '@app/a';\nimport { x } from '../lib/tool.py';\n" }, []],
    ['a Python import changed', { 'lib/tool.py': 'import os\n' }, []],
  ] as Array<[string, Record<string, string>, string[]]>)('after %s, updates the kept graph to what a build gives', async (_name, change, gone) => {
    const cache = importGraphCache(join(tmp.root, _name.replace(/\W+/g, '-')));
    // files that never change, so that a rename (two paths) stays within the share of changes a kept graph takes
    const project = { ...PROJECT, ...Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`docs/page${i}.md`, `page ${i}\n`])) };
    const files = candidates(project);
    cache.save(files, buildImportGraph(files));
    await waitUntil(() => cache.load(files) !== undefined);
    const tree: Record<string, string> = { ...project, ...change };
    for (const path of gone) delete tree[path];
    const changed = candidates(tree);
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

  it('after any sequence of edits, adds, deletes and renames between runs, gives what a build gives', async () => {
    const universe: Record<string, string[]> = {
      'tsconfig.json': [PROJECT['tsconfig.json'], '{ "compilerOptions": { "baseUrl": ".", "paths": { "@app/*": ["lib/*", "src/*"] } } }', 'not json'],
      'src/tsconfig.json': ['{ "compilerOptions": { "baseUrl": "..", "paths": { "@app/*": ["lib/*"] } } }'],
      'src/main.ts': [PROJECT['src/main.ts'], "import './nowhere';\nimport '@app/helper';\n"],
      'src/a.ts': [PROJECT['src/a.ts'], "import '../lib/x';\n"],
      'src/b.ts': [PROJECT['src/b.ts'], "import './c';\n"],
      'src/c/index.ts': ['', "import '../a';\n"],
      'src/nowhere.ts': [''],
      'lib/x.ts': ['', "import '@app/a';\n"],
      'lib/helper.ts': [''],
      'lib/tool.py': [PROJECT['lib/tool.py'], 'from . import helper\n'],
      'lib/helper.py': [''],
      'lib/os.py': [''],
    };
    const paths = Object.keys(universe);
    let run = 0;
    let updates = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom(...paths), fc.nat(5), { minKeys: 3 }),
        fc.array(fc.array(fc.tuple(fc.constantFrom(...paths), fc.nat(6)), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 }),
        async (start, steps) => {
          const cache = importGraphCache(join(tmp.root, `sequence-${run++}`));
          const contentOf = (path: string, variant: number) => universe[path]![variant % universe[path]!.length]!;
          // files that never change keep most steps within the share of changes a kept graph takes
          const tree = new Map(Object.entries(start).map(([path, v]) => [path, contentOf(path, v)]));
          for (let i = 0; i < 24; i++) tree.set(`docs/page${i}.md`, `page ${i}\n`);
          let files = candidates(Object.fromEntries(tree));
          cache.save(files, buildImportGraph(files));
          await waitUntil(() => cache.load(files) !== undefined);
          for (const ops of steps) {
            // variant 5 deletes the path, 6 renames it onto the next path; others set a content
            for (const [path, v] of ops) {
              if (v === 5) tree.delete(path);
              else if (v === 6) {
                const content = tree.get(path);
                const to = paths[(paths.indexOf(path) + 1) % paths.length]!;
                if (content !== undefined && to !== path) (tree.delete(path), tree.set(to, content));
              } else tree.set(path, contentOf(path, v));
            }
            const next = candidates(Object.fromEntries(tree));
            const built = buildImportGraph(next);
            // within the share of changes it updates; past it, a miss (the caller builds)
            const loaded = cache.load(next);
            if (loaded !== undefined) {
              updates++;
              expect(shape(loaded)).toEqual(shape(built));
            } else cache.save(next, built);
            await waitUntil(() => cache.load(next) !== undefined && !('basis' in cache.load(next)!));
            expect(shape(cache.load(next)!)).toEqual(shape(built));
            files = next;
          }
        },
      ),
      { numRuns: 40 },
    );
    // most steps were updates of a kept graph, not builds
    expect(updates).toBeGreaterThan(40);
  }, 120_000);

  it('updates a graph kept for files in path order from files in another order too', async () => {
    const cache = importGraphCache(join(tmp.root, 'other-order'));
    const files = candidates({ ...PROJECT, ...Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`docs/page${i}.md`, `page ${i}\n`])) });
    cache.save(files, buildImportGraph(files));
    await waitUntil(() => cache.load(files) !== undefined);
    // an added file and an edit, the list reversed
    const next = candidates({ ...PROJECT, 'src/b.ts': "import './a';\n", 'src/c.ts': "import './b';\n", ...Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`docs/page${i}.md`, `page ${i}\n`])) }).reverse();
    const loaded = cache.load(next);
    expect(loaded).toBeDefined();
    expect(shape(loaded!)).toEqual(shape(buildImportGraph(next)));
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
