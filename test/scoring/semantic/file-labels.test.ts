import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CandidateFile, Embedder } from '../../../src/types.js';
import { makeTempDir, type Fixture } from '../../helpers/fixture-repo.js';
import { testContext } from '../../helpers/fakes.js';
import { indexDirOf } from '../../../src/cache/cache-dir.js';
import { openEmbeddingStore, taskVectorKey } from '../../../src/scoring/semantic/embedding-store.js';
import { fileLabelsPath, readFileLabels } from '../../../src/scoring/semantic/file-labels.js';
import { alignFromFileLabels, createSemanticMemo, semanticAlignment } from '../../../src/scoring/semantic/semantic-alignment.js';
import { candidateFile, tinyEmbedder, configWith, countingEmbedder } from './tiny-model.js';

const files = [
  candidateFile('src/http/client.ts', 'export async function fetchWithRetry(request) {\n  // retry with backoff on timeout\n  return httpClient.fetch(request);\n}\n'),
  candidateFile('src/http/retry.ts', 'export function backoff(attempt) {\n  return Math.min(1000 * 2 ** attempt, 30000);\n}\n\nexport const maxRetries = 5;\n'),
  candidateFile('src/config/load.ts', 'export function loadConfig(path) {\n  return parseYaml(readSettings(path));\n}\n\nexport const defaultOptions = { schema: true };\n'),
  candidateFile('src/ui/button.tsx', 'export function Button() {\n  return renderView({ style, color, onClick });\n}\n'),
  candidateFile('docs/guide.md', '# Guide\n\nConfigure the client: timeouts, retries and the yaml settings file.\n'),
  candidateFile('README.md', 'the and of to in is it for with on'),
];

/** A one-shot run's full alignment: a fresh memo, the labels written when nothing was embedded, the writes awaited. */
async function fullRun(task: string, input: CandidateFile[], cacheDir: string, embedder: Embedder, annMinChunks: number) {
  const memo = createSemanticMemo({ deferSaves: true });
  const ctx = testContext({ config: configWith({ chunk_chars: 60, ann_min_chunks: annMinChunks }) });
  const result = await semanticAlignment({ task, files: input }, ctx, { embedder, cacheDir, memo, writeFileLabels: true });
  await Promise.all([memo.ann.saving, memo.labelsSaving]);
  return result;
}

function quickRun(task: string, input: CandidateFile[], cacheDir: string, embedder: Embedder, annMinChunks: number, chunkChars = 60) {
  const ctx = testContext({ config: configWith({ chunk_chars: chunkChars, ann_min_chunks: annMinChunks }) });
  return alignFromFileLabels({ task, files: input }, ctx, { embedder, cacheDir, memo: createSemanticMemo({ deferSaves: true }) });
}

describe('semantic alignment from a file set\'s chunk labels (one-shot runs)', () => {
  let tmp: Fixture;
  let embedder: Embedder;
  beforeAll(async () => {
    tmp = makeTempDir('aiwg-labels-');
    embedder = await tinyEmbedder(tmp.root, 'models');
  });
  afterAll(() => tmp.cleanup());

  for (const [mode, annMinChunks] of [['exact', 1_000_000], ['ann', 2]] as const) {
    it(`${mode} search: scores what the full path scores, bit for bit, for a stored task and for a new one (embedded once, then stored)`, async () => {
      const cacheDir = join(tmp.root, `same-${mode}`);
      // the first run embeds every chunk (and, for ann, builds the index), and writes the labels once that is saved
      expect(await quickRun('retry the http request with backoff', files, cacheDir, embedder, annMinChunks)).toBeNull();
      const first = await fullRun('retry the http request with backoff', files, cacheDir, embedder, annMinChunks);
      expect(first.search).toBe(mode);
      expect(first.embedded).toBeGreaterThan(0);
      expect(await readFileLabels(fileLabelsPath(indexDirOf(cacheDir), embedder.id))).not.toBeNull();
      const second = await fullRun('retry the http request with backoff', files, cacheDir, embedder, annMinChunks);
      expect([...second.scores]).toEqual([...first.scores]);

      const counting = countingEmbedder(embedder);
      const quick = await quickRun('retry the http request with backoff', [...files].reverse(), cacheDir, counting, annMinChunks);
      expect(quick).not.toBeNull();
      expect([...quick!.scores]).toEqual([...second.scores]);
      expect({ ...quick, scores: undefined }).toEqual({ ...second, scores: undefined });
      expect(counting.texts).toEqual([]);

      const task = 'where is the yaml config loaded';
      const fresh = await quickRun(task, files, cacheDir, counting, annMinChunks);
      expect(counting.texts).toEqual([task]);
      const store = await openEmbeddingStore(cacheDir, embedder.id, embedder.dimensions);
      expect(store.hasVector(taskVectorKey(task))).toBe(true);
      const full = await fullRun(task, files, cacheDir, embedder, annMinChunks);
      expect(full.embedded).toBe(0);
      expect([...fresh!.scores]).toEqual([...full.scores]);
    });
  }

  it('is a miss (null) for another file set, chunk setting, search mode or index, and for a damaged labels file', async () => {
    const cacheDir = join(tmp.root, 'misses');
    const task = 'render the button view';
    await fullRun(task, files, cacheDir, embedder, 2);
    expect(await quickRun(task, files, cacheDir, embedder, 2)).not.toBeNull();

    const edited = files.map((f) => (f.path === 'src/ui/button.tsx' ? candidateFile(f.path, `${f.content}// edited\n`) : f));
    expect(await quickRun(task, edited, cacheDir, embedder, 2)).toBeNull();
    expect(await quickRun(task, files.slice(1), cacheDir, embedder, 2)).toBeNull();
    expect(await quickRun(task, files, cacheDir, embedder, 2, 61)).toBeNull();
    expect(await quickRun(task, files, cacheDir, embedder, 1_000_000)).toBeNull();

    // the edit's full run adds its chunks to the ANN index, saved under a new name: the labels written for the old one no longer hold
    const labelsPath = fileLabelsPath(indexDirOf(cacheDir), embedder.id);
    const before = readFileSync(labelsPath);
    await fullRun(task, edited, cacheDir, embedder, 2);
    writeFileSync(labelsPath, before);
    expect(await quickRun(task, files, cacheDir, embedder, 2)).toBeNull();

    // the next full run over the files writes their labels again; then a flipped byte makes the file a miss, never a crash
    await fullRun(task, files, cacheDir, embedder, 2);
    expect(await quickRun(task, files, cacheDir, embedder, 2)).not.toBeNull();
    const bytes = readFileSync(labelsPath);
    bytes[bytes.length - 3] = bytes[bytes.length - 3]! ^ 0xff;
    writeFileSync(labelsPath, bytes);
    expect(await readFileLabels(labelsPath)).toBeNull();
    expect(await quickRun(task, files, cacheDir, embedder, 2)).toBeNull();
  });
});
