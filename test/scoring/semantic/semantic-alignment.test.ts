import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { CandidateFile, Embedder } from '../../../src/types.js';
import { makeFixtureRepo, makeTempDir, type Fixture } from '../../helpers/fixture-repo.js';
import { ConfigSchema, type Config } from '../../../src/config/schema.js';
import { runContextBudget } from '../../../src/pipeline.js';
import { createScoreStage } from '../../../src/scoring/score-files.js';
import { testContext } from '../../helpers/fakes.js';
import { embeddingStoreDir } from '../../../src/scoring/semantic/embedding-store.js';
import { createSemanticMemo, fileSimilarity, semanticAlignment } from '../../../src/scoring/semantic/semantic-alignment.js';
import { bindSemanticAlignment } from '../../../src/scoring/semantic-adapter.js';
import { candidateFile, tinyEmbedder, configWith, countingEmbedder, TOPICS } from './tiny-model.js';

const corpus = [
  candidateFile('src/http/client.ts', 'export async function fetchWithRetry(request) {\n  // retry with backoff on timeout\n  return httpClient.fetch(request);\n}\n'),
  candidateFile('src/config/load.ts', 'export function loadConfig(path) {\n  return parseYaml(readSettings(path));\n}\n\nexport const defaultOptions = { schema: true };\n'),
  candidateFile('src/ui/button.tsx', 'export function Button() {\n  return renderView({ style, color, onClick });\n}\n'),
  candidateFile('README.md', 'the and of to in is it for with on'),
];

