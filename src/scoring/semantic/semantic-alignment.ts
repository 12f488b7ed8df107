import type { CandidateFile, Embedder, KeyValueCache, RunContext } from '../../types.js';
import { indexDirOf } from '../../cache/cache-dir.js';
import { diffFiles, type FileChanges } from '../derived.js';
import { annSearch, indexAsIs, indexToUpdate, type AnnHandle, type AnnQuery } from './ann-index.js';
import { chunkFile, CHUNKER_VERSION } from './chunker.js';
import { appendStoredVector, embeddingStoreDir, keyHash as sha256, openEmbeddingStore, readStoredVector, taskVectorKey, type EmbeddingStore, type KeySet } from './embedding-store.js';
import { createFarTier } from './far-embeddings.js';
import { byPath, fileLabelsPath, fileSetDigest, labelsOf, listedFiles, listFiles, readFileLabels, writeFileLabels, type FileLabels } from './file-labels.js';

export interface SemanticAlignmentDeps {
  embedder: Embedder;
  /** The shared cache directory (resolveCacheDir): embeddings go to `<cacheDir>/embeddings/`. */
  cacheDir: string;
  /** Where the ANN index is kept; default (and production) `<cacheDir>/index`, beside the vectors. */
  indexDir?: string;
  /** The embedding store, already open (a long-lived caller keeps one); default: read it from `cacheDir` now. */
  store?: EmbeddingStore;
  /**
   * A cache shared past this machine (Redis with cache.redis_url), behind the pack file: what the
   * pack misses is asked there before it is chunked or embedded, and what this run embeds is put there.
   */
  far?: KeyValueCache;
  /** What a long-lived caller keeps between runs (createSemanticMemo): file keys, the last file set's chunks, the ANN index. */
  memo?: SemanticMemo;
  /** Embeddings started ahead (embedAhead) that this run waits for before it looks for missing vectors. */
  ahead?: Iterable<Promise<unknown>>;
  /**
   * Write the file set's chunk labels for the next one-shot run (file-labels.ts), after the ANN
   * index this run changed is saved; the write is left in `memo.labelsSaving`.
   */
  writeFileLabels?: boolean;
  /** Awaited once the run holds every vector it needs, before its search (a one-shot run lets the model go: Embedder.release). */
  embedded?: () => Promise<void>;
}

/**
 * Kept by a long-lived binding between runs: the file key of each (path, blob) and chunk
 * settings, the chunk lists of the last file set (the same collected array, fully resolved the
 * last time), and the ANN index in memory. A new file set resolves again from the store.
 */
export interface SemanticMemo {
  fileKeys: Map<string, string>;
  last?: {
    files: readonly CandidateFile[];
    settings: string;
    /** Path -> its chunk keys, in path order. */
    fileChunks: Map<string, string[]>;
    unique: string[];
    /** File keys, chunk keys and the task keys of the runs over this file set (what a compaction keeps). */
    used: UsedKeys;
  };
  ann: AnnHandle;
  /** The chunk labels' write under way (writeFileLabels), if any; its failure only costs the next run the full path. */
  labelsSaving?: Promise<void>;
}

/**
 * `deferSaves`: a changed ANN index is saved after the answer (AnnHandle.deferSave); the caller
 * awaits `ann.saving` before it lets go of the index (the pipeline's adapter does: settle).
 */
export function createSemanticMemo(options: { deferSaves?: boolean } = {}): SemanticMemo {
  return { fileKeys: new Map(), ann: { deferSave: options.deferSaves === true } };
}

/** File keys remembered by a memo before it starts over (a long-lived process stays bounded). */
const MEMO_MAX_FILE_KEYS = 500_000;

export interface SemanticAlignmentResult {
  /** Per file: cosine of the task with the file's best chunks (see fileSimilarity), in [-1, 1]. */
  scores: Map<string, number>;
  modelId: string;
  /** Chunks of all files this run. */
  chunks: number;
  /** Chunks embedded this run (cache misses). */
  embedded: number;
  /** Vectors and file chunk lists the far cache supplied (0 without one). */
  farHits: number;
  /** `exact` below embedding.ann_min_chunks unique chunks, `ann` (hnswlib) from there. */
  search: 'exact' | 'ann';
}

