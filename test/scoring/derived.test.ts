import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { defaultConfig } from '../../src/config/schema.js';
import { createDerivedStore, diffFiles, type Derive } from '../../src/scoring/derived.js';
import { buildImportGraph, updateImportGraph, type ImportGraph } from '../../src/scoring/import-graph/index.js';
import { createScoreStage } from '../../src/scoring/score-files.js';
import { defaultSignals } from '../../src/scoring/signals/index.js';
import type { CandidateFile, CollectResult, Signal } from '../../src/types.js';
import { testContext } from '../helpers/fakes.js';
import { plainScores } from '../helpers/plain-scores.js';
import { candidates, gitFacts } from './helpers.js';

/**
 * The derived values of a long-lived score stage are updated from the changed files, never
 * rebuilt when an update exists: after any sequence of edits, adds, deletes and renames they
 * must equal what a fresh build on the same file set gives, and so must the scores.
 */

const TSCONFIGS = [
  '{ "compilerOptions": { "baseUrl": ".", "paths": { "@/*": ["src/*"] } } }',
  '{ "compilerOptions": { "paths": { "@/*": ["./lib/*"] } } }',
  '{ "extends": "./tsconfig.base.json" }',
  '{ "compilerOptions": { "paths": { "@/*": ["lib/*"] } } }',
  '{ "extends": "@tsconfig/node20/tsconfig.json", "compilerOptions": { "baseUrl": "src" } }',
  '{ not json',
];
const TS_SPECIFIERS = ["'./b'", "'../lib/d.js'", "'@/a'", "'@/c'", "'lib/d'", "'./c'", "'a'", "'./new'", "'../src/new'"];
const PY = ['from . import m', 'import py.n', 'from py.m import x', '# see @src/a.ts and @README.md'];
const DOCS = ['see @src/a.ts', 'see @lib/ and @src/b.ts', 'retry loop alias', 'nothing here', 'see @a.ts'];

/** Every path the scenarios use, with the contents each may hold. */
const UNIVERSE: Record<string, string[]> = {
  'src/a.ts': tsVariants(),
  'src/b.ts': tsVariants(),
  'src/c/index.ts': tsVariants(),
  'src/new.ts': tsVariants(),
  'lib/d.ts': tsVariants(),
  'lib/a.ts': tsVariants(),
  'tsconfig.json': TSCONFIGS,
  'tsconfig.base.json': [...TSCONFIGS.slice(0, 2), TSCONFIGS[3] as string],
  'lib/tsconfig.json': TSCONFIGS,
  'py/m.py': PY,
  'py/n.py': PY,
  'py/__init__.py': ['', ...PY],
  'go.mod': ['module example.com/x', 'no module line'],
  'g/x.go': ['package g\nimport "example.com/x/h"', 'package g\nimport ("fmt"\n"example.com/x/g")'],
  'h/y.go': ['package h', 'package h\nimport "example.com/x/g"'],
  'README.md': DOCS,
  'AGENTS.md': DOCS,
  'docs/guide.md': DOCS,
};
const PATHS = Object.keys(UNIVERSE);

function tsVariants(): string[] {
  const out: string[] = ['export const retry = 1;'];
  for (let i = 0; i < TS_SPECIFIERS.length; i++) {
    out.push(`import x from ${TS_SPECIFIERS[i]};\nimport { y } from ${TS_SPECIFIERS[(i + 3) % TS_SPECIFIERS.length]};\n// alias retry loop @README.md`);
  }
  return out;
}

type Op = { kind: 'set'; path: string; variant: number } | { kind: 'delete'; path: string } | { kind: 'rename'; from: string; to: string } | { kind: 'touch' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), path: fc.constantFrom(...PATHS), variant: fc.nat(20) }),
  fc.record({ kind: fc.constant('delete' as const), path: fc.constantFrom(...PATHS) }),
  fc.record({ kind: fc.constant('rename' as const), from: fc.constantFrom(...PATHS), to: fc.constantFrom(...PATHS) }),
  fc.constant({ kind: 'touch' as const }),
);