describe('semanticAlignment (tiny model, real transformers.js)', () => {
  let tmp: Fixture;
  let embedder: Embedder;
  beforeAll(async () => {
    tmp = makeTempDir('aiwg-semantic-');
    embedder = await tinyEmbedder(tmp.root);
  });
  afterAll(() => tmp.cleanup());

  it('ranks the file of the task\'s topic first', async () => {
    const ctx = testContext({ config: configWith({}) });
    const result = await semanticAlignment({ task: 'add retry with backoff to the http client', files: corpus }, ctx, { embedder, cacheDir: join(tmp.root, 'c1') });
    const ranked = [...result.scores].sort((a, b) => b[1] - a[1]).map(([p]) => p);
    expect(ranked[0]).toBe('src/http/client.ts');
    expect(result.modelId).toBe(embedder.id);
    expect(result.search).toBe('exact');
    expect(result.chunks).toBe(4);
  });

  it('embeds nothing on a second run and only the changed file\'s chunks after an edit', async () => {
    const cacheDir = join(tmp.root, 'c2');
    const ctx = testContext({ config: configWith({ chunk_chars: 80 }) });
    const first = countingEmbedder(embedder);
    const r1 = await semanticAlignment({ task: 'load the yaml config', files: corpus }, ctx, { embedder: first, cacheDir });
    expect(r1.embedded).toBe(r1.chunks);

    const second = countingEmbedder(embedder);
    const r2 = await semanticAlignment({ task: 'load the yaml config', files: corpus }, ctx, { embedder: second, cacheDir });
    expect(r2.embedded).toBe(0);
    expect(second.texts).toEqual([]);
    expect([...r2.scores]).toEqual([...r1.scores]);

    const edited = corpus.map((f) => (f.path === 'src/config/load.ts' ? candidateFile(f.path, f.content.replace('schema: true', 'schema: false')) : f));
    const third = countingEmbedder(embedder);
    const r3 = await semanticAlignment({ task: 'a different task about buttons', files: edited }, ctx, { embedder: third, cacheDir });
    expect(r3.embedded).toBe(1);
    expect(third.texts).toHaveLength(2); // the changed chunk + the new task
    expect(third.texts.some((t) => t.startsWith('src/config/load.ts\n') && t.includes('schema: false'))).toBe(true);
  });

  it('re-embeds chunks whose cached vectors are corrupt, with a warning', async () => {
    const cacheDir = join(tmp.root, 'c3');
    const ctx = testContext();
    await semanticAlignment({ task: 'render a button', files: corpus }, ctx, { embedder, cacheDir });
    const pack = join(embeddingStoreDir(cacheDir, embedder.id), 'vectors.pack');
    const bytes = readFileSync(pack);
    for (let i = 40; i < bytes.length; i += 97) bytes[i] = bytes[i]! ^ 0x5a;
    writeFileSync(pack, bytes);
    const ctx2 = testContext();
    const again = countingEmbedder(embedder);
    const r = await semanticAlignment({ task: 'render a button', files: corpus }, ctx2, { embedder: again, cacheDir });
    expect(r.embedded).toBeGreaterThan(0);
    expect(ctx2.warnings.some((w) => w.includes('corrupt record'))).toBe(true);
    expect([...r.scores].sort((a, b) => b[1] - a[1])[0]![0]).toBe('src/ui/button.tsx');
  });

  it('agrees with exact cosine on the top 10 files when forced onto the ANN index (recall >= 0.95)', async () => {
    const words = Object.values(TOPICS).flat();
    const files: CandidateFile[] = [];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let i = 0; i < 400; i++) {
      const text = Array.from({ length: 6 }, () => words[Math.floor(next() * words.length)]).join(' ');
      files.push(candidateFile(`src/f${String(i).padStart(3, '0')}.ts`, text));
    }
    const tasks = ['retry the http request on timeout', 'parse the yaml config file', 'render the modal button', 'socket server theme layout'];
    let hits = 0;
    for (const task of tasks) {
      const cacheDir = join(tmp.root, 'c4');
      const exact = await semanticAlignment({ task, files }, testContext({ config: configWith({ ann_min_chunks: 1_000_000 }) }), { embedder, cacheDir });
      const ann = await semanticAlignment({ task, files }, testContext({ config: configWith({ ann_min_chunks: 10 }) }), { embedder, cacheDir, indexDir: join(tmp.root, 'index') });
      expect(exact.search).toBe('exact');
      expect(ann.search).toBe('ann');
      const top = (m: Map<string, number>) => new Set([...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 10).map(([p]) => p));
      const a = top(ann.scores);
      for (const p of top(exact.scores)) if (a.has(p)) hits++;
    }
    expect(hits / (10 * tasks.length)).toBeGreaterThanOrEqual(0.95);
    expect(readdirSync(join(tmp.root, 'index')).some((n) => n.endsWith('.hnsw'))).toBe(true);
  });

  it('reads the embedding store once per binding: a long-lived stage scores the next task from the vectors in memory', async () => {
    const cacheDir = join(tmp.root, 'kept-open');
    const counting = countingEmbedder(embedder);
    const align = bindSemanticAlignment(counting, { cacheDir, longLived: true });
    const ctx = testContext({ config: configWith({}) });
    const first = await align({ task: 'add retry with backoff to the http client', files: corpus }, ctx);
    expect(counting.texts.length).toBeGreaterThan(1);
    // The pack on disk is gone; the binding still holds every chunk vector, so only the new task is embedded.
    rmSync(embeddingStoreDir(cacheDir, counting.id), { recursive: true, force: true });
    counting.texts.length = 0;
    const second = await align({ task: 'load the yaml config', files: corpus }, ctx);
    expect(counting.texts).toEqual(['load the yaml config']);
    expect([...second.scores.keys()].sort()).toEqual([...first.scores.keys()].sort());
    // A fresh binding (a new process) reads the disk again: it finds only what the second run appended.
    const fresh = countingEmbedder(embedder);
    await bindSemanticAlignment(fresh, { cacheDir, longLived: true })({ task: 'load the yaml config', files: corpus }, ctx);
    expect(fresh.texts.length).toBeGreaterThan(1);
  });

  it('chunks embedded ahead (as collect reads new files) are not embedded again, and the scores are those of a run without', async () => {
    const ctx = testContext({ config: configWith({ chunk_chars: 80 }) });
    const task = 'load the yaml config';
    const plain = await bindSemanticAlignment(embedder, { cacheDir: join(tmp.root, 'no-ahead') })({ task, files: corpus }, ctx);
    const counting = countingEmbedder(embedder);
    const align = bindSemanticAlignment(counting, { cacheDir: join(tmp.root, 'ahead') });
    for (const file of corpus) align.ahead(file, ctx);
    // the same file again is not embedded twice
    align.ahead(corpus[0]!, ctx);
    const result = await align({ task, files: corpus }, ctx);
    expect([...result.scores]).toEqual([...plain.scores]);
    // every chunk once, ahead; the run itself embedded only the task
    expect(result.embedded).toBe(0);
    expect(counting.texts.filter((t) => t === task)).toEqual([task]);
    expect(counting.texts.length).toBe(plain.chunks + 1);
    expect(new Set(counting.texts).size).toBe(counting.texts.length);
  });

  it('sends chunks ahead in calls of at most a million characters, two under way at once, and still embeds each chunk once', async () => {
    const ctx = testContext({ config: configWith({ chunk_chars: 4000 }) });
    const words = TOPICS.network!.concat(TOPICS.config!);
    // five files of ~450k characters: more than two calls' worth
    const big = Array.from({ length: 5 }, (_, i) =>
      candidateFile(`src/big-${i}.ts`, Array.from({ length: 9000 }, (_, line) => `const ${words[(line + i) % words.length]}${line} = ${line}; // ${i}\n`).join('')),
    );
    let underWay = 0;
    let most = 0;
    const calls: number[] = [];
    const counting = countingEmbedder(embedder);
    const watched: Embedder = {
      id: embedder.id,
      dimensions: embedder.dimensions,
      async embed(texts) {
        most = Math.max(most, ++underWay);
        calls.push(texts.reduce((n, t) => n + t.length, 0));
        try {
          return await counting.embed(texts);
        } finally {
          underWay--;
        }
      },
    };
    const align = bindSemanticAlignment(watched, { cacheDir: join(tmp.root, 'bounded') });
    for (const file of big) align.ahead(file, ctx);
    const result = await align({ task: 'load the yaml config', files: big }, ctx);
    expect(most).toBe(2);
    // each call ahead holds at most a million characters of content (and the paths it prefixes)
    expect(calls.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...calls.slice(0, -1))).toBeLessThan(1_000_000 + 9000 * 20);
    expect(result.embedded).toBe(0);
    expect(new Set(counting.texts).size).toBe(counting.texts.length);
    expect(counting.texts.length).toBe(result.chunks + 1);
  });

  it('a one-shot binding lets the model go once every vector is in, before the search; a long-lived one keeps it', async () => {
    const ctx = testContext({ config: configWith({ chunk_chars: 80 }) });
    for (const longLived of [false, true]) {
      const events: string[] = [];
      const watched: Embedder = {
        id: embedder.id,
        dimensions: embedder.dimensions,
        embed: (texts) => (events.push('embed'), embedder.embed(texts)),
        release: async () => void events.push('release'),
      };
      const align = bindSemanticAlignment(watched, { cacheDir: join(tmp.root, `release-${longLived}`), longLived });
      const result = await align({ task: 'add retry with backoff to the http client', files: corpus }, ctx);
      expect([...result.scores].sort((a, b) => b[1] - a[1])[0]![0]).toBe('src/http/client.ts');
      expect(events.filter((e) => e === 'release')).toEqual(longLived ? [] : ['release']);
      expect(events.at(-1)).toBe(longLived ? 'embed' : 'release');
    }
  });

  it('a one-shot binding lets its ANN index go after a run; its next run, an edit later, scores as a fresh binding does', async () => {
    const words = Object.values(TOPICS).flat();
    const files = Array.from({ length: 60 }, (_, i) => candidateFile(`src/g${String(i).padStart(2, '0')}.ts`, `${words[i % words.length]} ${words[(i * 7) % words.length]} ${words[(i * 13) % words.length]}`));
    const ctx = testContext({ config: configWith({ ann_min_chunks: 10 }) });
    const cacheDir = join(tmp.root, 'detach');
    const align = bindSemanticAlignment(embedder, { cacheDir });
    const first = await align({ task: 'retry the http request', files }, ctx);
    expect(first.search).toBe('ann');
    await align.settle();
    const edited = files.map((f, i) => (i === 3 ? candidateFile(f.path, 'yaml config schema default') : f));
    // collect tells the binding of the edited file, as a run does
    align.ahead(edited[3]!, ctx);
    const second = await align({ task: 'parse the yaml config', files: edited }, ctx);
    await align.settle();
    const fresh = await bindSemanticAlignment(embedder, { cacheDir })({ task: 'parse the yaml config', files: edited }, ctx);
    expect([...second.scores]).toEqual([...fresh.scores]);
  });

  it('a memo answers the same file set from memory and gives the scores of a run without it; a new file set is resolved again', async () => {
    const cacheDir = join(tmp.root, 'memo');
    const memo = createSemanticMemo();
    for (const annMinChunks of [1_000_000, 2]) {
      const ctx = testContext({ config: configWith({ ann_min_chunks: annMinChunks }) });
      const deps = { embedder, cacheDir };
      const files = [...corpus];
      const tasks = ['add retry with backoff to the http client', 'load the yaml config', 'render the button'];
      for (const task of tasks) {
        const remembered = await semanticAlignment({ task, files }, ctx, { ...deps, memo });
        const plain = await semanticAlignment({ task, files }, ctx, deps);
        expect(remembered.scores).toEqual(plain.scores);
        expect(remembered.chunks).toBe(plain.chunks);
        expect(memo.last?.files).toBe(files);
      }
      // An edited file is a new collected array: its new chunks are embedded and scored.
      const counting = countingEmbedder(embedder);
      const edited = files.map((f) => (f.path === 'src/ui/button.tsx' ? candidateFile(f.path, `export function retryRequest${annMinChunks}() { return fetchWithRetry(timeoutBackoff); }\n`) : f));
      const after = await semanticAlignment({ task: 'retry the request with backoff', files: edited }, ctx, { embedder: counting, cacheDir, memo });
      expect(counting.texts.some((t) => t.startsWith('src/ui/button.tsx'))).toBe(true);
      expect(after.scores).toEqual((await semanticAlignment({ task: 'retry the request with backoff', files: edited }, ctx, deps)).scores);
      expect(memo.last?.files).toBe(edited);
    }
  });

  it('a memo updated over edits, adds, deletes and renames keeps the chunk set and ANN index a full pass gives', async () => {
    const texts = [
      'export async function fetchWithRetry(request) { return retry(timeout, backoff); }',
      'export function loadConfig(path) { return parseYaml(path); }\n\nexport const schema = true;',
      'export function Button() { return renderView({ style, color }); }',
      'the socket server streams the theme layout',
      '',
    ];
    const paths = ['src/a.ts', 'src/b.ts', 'lib/c.ts', 'README.md', 'docs/d.md'];
    const op = fc.record({ path: fc.constantFrom(...paths), to: fc.constantFrom(...paths), text: fc.nat(texts.length), kind: fc.constantFrom('set', 'delete', 'rename') });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(op, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 5 }), async (steps) => {
        const cacheDir = join(tmp.root, `memo-ops-${run++}`);
        const memo = createSemanticMemo();
        const ctx = testContext({ config: configWith({ ann_min_chunks: 2 }) });
        const tree = new Map(paths.slice(0, 4).map((p, i) => [p, texts[i] as string]));
        const filesOf = () => [...tree].sort(([a], [b]) => (a < b ? -1 : 1)).map(([p, t]) => candidateFile(p, t));
        const task = 'retry the http request with backoff';
        await semanticAlignment({ task, files: filesOf() }, ctx, { embedder, cacheDir, memo });
        for (const ops of steps) {
          for (const { path, to, text, kind } of ops) {
            if (kind === 'set') tree.set(path, texts[text] ?? `a new text ${run} ${text}`);
            else if (kind === 'delete') tree.delete(path);
            else if (tree.has(path) && path !== to) {
              tree.set(to, tree.get(path) as string);
              tree.delete(path);
            }
          }
          const files = filesOf();
          const remembered = await semanticAlignment({ task, files }, ctx, { embedder, cacheDir, memo });
          // a run without the memo diffs the whole set against the index the memo saved: nothing to change
          const plain = await semanticAlignment({ task, files }, ctx, { embedder, cacheDir });
          expect(remembered.scores).toEqual(plain.scores);
          expect(remembered.chunks).toBe(plain.chunks);
          expect([...(memo.last?.fileChunks.keys() ?? [])]).toEqual(files.map((f) => f.path));
          expect(new Set(memo.last?.unique)).toEqual(new Set([...(memo.last?.fileChunks.values() ?? [])].flat()));
          const meta = JSON.parse(readFileSync(join(cacheDir, 'index', readdirSync(join(cacheDir, 'index')).find((n) => n.endsWith('.json')) as string), 'utf8')) as { labels: unknown[] };
          if (remembered.search === 'ann') expect(meta.labels).toEqual(memo.ann.state?.meta.labels);
        }
      }),
      { numRuns: 15 },
    );
  });

  it('a long-lived memo saves a changed ANN index after the answer; the next search waits for it, the saved index is the one in memory', async () => {
    const ctx = testContext({ config: configWith({ ann_min_chunks: 2 }) });
    const deferred = createSemanticMemo({ deferSaves: true });
    const awaited = createSemanticMemo();
    const deferredDir = join(tmp.root, 'deferred');
    const savedLabels = () => {
      const dir = join(deferredDir, 'index');
      return (JSON.parse(readFileSync(join(dir, readdirSync(dir).find((n) => n.endsWith('.json')) as string), 'utf8')) as { labels: unknown[] }).labels;
    };
    let files = [...corpus];
    for (const text of ['retry the fetch with a timeout', 'render a modal dialog', 'parse yaml settings']) {
      files = [...files.filter((f) => f.path !== 'src/new.ts'), candidateFile('src/new.ts', text)];
      const task = 'retry the http request';
      const fast = await semanticAlignment({ task, files }, ctx, { embedder, cacheDir: deferredDir, memo: deferred });
      expect(deferred.ann.saving).toBeDefined();
      const slow = await semanticAlignment({ task, files }, ctx, { embedder, cacheDir: join(tmp.root, 'awaited'), memo: awaited });
      expect(fast.scores).toEqual(slow.scores);
    }
    await deferred.ann.saving;
    expect(savedLabels()).toEqual(deferred.ann.state?.meta.labels);
    expect(deferred.ann.state?.meta.labels).toEqual(awaited.ann.state?.meta.labels);
  });

  it('keeps the ANN index beside the vectors in the cache directory, where the next run (any checkout) finds it as it is', async () => {
    const cacheDir = join(tmp.root, 'shared-cache');
    const align = bindSemanticAlignment(embedder, { cacheDir });
    const ctx = testContext({ config: configWith({ ann_min_chunks: 2 }) });
    const first = await align({ task: 'add retry with backoff to the http client', files: corpus }, ctx);
    expect(first.scores.size).toBe(corpus.length);
    // the index is written after the answer; a one-shot caller waits for it as it ends
    await align.settle();
    const index = readdirSync(join(cacheDir, 'index')).sort();
    expect(index.filter((n) => n.endsWith('.hnsw'))).toHaveLength(1);
    expect(index.some((n) => n.endsWith('.json'))).toBe(true);
    // Same chunks, another task: the index is read, not rebuilt or rewritten.
    await align({ task: 'load the yaml config', files: corpus }, ctx);
    expect(readdirSync(join(cacheDir, 'index')).sort()).toEqual(index);
  });

  /** The real score stage with its settle held back 300 ms: `settled()` says whether that ended. */
  const heldBackScore = (root: string, config: Config) => {
    const real = createScoreStage({ root, config }, { embedderFactory: async () => embedder });
    let done = false;
    const score = Object.assign((...args: Parameters<typeof real>) => real(...args), real, {
      settle: async () => {
        await real.settle!();
        await new Promise((resolve) => setTimeout(resolve, 300));
        done = true;
      },
    });
    return { score, settled: () => done };
  };

  it('a one-shot pipeline run ends only once the ANN index it changed is written', async () => {
    const repo = makeFixtureRepo([{ date: '2026-01-05T10:00:00Z', files: Object.fromEntries(corpus.map((f) => [f.path, f.content])) }]);
    try {
      const config = ConfigSchema.parse({
        relevance_scoring: { scoring_method: 'semantic', embedding: { ann_min_chunks: 2 } },
        tokenizer: 'chars4',
        cache: { dir: join(tmp.root, 'pipeline-ann') },
      });
      // the stage's own settle, held back a while: the run must still wait for it
      const { score, settled } = heldBackScore(repo.root, config);
      await runContextBudget({ task: 'add retry with backoff to the http client', root: repo.root, config }, { now: () => Date.UTC(2026, 1, 1), newRunId: () => 'run', score });
      expect(settled()).toBe(true);
      const written = readdirSync(join(tmp.root, 'pipeline-ann', 'index'));
      expect(written.filter((n) => n.endsWith('.hnsw'))).toHaveLength(1);
      expect(written.filter((n) => n.endsWith('.tmp'))).toEqual([]);
    } finally {
      repo.cleanup();
    }
  }, 60_000);

  it('a one-shot run that fails after scoring still waits for what scoring left under way', async () => {
    const repo = makeFixtureRepo([{ date: '2026-01-05T10:00:00Z', files: Object.fromEntries(corpus.map((f) => [f.path, f.content])) }]);
    try {
      const config = ConfigSchema.parse({ relevance_scoring: { scoring_method: 'semantic' }, tokenizer: 'chars4', cache: { dir: join(tmp.root, 'pipeline-fail') } });
      const { score, settled } = heldBackScore(repo.root, config);
      const levels = async () => {
        throw new Error('summaries unavailable');
      };
      await expect(runContextBudget({ task: 'add retry with backoff to the http client', root: repo.root, config }, { now: () => Date.UTC(2026, 1, 1), newRunId: () => 'run', score, levels })).rejects.toThrow('summaries unavailable');
      expect(settled()).toBe(true);
    } finally {
      repo.cleanup();
    }
  }, 60_000);
});

describe('fileSimilarity', () => {
  it.each([
    [[], 0],
    [[0.5], 0.5],
    [[0.2, 0.8, 0.5], (2 * 0.8 + 0.5) / 3],
  ])('%j -> %d', (sims, expected) => expect(fileSimilarity(sims)).toBeCloseTo(expected, 10));
});