/** Texts per embed() call between progress updates. */
const EMBED_GROUP = 256;
/** Chunks an ANN search returns: enough for many files to get their best chunks in. */
const ANN_MIN_RESULTS = 256;
const ANN_RESULT_FRACTION = 0.05;

/**
 * Semantic task alignment: each file's chunks (cached by content hash + model id) against the task
 * embedding (embedded once per run, cached too). Exact cosine below `ann_min_chunks` chunks, an
 * hnswlib index above. Files the ANN search does not reach get the similarity of its last hit (they
 * rank at or below every file it reached).
 */
export async function semanticAlignment(
  input: { task: string; files: CandidateFile[] },
  ctx: RunContext,
  deps: SemanticAlignmentDeps,
): Promise<SemanticAlignmentResult> {
  const { embedder } = deps;
  const { chunk_chars: chunkChars, ann_min_chunks: annMinChunks } = ctx.config.relevance_scoring.embedding;
  const store = deps.store ?? (await openEmbeddingStore(deps.cacheDir, embedder.id, embedder.dimensions));
  if (store.stats.corrupt > 0) ctx.warnings.push(`embedding cache ${store.dir}: ${store.stats.corrupt} corrupt record(s) ignored; their chunks are re-embedded`);
  let embedded = 0;
  let farHits = 0;
  let fileChunks = new Map<string, string[]>();
  let unique: string[] | undefined;
  let used: UsedKeys | undefined;
  let keyChanges: AnnQuery['changes'];
  const far = deps.far ? createFarTier(deps.far, embedder) : undefined;
  const memo = deps.memo;
  const settings = chunkSettings(chunkChars);
  try {
    // vectors embedded ahead are in the store once these settle; a failed one is embedded below
    if (deps.ahead) await Promise.all([...deps.ahead].map((p) => p.catch(() => undefined)));
    const missing = new Map<string, string>();
    const chunksOf = (file: CandidateFile, fileKey: string): string[] => chunkKeysOf(store, file, fileKey, chunkChars, missing);
    const last = memo?.last;
    if (last !== undefined && last.files === input.files && last.settings === settings && !far) {
      // the same collected files as the last run, every chunk of them embedded then
      ({ fileChunks, unique, used } = last);
    } else if (last !== undefined && last.settings === settings && !far) {
      // the last run's files, every chunk of them embedded then, and the files that changed since
      ({ fileChunks, unique, keyChanges } = updateChunkSets(last, diffFiles(last.files, input.files), (file) => chunksOf(file, fileKeyOf(memo, settings, file))));
    } else {
      const files = byPath(input.files);
      const fileKeys = files.map((file) => fileKeyOf(memo, settings, file));
      if (far) farHits += await far.fill(store, fileKeys.filter((key) => !store.getFileChunks(key)), []);
      for (const [index, file] of files.entries()) fileChunks.set(file.path, chunksOf(file, fileKeys[index]!));
    }
    const taskKey = taskVectorKey(input.task);
    if (!store.hasVector(taskKey)) missing.set(taskKey, input.task);
    if (far) {
      farHits += await far.fill(store, [], [...missing.keys()]);
      for (const key of [...missing.keys()]) if (store.hasVector(key)) missing.delete(key);
    }
    embedded = await embedMissing(store, embedder, missing, ctx);
    if (missing.has(taskKey)) embedded--;
    await deps.embedded?.();

    const task = store.getVector(taskKey)!;
    if (unique === undefined) {
      const keys = new Set<string>();
      for (const hashes of fileChunks.values()) for (const h of hashes) keys.add(h);
      unique = [...keys];
    }
    let chunks = 0;
    for (const hashes of fileChunks.values()) chunks += hashes.length;
    const chunkKeys = unique;
    used ??= new UsedKeys(input.files, (file) => fileKeyOf(memo, settings, file), chunkKeys.length, () => chunkKeys);
    if (memo) memo.last = { files: input.files, settings, fileChunks, unique, used };
    const search = unique.length >= annMinChunks ? 'ann' : 'exact';
    const similarity = new Map<string, number>();
    let floor = 0;
    // what the next one-shot run over these files scores from: written after a changed ANN index
    // is saved (under a new name, which the labels name)
    const keepLabels = (indexFile: () => string, labelOf: () => ReadonlyMap<string, number>, vectors?: () => Float32Array) => {
      if (!deps.writeFileLabels || !memo || far) return;
      const labels = labelsOf(fileChunks, labelOf());
      if (!labels) return;
      const path = fileLabelsPath(deps.indexDir ?? indexDirOf(deps.cacheDir), embedder.id);
      const sorted = byPath(input.files);
      const digest = fileSetDigest(sorted, settings, embedder.id);
      const count = unique!.length;
      memo.labelsSaving = Promise.all([memo.ann.saving, readFileLabels(path)])
        .then(([, known]) =>
          known?.digest === digest && known.indexFile === indexFile() ? undefined : writeFileLabels(path, { digest, indexFile: indexFile(), unique: count, ...labels, ...(vectors ? { vectors: vectors() } : {}), files: listFiles(sorted) }),
        )
        .catch(() => undefined);
    };
    if (search === 'exact') {
      for (const key of unique) similarity.set(key, dot(task, store.getVector(key)!));
      // the rows of the distinct chunks' vectors, in `unique` order, are the labels of exact search
      const rows = unique;
      keepLabels(
        () => '',
        () => new Map(rows.map((key, row) => [key, row])),
        () => {
          const vectors = new Float32Array(rows.length * embedder.dimensions);
          rows.forEach((key, row) => vectors.set(store.getVector(key)!, row * embedder.dimensions));
          return vectors;
        },
      );
    } else {
      const k = Math.max(ANN_MIN_RESULTS, Math.ceil(unique.length * ANN_RESULT_FRACTION));
      const query = {
        indexDir: deps.indexDir ?? indexDirOf(deps.cacheDir),
        modelId: embedder.id,
        dimensions: embedder.dimensions,
        keys: unique,
        ...(keyChanges ? { changes: keyChanges } : {}),
        vectorOf: (key: string) => store.getVector(key)!,
        query: task,
        k,
      };
      const result = await annSearch(query, memo?.ann);
      for (const hit of result.hits) similarity.set(hit.key, hit.similarity);
      floor = result.hits.length > 0 ? result.hits[result.hits.length - 1]!.similarity : 0;
      const held = memo?.ann.state;
      if (held) keepLabels(() => held.meta.indexFile, () => held.labelOf);
    }
    const scores = new Map<string, number>();
    for (const [path, hashes] of fileChunks) {
      scores.set(path, fileSimilarity(hashes.map((h) => similarity.get(h) ?? floor)));
    }
    return { scores, modelId: embedder.id, chunks, embedded, search, farHits };
  } finally {
    await far?.publish(store).catch(() => undefined);
    const chunkKeys = used ? [] : [...new Set([...fileChunks.values()].flat())];
    const kept = used ?? new UsedKeys(input.files, (file) => fileKeyOf(memo, settings, file), chunkKeys.length, () => chunkKeys);
    kept.add(taskVectorKey(input.task));
    await store.flush(kept).catch((error: unknown) => ctx.warnings.push(saveFailure(store.dir, error)));
  }
}