const startArb = fc.dictionary(fc.constantFrom(...PATHS), fc.nat(20), { minKeys: 3 });

function contentOf(path: string, variant: number): string {
  const variants = UNIVERSE[path] as string[];
  return variants[variant % variants.length] as string;
}

/** Apply an op to a path -> content table (a rename keeps the content under the new path). */
function apply(tree: Map<string, string>, op: Op): void {
  if (op.kind === 'set') tree.set(op.path, contentOf(op.path, op.variant));
  else if (op.kind === 'delete') tree.delete(op.path);
  else if (op.kind === 'rename') {
    const content = tree.get(op.from);
    if (content === undefined || op.from === op.to) return;
    tree.delete(op.from);
    tree.set(op.to, content);
  }
}

/**
 * The candidate files of a tree as an incremental collect hands them over: an unchanged file is
 * the same object as before (or, with `fresh`, a new object with the same content address, as a
 * full collect gives).
 */
function filesOf(tree: Map<string, string>, before: readonly CandidateFile[], fresh: boolean): CandidateFile[] {
  const held = new Map(before.map((f) => [f.path, f]));
  return candidates(Object.fromEntries(tree)).map((f) => {
    const was = held.get(f.path);
    return !fresh && was !== undefined && was.hash === f.hash ? was : f;
  });
}

function graphView(graph: ImportGraph) {
  return { imports: graph.imports, importers: graph.importers, warnings: graph.warnings };
}

