import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CandidateFile, Embedder } from '../../../src/types.js';
import { makeTempDir, type Fixture } from '../../helpers/fixture-repo.js';
import { testContext } from '../../helpers/fakes.js';
import { indexDirOf } from '../../../src/cache/cache-dir.js';
import { modelSlug, openEmbeddingStore, taskVectorKey } from '../../../src/scoring/semantic/embedding-store.js';
import { fileLabelsPath, readFileLabels } from '../../../src/scoring/semantic/file-labels.js';
import { alignFromChangedLabels, alignFromFileLabels, createSemanticMemo, embedAhead, semanticAlignment } from '../../../src/scoring/semantic/semantic-alignment.js';
import { candidateFile, tinyEmbedder, configWith, countingEmbedder, TOPICS } from './tiny-model.js';

const CHUNK_CHARS = 60;
const ANN_MIN_CHUNKS = 2;
const TASK = 'retry the http request after a timeout';

/** Twelve files of topic words, a few chunks each; `i` picks the words. */
function fileOf(path: string, i: number, extra = ''): CandidateFile {
  const words = Object.values(TOPICS).flat();
  const lines = Array.from({ length: 4 }, (_, k) => `${words[(i * 7 + k * 3) % words.length]} ${words[(i * 5 + k) % words.length]} and the ${words[(i + k * 11) % words.length]}`);
  return candidateFile(path, `${lines.join('\n')}\n${extra}`);
}
const base = Array.from({ length: 12 }, (_, i) => fileOf(`src/m${String(i).padStart(2, '0')}.ts`, i));

function context() {
  return testContext({ config: configWith({ chunk_chars: CHUNK_CHARS, ann_min_chunks: ANN_MIN_CHUNKS }) });
}

/** A one-shot run's full path (it writes the labels), new content embedded ahead first as in a run, its writes awaited. */
async function fullRun(files: CandidateFile[], cacheDir: string, embedder: Embedder, task = TASK, ahead: readonly CandidateFile[] = []) {
  const memo = createSemanticMemo({ deferSaves: true });
  const store = await openEmbeddingStore(cacheDir, embedder.id, embedder.dimensions);
  await embedAhead(store, embedder, ahead, CHUNK_CHARS, new Set());
  const result = await semanticAlignment({ task, files }, context(), { embedder, cacheDir, memo, store, writeFileLabels: true });
  await Promise.all([memo.ann.saving, memo.labelsSaving]);
  return result;
}

/** The changed-labels path as a one-shot run takes it: new content embedded ahead first, then the labels of the last file set. */
async function changedRun(files: CandidateFile[], cacheDir: string, embedder: Embedder, options: { ahead?: readonly CandidateFile[]; task?: string } = {}) {
  const memo = createSemanticMemo({ deferSaves: true });
  const store = await openEmbeddingStore(cacheDir, embedder.id, embedder.dimensions);
  await embedAhead(store, embedder, options.ahead ?? [], CHUNK_CHARS, new Set());
  const stored = await readFileLabels(fileLabelsPath(indexDirOf(cacheDir), embedder.id));
  const result = await alignFromChangedLabels({ task: options.task ?? TASK, files }, context(), { embedder, cacheDir, memo, store, stored });
  await Promise.all([memo.ann.saving, memo.labelsSaving]);
  return result;
}

/** What is kept on disk of the ANN index and the labels, but the index file's random name. */
function keptState(cacheDir: string, embedder: Embedder) {
  const indexDir = indexDirOf(cacheDir);
  const meta = JSON.parse(readFileSync(join(indexDir, `${modelSlug(embedder.id)}.json`), 'utf8')) as { labels: Array<string | null> };
  return readFileLabels(fileLabelsPath(indexDir, embedder.id)).then((labels) => ({ metaLabels: meta.labels, labels: labels && { ...labels, indexFile: undefined } }));
}