/**
 * A one-shot run's semantic alignment from the chunk labels the last run over the same files
 * wrote (file-labels.ts): the task's vector (stored, else embedded now and appended to the pack)
 * and one search (of the ANN index as it is on disk, or of the stored rows below ann_min_chunks),
 * each file scored from its labels as semanticAlignment scores it from its chunk keys (the same
 * scores, bit for bit). null when anything it needs is missing or does not match (another file
 * set, model, chunk settings, search mode or index file; a damaged labels file): the caller then
 * takes semanticAlignment.
 */
export async function alignFromFileLabels(
  input: { task: string; files: CandidateFile[] },
  ctx: RunContext,
  deps: Pick<SemanticAlignmentDeps, 'embedder' | 'cacheDir' | 'indexDir'> & { memo: SemanticMemo; labels?: Promise<FileLabels | null> },
): Promise<SemanticAlignmentResult | null> {
  const { embedder } = deps;
  const { chunk_chars: chunkChars, ann_min_chunks: annMinChunks } = ctx.config.relevance_scoring.embedding;
  const indexDir = deps.indexDir ?? indexDirOf(deps.cacheDir);
  const taskKey = taskVectorKey(input.task);
  const [stored, storedTask] = await Promise.all([deps.labels ?? readFileLabels(fileLabelsPath(indexDir, embedder.id)), readStoredVector(deps.cacheDir, embedder.id, embedder.dimensions, taskKey)]);
  if (!stored || stored.starts.length !== input.files.length + 1) return null;
  const files = byPath(input.files);
  if (stored.digest !== fileSetDigest(files, chunkSettings(chunkChars), embedder.id)) return null;
  // exact search below ann_min_chunks (its labels are rows of the stored vectors), else the ANN index
  const exact = stored.unique < annMinChunks;
  if (exact !== (stored.vectors !== undefined && stored.indexFile === '')) return null;
  const index = exact ? exactIndex(stored, embedder.dimensions) : await indexAsIs({ indexDir, modelId: embedder.id, dimensions: embedder.dimensions, indexFile: stored.indexFile, live: stored.unique }, deps.memo.ann);
  if (!index) return null;
  // a new task is embedded now and its vector appended to the pack, as the full path would store it
  let task = storedTask;
  if (task === undefined) {
    [task] = await embedder.embed([input.task]);
    if (task === undefined) return null;
    await appendStoredVector(deps.cacheDir, embedder.id, taskKey, task).catch((error: unknown) => ctx.warnings.push(saveFailure(embeddingStoreDir(deps.cacheDir, embedder.id), error)));
  }
  const hits = index.search(task, exact ? stored.unique : Math.max(ANN_MIN_RESULTS, Math.ceil(stored.unique * ANN_RESULT_FRACTION)));
  const { starts, labels } = stored;
  const scores = scoreFromLabels(files, starts, labels, hits);
  ctx.reporter.debug(`semantic: ${files.length} files scored from their chunk labels (${labels.length} chunks, ${hits.length} found)`);
  return { scores, modelId: embedder.id, chunks: labels.length, embedded: 0, search: exact ? 'exact' : 'ann', farHits: 0 };
}