describe('import graph updates', () => {
  it('equal a fresh build after any sequence of edits, adds, deletes and renames', () => {
    fc.assert(
      fc.property(startArb, fc.array(fc.tuple(fc.array(opArb, { minLength: 1, maxLength: 3 }), fc.boolean()), { maxLength: 10 }), (start, steps) => {
        const tree = new Map(Object.entries(start).map(([p, v]) => [p, contentOf(p, v)]));
        let files = filesOf(tree, [], true);
        let graph = buildImportGraph(files);
        for (const [ops, fresh] of steps) {
          for (const op of ops) apply(tree, op);
          const next = filesOf(tree, files, fresh);
          graph = updateImportGraph(graph, next, diffFiles(files, next));
          files = next;
          expect(graphView(graph)).toEqual(graphView(buildImportGraph(files)));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('an import that resolves only once its target is added, and stops when it is deleted', () => {
    const files = candidates({ 'src/a.ts': "import './b';", 'src/c.ts': "import '@/b';", 'tsconfig.json': TSCONFIGS[0] as string });
    const graph = buildImportGraph(files);
    expect(graph.imports.size).toBe(0);
    const added = candidates({ 'src/a.ts': "import './b';", 'src/b.ts': '', 'src/c.ts': "import '@/b';", 'tsconfig.json': TSCONFIGS[0] as string });
    const updated = updateImportGraph(graph, added, diffFiles(files, added));
    expect(updated.importers.get('src/b.ts')).toEqual(['src/a.ts', 'src/c.ts']);
    expect(graph.imports.size).toBe(0); // the earlier graph is left as it was
    const back = updateImportGraph(updated, files, diffFiles(added, files));
    expect(graphView(back)).toEqual(graphView(buildImportGraph(files)));
  });

  it('a tsconfig no file had read, edited with a file that now reads it, is read anew', () => {
    const tree = { 'lib/a.ts': "import './b';", 'lib/b.ts': '', 'lib/x.ts': '', 'src/x.ts': '', 'lib/tsconfig.json': TSCONFIGS[0] as string };
    const files = candidates(tree);
    const graph = buildImportGraph(files);
    const edited = candidates({ ...tree, 'lib/a.ts': "import '@/x';", 'lib/tsconfig.json': '{ "compilerOptions": { "baseUrl": ".", "paths": { "@/*": ["./*"] } } }' });
    const updated = updateImportGraph(graph, edited, diffFiles(files, edited));
    expect(updated.imports.get('lib/a.ts')).toEqual(['lib/x.ts']);
    expect(graphView(updated)).toEqual(graphView(buildImportGraph(edited)));
  });

  it('a tsconfig edit re-resolves every alias; an unchanged tsconfig is not read again', () => {
    const tree = { 'src/a.ts': "import '@/b';", 'src/b.ts': '', 'lib/b.ts': '', 'tsconfig.json': TSCONFIGS[0] as string };
    const files = candidates(tree);
    const graph = buildImportGraph(files);
    expect(graph.imports.get('src/a.ts')).toEqual(['src/b.ts']);
    const edited = candidates({ ...tree, 'tsconfig.json': TSCONFIGS[1] as string });
    const updated = updateImportGraph(graph, edited, diffFiles(files, edited));
    expect(updated.imports.get('src/a.ts')).toEqual(['lib/b.ts']);
    const more = candidates({ ...tree, 'tsconfig.json': TSCONFIGS[1] as string, 'src/z.ts': "import '@/b';" });
    const again = updateImportGraph(updated, more, diffFiles(edited, more));
    expect(again.imports.get('src/z.ts')).toEqual(['lib/b.ts']);
    // the alias resolver of the unchanged tsconfig is the one read before
    expect(again.basis?.project.configs.get('tsconfig tsconfig.json')).toBe(updated.basis?.project.configs.get('tsconfig tsconfig.json'));
  });
});

describe('file set changes', () => {
  it('are the added, removed and changed paths, whatever the order of either set', () => {
    const pool = candidates(Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f'].map((p, i) => [p, String(i)])));
    const edits = candidates(Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f'].map((p) => [p, 'edited'])));
    const setArb = fc.subarray([0, 1, 2, 3, 4, 5]).chain((picked) =>
      fc.tuple(fc.constant(picked), fc.array(fc.constantFrom('same', 'copy', 'edit'), { minLength: picked.length, maxLength: picked.length }), fc.boolean()),
    );
    fc.assert(
      fc.property(setArb, setArb, ([pa, , shuffleA], [pb, kinds, shuffleB]) => {
        const before = pa.map((i) => pool[i] as CandidateFile);
        const after = pb.map((i, n) => (kinds[n] === 'edit' ? (edits[i] as CandidateFile) : kinds[n] === 'copy' ? { ...(pool[i] as CandidateFile) } : (pool[i] as CandidateFile)));
        if (shuffleA) before.reverse();
        if (shuffleB) after.reverse();
        const changes = diffFiles(before, after);
        const paths = (files: CandidateFile[]) => files.map((f) => f.path).sort();
        const inA = new Set(before.map((f) => f.path));
        const inB = new Set(after.map((f) => f.path));
        expect(paths(changes.added)).toEqual([...inB].filter((p) => !inA.has(p)).sort());
        expect(paths(changes.removed)).toEqual([...inA].filter((p) => !inB.has(p)).sort());
        const was = new Map(before.map((f) => [f.path, f]));
        expect(changes.changed.map((c) => c.after.path).sort()).toEqual(paths(after.filter((f) => was.has(f.path) && was.get(f.path)?.hash !== f.hash)));
        for (const { before: was, after: now } of changes.changed) expect([was.path, was.hash !== now.hash]).toEqual([now.path, true]);
      }),
      { numRuns: 500 },
    );
  });
});

describe('derived store', () => {
  it('updates a value from the changes since the set it was made for, builds without an update', () => {
    const store = createDerivedStore();
    const one = candidates({ 'a.ts': '1', 'b.ts': '2', 'c.ts': '3' });
    const two = candidates({ 'a.ts': '1', 'b.ts': 'changed', 'd.ts': '4' });
    const calls: string[] = [];
    const ask = (derived: Derive) =>
      derived(
        'paths',
        () => (calls.push('build'), 1),
        (previous, changes) => (calls.push(`update +${changes.added.map((f) => f.path)} -${changes.removed.map((f) => f.path)} ~${changes.changed.map((c) => c.after.path)}`), previous + 1),
      );
    expect(ask(store.forFiles(one))).toBe(1);
    expect(ask(store.forFiles(one))).toBe(1);
    expect(ask(store.forFiles(two))).toBe(2);
    expect(store.forFiles(two)('plain', () => 'built')).toBe('built');
    expect(calls).toEqual(['build', 'update +d.ts -c.ts ~b.ts']);
  });
});

describe('a long-lived score stage after edits', () => {
  const config = defaultConfig();
  config.relevance_scoring.scoring_method = 'keyword';
  const collected = (files: CandidateFile[]): CollectResult => ({ root: '/repo', files, excluded: [], git: gitFacts(), warnings: [] });
  const TASKS = ['fix the retry loop in @src/a.ts', 'alias import of lib d', 'see README guide'];

  /** The registry's signals, recording every derived value they use (and the categories) into `seen`. */
  const recording = (seen: Map<string, unknown>): Signal[] =>
    defaultSignals().map((signal) => ({
      name: signal.name,
      score: (input, ctx, deps) => {
        const derived = input.derived as Derive; // the stage always hands one over
        seen.set('categories', input.categories);
        const record: Derive = (key, build, update) => {
          const value = derived(key, build, update);
          seen.set(key, key === 'import-graph' ? graphView(value as ImportGraph) : value);
          return value;
        };
        return signal.score({ ...input, derived: record }, ctx, deps);
      },
    }));

  it('keeps derived values and scores equal to a fresh stage on the same files', async () => {
    await fc.assert(
      fc.asyncProperty(startArb, fc.array(fc.tuple(fc.array(opArb, { minLength: 1, maxLength: 3 }), fc.boolean(), fc.constantFrom(...TASKS)), { maxLength: 8 }), async (start, steps) => {
        const warmSeen = new Map<string, unknown>();
        // long-lived: its BM25 scores come from the inverted index, the fresh stage's from a scan
        const warm = createScoreStage({ root: '/repo', config, longLived: true }, { signals: recording(warmSeen) });
        const tree = new Map(Object.entries(start).map(([p, v]) => [p, contentOf(p, v)]));
        let files = filesOf(tree, [], true);
        await warm({ task: TASKS[0] as string, collected: collected(files) }, testContext({ config }));
        for (const [ops, fresh, task] of steps) {
          for (const op of ops) apply(tree, op);
          files = filesOf(tree, files, fresh);
          const coldSeen = new Map<string, unknown>();
          const warmCtx = testContext({ config });
          const coldCtx = testContext({ config });
          const got = await warm({ task, collected: collected(files) }, warmCtx);
          const want = await createScoreStage({ root: '/repo', config }, { signals: recording(coldSeen) })({ task, collected: collected(files) }, coldCtx);
          expect({ ...got, files: plainScores(got.files) }).toEqual({ ...want, files: plainScores(want.files) });
          expect(warmCtx.warnings).toEqual(coldCtx.warnings);
          expect([...warmSeen.keys()].sort()).toEqual(['bm25-documents', 'bm25-index', 'categories', 'import-graph', 'mention-counts']);
          warmSeen.delete('bm25-index');
          expect(warmSeen).toEqual(coldSeen);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('scores with the default registry as a fresh stage does', async () => {
    const warm = createScoreStage({ root: '/repo', config, longLived: true });
    const tree = new Map(PATHS.map((p, i) => [p, contentOf(p, i)]));
    let files = filesOf(tree, [], true);
    for (const op of [{ kind: 'set', path: 'README.md', variant: 1 }, { kind: 'delete', path: 'src/b.ts' }, { kind: 'rename', from: 'lib/d.ts', to: 'src/b.ts' }] as Op[]) {
      await warm({ task: TASKS[0] as string, collected: collected(files) }, testContext({ config }));
      apply(tree, op);
      files = filesOf(tree, files, false);
      const got = await warm({ task: TASKS[1] as string, collected: collected(files) }, testContext({ config }));
      const want = await createScoreStage({ root: '/repo', config })({ task: TASKS[1] as string, collected: collected(files) }, testContext({ config }));
      expect({ ...got, files: plainScores(got.files) }).toEqual({ ...want, files: plainScores(want.files) });
    }
  });
});