describe('semantic alignment from the labels of a file set that changed a little (one-shot runs)', () => {
  let tmp: Fixture;
  let embedder: Embedder;
  beforeAll(async () => {
    tmp = makeTempDir('aiwg-changed-labels-');
    embedder = await tinyEmbedder(tmp.root, 'models');
  });
  afterAll(() => tmp.cleanup());

  const edited = base.map((f, i) => (i === 3 ? fileOf(f.path, 3, 'timeout retry backoff socket server\n') : f));
  const cases: Array<[name: string, files: CandidateFile[], ahead: CandidateFile[]]> = [
    ['an edited file (its unchanged chunks keep their labels)', edited, [edited[3]!]],
    ['an added file', [...base, fileOf('src/n.ts', 40)].sort((a, b) => (a.path < b.path ? -1 : 1)), [fileOf('src/n.ts', 40)]],
    ['a removed file', base.filter((_, i) => i !== 5), []],
    ['a renamed file', base.map((f, i) => (i === 7 ? candidateFile('src/z.ts', f.content) : f)).sort((a, b) => (a.path < b.path ? -1 : 1)), [candidateFile('src/z.ts', base[7]!.content)]],
    ['an edit and a removal', edited.filter((_, i) => i !== 9), [edited[3]!]],
    // collect hands ahead only blobs it has not seen: a copy of a known file comes with no vectors
    ['a copied file (its blob known at another path, so nothing embedded ahead)', [...base, candidateFile('src/m02-copy.ts', base[2]!.content)].sort((a, b) => (a.path < b.path ? -1 : 1)), []],
    ['an edited file whose embedding ahead failed', edited, []],
  ];
  for (const [name, files, ahead] of cases) {
    it(`${name}: the scores, index and labels of the full path, and the next run takes the quick path`, async () => {
      const cacheDir = join(tmp.root, name.replace(/\W+/g, '-'));
      await fullRun(base, cacheDir, embedder);
      const fullDir = `${cacheDir}-full`;
      cpSync(cacheDir, fullDir, { recursive: true });

      const counting = countingEmbedder(embedder);
      const changed = await changedRun(files, cacheDir, counting, { ahead });
      expect(changed).not.toBeNull();
      const full = await fullRun(files, fullDir, embedder, TASK, ahead);
      expect(full.search).toBe('ann');
      expect([...changed!.scores]).toEqual([...full.scores]);
      expect({ ...changed, scores: undefined }).toEqual({ ...full, scores: undefined });
      // only chunks of the changed and added files were embedded (ahead, or here when nothing was)
      const fresh = files.filter((f) => !base.some((b) => b.path === f.path && b.hash === f.hash));
      expect(counting.texts.length > 0).toBe(fresh.length > 0);
      expect(counting.texts.every((text) => fresh.some((file) => text.startsWith(`${file.path}\n`)))).toBe(true);
      expect(changed!.embedded).toBe(ahead.length === 0 ? counting.texts.length : 0);
      expect(await keptState(cacheDir, embedder)).toEqual(await keptState(fullDir, embedder));

      // the labels written name the saved index: the next run over these files scores from them, as the full path does
      const quick = await alignFromFileLabels({ task: 'load the yaml config file', files }, context(), { embedder, cacheDir, memo: createSemanticMemo({ deferSaves: true }) });
      expect(quick).not.toBeNull();
      expect([...quick!.scores]).toEqual([...(await fullRun(files, fullDir, embedder, 'load the yaml config file')).scores]);
    });
  }

  it('a new task is embedded once and kept in the pack', async () => {
    const cacheDir = join(tmp.root, 'new-task');
    await fullRun(base, cacheDir, embedder);
    const counting = countingEmbedder(embedder);
    const task = 'change the button color in the modal view';
    expect(await changedRun(edited, cacheDir, counting, { ahead: [edited[3]!], task })).not.toBeNull();
    expect(counting.texts.filter((text) => text === task)).toHaveLength(1);
    expect((await openEmbeddingStore(cacheDir, embedder.id, embedder.dimensions)).hasVector(taskVectorKey(task))).toBe(true);
  });

  it('is a miss (null, nothing written) when the full path must run', async () => {
    const cacheDir = join(tmp.root, 'misses');
    await fullRun(base, cacheDir, embedder);
    const before = await keptState(cacheDir, embedder);
    // more than a quarter of the files changed
    const many = base.map((f, i) => (i < 4 ? fileOf(f.path, i, 'yaml schema\n') : f));
    expect(await changedRun(many, cacheDir, embedder, { ahead: many.slice(0, 4) })).toBeNull();
    // exact search (below ann_min_chunks): its labels are rows of the vectors
    const exactDir = join(tmp.root, 'misses-exact');
    const memo = createSemanticMemo({ deferSaves: true });
    const exactConfig = configWith({ chunk_chars: CHUNK_CHARS, ann_min_chunks: 1_000_000 });
    await semanticAlignment({ task: TASK, files: base }, testContext({ config: exactConfig }), { embedder, cacheDir: exactDir, memo, writeFileLabels: true });
    await memo.labelsSaving;
    const store = await openEmbeddingStore(exactDir, embedder.id, embedder.dimensions);
    await embedAhead(store, embedder, [edited[3]!], CHUNK_CHARS, new Set());
    const stored = await readFileLabels(fileLabelsPath(indexDirOf(exactDir), embedder.id));
    expect(stored).not.toBeNull();
    expect(await alignFromChangedLabels({ task: TASK, files: edited }, testContext({ config: exactConfig }), { embedder, cacheDir: exactDir, memo: createSemanticMemo(), store, stored })).toBeNull();
    // no labels at all
    expect(await alignFromChangedLabels({ task: TASK, files: edited }, context(), { embedder, cacheDir, memo: createSemanticMemo(), store: await openEmbeddingStore(cacheDir, embedder.id, embedder.dimensions), stored: null })).toBeNull();
    expect(await keptState(cacheDir, embedder)).toEqual(before);
  });
});