/** Above this share of changed, added and removed files, alignFromChangedLabels leaves the file set to the full path (no faster then). */
const MAX_CHANGED_LABELS_SHARE = 0.25;

/**
 * A one-shot run's semantic alignment over a file set that differs a little from the one the
 * labels were written for (the run after an edit, a checkout a few commits away): the files
 * whose path and blob did not change keep their labels; each other file's chunk list and vectors
 * come from the store (embedded ahead as collect read it), or, for a file whose blob collect knew
 * from another path (a copied fixture), are made here as the full path makes them; the ANN index
 * on disk drops the labels of chunks that went and adds the new chunks, as annSearch would bring
 * it in step with the new key set (ann-index.ts: indexToUpdate), and is saved; then one search,
 * each file scored from its labels. The same scores, to the last bit, and the same index and
 * labels files as the full path (semanticAlignment), without its pass over every file's chunk
 * list and the diff of the whole key set against the index (babel: ~100 ms of the main thread per
 * changed set).
 *
 * Null (nothing changed) when the full path must run: no labels (or exact search: the rows it
 * keeps are few), the index on disk is not the one they name, too many files changed, or the
 * index would be rebuilt. A chunk key hashes its file's path with the text, so no two files share
 * one: the chunks that go are the changed and removed files' old chunks that the new ones do not
 * repeat.
 */
export async function alignFromChangedLabels(
  input: { task: string; files: CandidateFile[] },
  ctx: RunContext,
  deps: Pick<SemanticAlignmentDeps, 'embedder' | 'cacheDir' | 'indexDir' | 'embedded'> & { memo: SemanticMemo; store: EmbeddingStore; stored: FileLabels | null },
): Promise<SemanticAlignmentResult | null> {
  const { embedder, store, stored, memo } = deps;
  const { chunk_chars: chunkChars, ann_min_chunks: annMinChunks } = ctx.config.relevance_scoring.embedding;
  if (!stored || stored.vectors !== undefined || stored.indexFile === '' || stored.unique < annMinChunks) return null;
  const listed = listedFiles(stored);
  if (!listed) return null;
  const files = byPath(input.files);
  const settings = chunkSettings(chunkChars);
  // one walk of both lists in path order: each file's stored position when it kept its blob, else its chunk list (chunkKeysOf)
  const keptAt = new Int32Array(files.length).fill(-1);
  const fresh = new Map<number, string[]>();
  // the texts of the changed files' chunks the store has no vector for, by key
  const missing = new Map<string, string>();
  // the stored files whose labels go: changed (their path is in `fresh` too) or removed
  const dropped: number[] = [];
  let removed = 0;
  const tooMany = () => fresh.size + removed > MAX_CHANGED_LABELS_SHARE * files.length;
  let i = 0;
  for (let j = 0; j < files.length; j++) {
    const file = files[j]!;
    for (; i < listed.paths.length && listed.paths[i]! < file.path; i++, removed++) dropped.push(i);
    if (i < listed.paths.length && listed.paths[i] === file.path) {
      if (listed.hashes[i] === file.hash) keptAt[j] = i;
      else dropped.push(i);
      i++;
    }
    if (keptAt[j] !== -1) continue;
    // embedded ahead as collect read it; else (a blob collect knew at another path) chunked here, as the full path would
    fresh.set(j, chunkKeysOf(store, file, fileKeyOf(memo, settings, file), chunkChars, missing));
    if (tooMany()) return null;
  }
  for (; i < listed.paths.length; i++, removed++) dropped.push(i);
  if (tooMany()) return null;
  const indexDir = deps.indexDir ?? indexDirOf(deps.cacheDir);
  const index = await indexToUpdate({ indexDir, modelId: embedder.id, dimensions: embedder.dimensions, indexFile: stored.indexFile, live: stored.unique }, memo.ann);
  if (!index) return null;
  // the chunks that stay (a changed file's unchanged chunk keeps its key and label), go and come
  const labelOfOld = new Map<string, number>();
  for (const at of dropped) {
    for (let k = stored.starts[at]!; k < stored.starts[at + 1]!; k++) {
      const key = index.keyOf(stored.labels[k]!);
      if (key === null) return null;
      labelOfOld.set(key, stored.labels[k]!);
    }
  }
  const comes = new Set<string>();
  const stays = new Set<string>();
  for (const hashes of fresh.values()) for (const h of hashes) (labelOfOld.has(h) ? stays : comes).add(h);
  const goes: number[] = [];
  for (const [key, label] of labelOfOld) if (!stays.has(key)) goes.push(label);
  const unique = stored.unique - goes.length + comes.size;
  if (unique < annMinChunks) return null;
  // a new task is embedded now and kept in the pack, as the full path would keep it (before the
  // index changes: the full path, should this one stop, starts from the index as read)
  const taskKey = taskVectorKey(input.task);
  if (!store.hasVector(taskKey)) {
    const [vector] = await embedder.embed([input.task]);
    if (vector === undefined) return null;
    store.putVector(taskKey, vector);
  }
  const embedded = await embedMissing(store, embedder, missing, ctx);
  await deps.embedded?.();
  const added = index.apply(goes, [...comes], (key) => store.getVector(key)!);
  if (!added) return null;
  // the labels in path order: kept slices, and each new chunk list by its labels
  const starts = new Uint32Array(files.length + 1);
  const labelList: number[] = [];
  files.forEach((_, j) => {
    starts[j] = labelList.length;
    const at = keptAt[j]!;
    if (at !== -1) for (let k = stored.starts[at]!; k < stored.starts[at + 1]!; k++) labelList.push(stored.labels[k]!);
    else for (const h of fresh.get(j)!) labelList.push(labelOfOld.get(h) ?? added.get(h)!);
  });
  starts[files.length] = labelList.length;
  const labels = Int32Array.from(labelList);
  const hits = index.search(store.getVector(taskKey)!, Math.max(ANN_MIN_RESULTS, Math.ceil(unique * ANN_RESULT_FRACTION)));
  const scores = scoreFromLabels(files, starts, labels, hits);
  // the index is saved (after the answer: settle awaits it), then the labels that name it
  const labelsPath = fileLabelsPath(indexDir, embedder.id);
  const digest = fileSetDigest(files, settings, embedder.id);
  memo.labelsSaving = index
    .save()
    .then((indexFile) => writeFileLabels(labelsPath, { digest, indexFile, unique, starts, labels, files: listFiles(files) }))
    .catch(() => undefined);
  // what the store's compaction keeps: every file's key, the chunks now live, the task
  const used = new UsedKeys(files, (file) => fileKeyOf(memo, settings, file), unique, () => liveChunkKeys(labels, index.keyOf));
  used.add(taskKey);
  await store.flush(used).catch((error: unknown) => ctx.warnings.push(saveFailure(store.dir, error)));
  ctx.reporter.debug(`semantic: ${files.length} files scored from their chunk labels, ${fresh.size} changed or added and ${removed} removed (${comes.size} chunks added to the index, ${goes.length} removed)`);
  return { scores, modelId: embedder.id, chunks: labels.length, embedded, search: 'ann', farHits: 0 };
}

/** The distinct chunk keys of a file set's labels. */
function liveChunkKeys(labels: Int32Array, keyOf: (label: number) => string | null): string[] {
  return [...new Set(labels)].map((label) => keyOf(label) ?? '');
}

/**
 * Each file's score from its chunk labels, as semanticAlignment scores it from its chunk keys: a
 * chunk the search did not return counts at the lowest similarity it did return.
 */
function scoreFromLabels(files: readonly CandidateFile[], starts: Uint32Array, labels: Int32Array, hits: ReadonlyArray<{ label: number; similarity: number }>): Map<string, number> {
  const similarity = new Map<number, number>();
  let floor = 0;
  for (const hit of hits) {
    similarity.set(hit.label, hit.similarity);
    floor = similarity.size === 1 ? hit.similarity : Math.min(floor, hit.similarity);
  }
  const scores = new Map<string, number>();
  files.forEach((file, i) => {
    const chunkSimilarities: number[] = [];
    for (let at = starts[i]!; at < starts[i + 1]!; at++) chunkSimilarities.push(similarity.get(labels[at]!) ?? floor);
    scores.set(file.path, fileSimilarity(chunkSimilarities));
  });
  return scores;
}

/** Exact search over the stored rows of file labels: every row with its dot product, in row order; null when rows and labels do not fit together. */
function exactIndex(stored: FileLabels, dimensions: number): { search(query: Float32Array): Array<{ label: number; similarity: number }> } | null {
  const vectors = stored.vectors!;
  if (vectors.length !== stored.unique * dimensions || stored.labels.some((label) => label < 0 || label >= stored.unique)) return null;
  return {
    search(query) {
      const hits: Array<{ label: number; similarity: number }> = [];
      for (let row = 0; row * dimensions < vectors.length; row++) hits.push({ label: row, similarity: dot(query, vectors.subarray(row * dimensions, (row + 1) * dimensions)) });
      return hits;
    },
  };
}

/**
 * Start embedding the chunks of new files while the caller goes on (collect hands each file whose
 * blob it reads for the first time): chunks the store holds or another call has started are left
 * out, the rest go to the embedder in one call, whose vectors are put in the store when it
 * answers. The returned promise settles then (undefined when there was nothing to embed); a
 * failure only means semanticAlignment embeds those chunks itself.
 */
export function embedAhead(
  store: EmbeddingStore,
  embedder: Embedder,
  files: ReadonlyArray<Pick<CandidateFile, 'path' | 'content' | 'hash'>>,
  chunkChars: number,
  started: Set<string>,
): Promise<void> | undefined {
  const keys: string[] = [];
  const texts: string[] = [];
  const settings = chunkSettings(chunkChars);
  for (const file of files) {
    const hashes: string[] = [];
    for (const chunk of chunkFile(file.content, chunkChars)) {
      const text = `${file.path}\n${chunk.text}`;
      const hash = sha256(text);
      hashes.push(hash);
      if (started.has(hash) || store.hasVector(hash)) continue;
      started.add(hash);
      keys.push(hash);
      texts.push(text);
    }
    // the file's chunk list too: the alignment that waits for these vectors then chunks it no more
    const fileKey = fileKeyOf(undefined, settings, file);
    keepFileChunks(store, fileKey, hashes, store.getFileChunks(fileKey));
  }
  if (keys.length === 0) return undefined;
  return embedder.embed(texts).then(
    (vectors) => keys.forEach((key, i) => store.putVector(key, vectors[i]!)),
    (error: unknown) => {
      for (const key of keys) started.delete(key);
      throw error;
    },
  );
}

/**
 * A file's similarity from its chunk similarities: (2*best + second)/3 with two or more chunks,
 * so one strong chunk carries a file while a second one breaks ties; 0 for a file without chunks.
 */
export function fileSimilarity(similarities: readonly number[]): number {
  if (similarities.length === 0) return 0;
  let best = -Infinity;
  let second = -Infinity;
  for (const s of similarities) {
    if (s > best) {
      second = best;
      best = s;
    } else if (s > second) second = s;
  }
  return similarities.length === 1 ? best : (2 * best + second) / 3;
}

async function embedMissing(store: EmbeddingStore, embedder: Embedder, missing: Map<string, string>, ctx: RunContext): Promise<number> {
  const keys = [...missing.keys()];
  for (let start = 0; start < keys.length; start += EMBED_GROUP) {
    ctx.reporter.progress(`embedding (${embedder.id})`, start, keys.length);
    const group = keys.slice(start, start + EMBED_GROUP);
    const vectors = await embedder.embed(group.map((k) => missing.get(k)!));
    group.forEach((key, i) => store.putVector(key, vectors[i]!));
  }
  if (keys.length > 0) ctx.reporter.progress(`embedding (${embedder.id})`, keys.length, keys.length);
  return keys.length;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** The warning of vectors the pack in `dir` could not take (the run goes on; they are embedded again next time). */
function saveFailure(dir: string, error: unknown): string {
  return `embedding cache ${dir}: could not save new vectors (${error instanceof Error ? error.message : String(error)})`;
}

/** The embedding store's key of a task's vector (embedding-store.ts). */
export { taskVectorKey };

/**
 * The chunk sets of a file set from those of an earlier one, every chunk of which was embedded:
 * only the added and changed files are looked up (`resolve`), in path order as a full pass gives
 * them. A chunk key hashes its file's path with the text, so no two files share one: a removed
 * or changed file's keys that it no longer has leave the set.
 */
function updateChunkSets(
  last: NonNullable<SemanticMemo['last']>,
  changes: FileChanges,
  resolve: (file: CandidateFile) => string[],
): { fileChunks: Map<string, string[]>; unique: string[]; keyChanges: NonNullable<AnnQuery['changes']> } {
  const replaced = new Map<string, string[] | null>();
  for (const f of changes.removed) replaced.set(f.path, null);
  for (const f of [...changes.added, ...changes.changed.map((c) => c.after)]) replaced.set(f.path, resolve(f));
  let fileChunks: Map<string, string[]>;
  if (changes.added.length === 0) {
    // the same paths or fewer: a copy keeps the path order, a changed path keeps its place
    fileChunks = new Map(last.fileChunks);
    for (const [path, next] of replaced) {
      if (next === null) fileChunks.delete(path);
      else fileChunks.set(path, next);
    }
  } else {
    fileChunks = new Map();
    for (const path of [...last.fileChunks.keys(), ...changes.added.map((f) => f.path)].sort()) {
      const next = replaced.get(path);
      if (next !== null) fileChunks.set(path, next ?? last.fileChunks.get(path)!);
    }
  }
  const gone = new Set<string>();
  const added = new Set<string>();
  for (const path of replaced.keys()) {
    const before = new Set(last.fileChunks.get(path) ?? []);
    const after = new Set(fileChunks.get(path) ?? []);
    for (const h of before) if (!after.has(h)) gone.add(h);
    for (const h of after) if (!before.has(h)) added.add(h);
  }
  const unique = gone.size === 0 ? [...last.unique] : last.unique.filter((h) => !gone.has(h));
  unique.push(...added);
  return { fileChunks, unique, keyChanges: { from: last.unique, added: [...added], removed: [...gone] } };
}

/**
 * What the store's compaction keeps of the runs over a file set: a file key per file, its chunk
 * keys (distinct: `chunkCount` of them, listed by `chunks`) and the task keys added. None of them
 * share a key (hashes of different texts, `task:` keys), so the size is known at once; the
 * membership set is made, and the file keys and chunk list with it, only when a compaction asks.
 */
class UsedKeys implements KeySet {
  private readonly tasks = new Set<string>();
  private members: Set<string> | undefined;
  constructor(
    private readonly files: readonly CandidateFile[],
    private readonly fileKey: (file: CandidateFile) => string,
    private readonly chunkCount: number,
    private readonly chunks: () => readonly string[],
  ) {}

  get size(): number {
    return this.files.length + this.chunkCount + this.tasks.size;
  }

  has(key: string): boolean {
    this.members ??= new Set([...this.files.map(this.fileKey), ...this.chunks()]);
    return this.members.has(key) || this.tasks.has(key);
  }

  add(taskKey: string): void {
    this.tasks.add(taskKey);
  }
}

/**
 * A file's chunk keys: the list the store keeps for `fileKey` when it holds every one of their
 * vectors, else the file chunked now (the list kept in the store, and the text of each chunk
 * whose vector it lacks added to `missing`, by key, for the caller to embed).
 */
function chunkKeysOf(store: EmbeddingStore, file: Pick<CandidateFile, 'path' | 'content'>, fileKey: string, chunkChars: number, missing: Map<string, string>): string[] {
  const hashes = store.getFileChunks(fileKey);
  if (hashes && hashes.every((h) => store.hasVector(h))) return hashes;
  const fresh: string[] = [];
  for (const chunk of chunkFile(file.content, chunkChars)) {
    const text = `${file.path}\n${chunk.text}`;
    const hash = sha256(text);
    fresh.push(hash);
    if (!store.hasVector(hash)) missing.set(hash, text);
  }
  keepFileChunks(store, fileKey, fresh, hashes);
  return fresh;
}

/** Store a file's chunk list unless the store holds that list already (each put appends a record to the pack). */
function keepFileChunks(store: EmbeddingStore, fileKey: string, hashes: string[], held: readonly string[] | undefined): void {
  if (held?.join('\n') !== hashes.join('\n')) store.putFileChunks(fileKey, hashes);
}

/** What a file's chunk list depends on besides its path and content: part of its file key. */
function chunkSettings(chunkChars: number): string {
  return `${CHUNKER_VERSION}|${chunkChars}`;
}

/** A file's chunk-list key: its path, blob and the chunk settings; remembered by a memo. */
function fileKeyOf(memo: SemanticMemo | undefined, settings: string, file: Pick<CandidateFile, 'path' | 'hash'>): string {
  const id = `${settings}|${file.path}|${file.hash}`;
  const known = memo?.fileKeys.get(id);
  if (known !== undefined) return known;
  const key = sha256(id);
  if (memo) {
    if (memo.fileKeys.size >= MEMO_MAX_FILE_KEYS) memo.fileKeys.clear();
    memo.fileKeys.set(id, key);
  }
  return key;
}


