import type { CandidateFile, Config, Embedder, Reporter, RunContext, RuntimeEnv } from '../types.js';
import { indexDirOf } from '../cache/cache-dir.js';
import { sharedCacheFor } from '../cache/redis-cache.js';
import type { EmbeddingStore } from './semantic/embedding-store.js';
import type { SemanticMemo } from './semantic/semantic-alignment.js';

/**
 * The one place the score stage touches src/scoring/semantic/ (the embeddings area). Both
 * modules are imported lazily: the embedding runtime is heavy and keyword runs never need it.
 */

export interface SemanticScores {
  /** Raw similarity per path (cosine of the task with the file's best chunks, in [-1, 1]). */
  scores: Map<string, number>;
  modelId: string;
}

/** Semantic alignment bound to an embedder and cache directory: what the signal calls. */
export type SemanticAlignment = ((input: { task: string; files: CandidateFile[] }, ctx: RunContext) => Promise<SemanticScores>) & {
  /** Whether the task's vector is stored already (opening the store, which the next run keeps). */
  hasTaskVector(task: string): Promise<boolean>;
  /**
   * A file whose content the run reads for the first time: its chunks are embedded now, on the
   * embedder's thread while collect goes on, and the next alignment waits for them instead of
   * embedding them itself. Files told within one turn of the event loop go in one call.
   */
  ahead(file: CandidateFile, ctx: RunContext): void;
  /** The write of a changed ANN index the last alignment left under way, if any (its failure is ignored). */
  settle(): Promise<void>;
  /** As a run starts: the ANN index on disk, if any, is read meanwhile for the first search to take. */
  readAhead(): Promise<void>;
};

/** Builds the embedder; returns null (having recorded why in `warnings`) when no model can be loaded. */
export type EmbedderFactory = (
  config: Config,
  options: { root: string; cacheDir: string; reporter: Reporter; warnings?: string[]; env?: RuntimeEnv },
) => Promise<Embedder | null>;

/** The production embedder factory (static models direct, others through transformers.js), imported on first use. */
export const defaultEmbedderFactory: EmbedderFactory = async (config, options) => {
  const { createEmbedder } = await import('./semantic/embedder.js');
  return createEmbedder(config, options);
};

/**
 * Start the default model loading now, before the embedder is made, when the task's vector is
 * surely not stored (its key is nowhere in the vector pack): a run with a new task then finds the
 * model loaded when it scores, instead of waiting for it after the embedder is made and the store
 * opened on a main thread busy collecting. The embedder made later takes the started thread
 * (static-embed-thread.ts). Nothing for another model, or while the default one is not built.
 */
export async function startModelAhead(task: string, config: Config, options: { root: string; cacheDir: string; env?: RuntimeEnv }): Promise<void> {
  const [{ builtDefaultModel }, { packHoldsKey, taskVectorKey }, { prestartStaticEmbedThread }] = await Promise.all([
    import('./semantic/embedder.js'),
    import('./semantic/embedding-store.js'),
    import('./semantic/static-embed-thread.js'),
  ]);
  const model = builtDefaultModel(config, options);
  if (model === undefined || (await packHoldsKey(options.cacheDir, model.id, taskVectorKey(task)))) return;
  prestartStaticEmbedThread(model);
}

/**
 * Bind semantic alignment to an embedder. Vectors and the ANN index live under the cache
 * directory (`<cacheDir>/embeddings/`, `<cacheDir>/index/`): with `cache.dir` set, a new checkout
 * or worktree of the repository reuses them instead of rebuilding the index. With cache.redis_url
 * the embeddings are also shared through Redis behind the pack file, with the summary cache's max
 * age (Redis drops them then; the pack file keeps its own).
 */
export function bindSemanticAlignment(embedder: Embedder, options: { cacheDir: string; longLived?: boolean }): SemanticAlignment {
  // The embedding store is read once per binding and kept: a long-lived score stage (the warm
  // index of a server or provider) binds once, so its queries read no vectors from disk.
  let store: Promise<EmbeddingStore> | undefined;
  let memo: SemanticMemo | undefined;
  const modules = () => Promise.all([import('./semantic/semantic-alignment.js'), import('./semantic/embedding-store.js')]);
  /** The binding's memo, made on first use: a changed ANN index is written after the answer, not before it (a one-shot run awaits it as it ends: settle). */
  const memoOf = (create: (options: { deferSaves: boolean }) => SemanticMemo): SemanticMemo => (memo ??= create({ deferSaves: true }));
  const storeNow = async (): Promise<EmbeddingStore> => {
    const [, { openEmbeddingStore }] = await modules();
    if (store === undefined) {
      const opening = openEmbeddingStore(options.cacheDir, embedder.id, embedder.dimensions);
      store = opening;
      opening.catch(() => {
        if (store === opening) store = undefined;
      });
    }
    return store;
  };
  // embeddings started ahead and not yet waited for, and the chunk keys they cover
  const pending = new Set<Promise<unknown>>();
  const started = new Set<string>();
  let queued: Array<Pick<CandidateFile, 'path' | 'content' | 'hash'>> = [];
  let flushing: Promise<void> | undefined;
  const flush = async (chunkChars: number) => {
    const files = queued;
    queued = [];
    flushing = undefined;
    const [[{ embedAhead }], opened] = await Promise.all([modules(), storeNow()]);
    await embedAhead(opened, embedder, files, chunkChars, started);
  };
  const align = async (input: { task: string; files: CandidateFile[] }, ctx: RunContext): Promise<SemanticScores> => {
    const [[{ semanticAlignment, alignFromFileLabels, alignFromChangedLabels, createSemanticMemo }], { readFileLabels, fileLabelsPath }] = await Promise.all([modules(), import('./semantic/file-labels.js')]);
    const memoNow = memoOf(createSemanticMemo);
    const far = sharedCacheFor(ctx.config, { maxAgeMs: ctx.config.summarization.caching.max_age_hours * 3_600_000 });
    // a one-shot run over files seen before scores from their chunk labels, without the store;
    // a long-lived binding keeps its own memo, and a shared far cache wants the full path
    const oneShot = options.longLived !== true && !far;
    const labels = oneShot ? readFileLabels(fileLabelsPath(indexDirOf(options.cacheDir), embedder.id)) : undefined;
    if (labels && pending.size === 0) {
      const quick = await alignFromFileLabels(input, ctx, { embedder, cacheDir: options.cacheDir, memo: memoNow, labels });
      if (quick) return quick;
    }
    const opened = await storeNow();
    const ahead = [...pending];
    pending.clear();
    try {
      // files changed since the labels were written: the others keep theirs, once the new ones' vectors are in
      if (labels) {
        await Promise.all(ahead.map((p) => p.catch(() => undefined)));
        const changed = await alignFromChangedLabels(input, ctx, { embedder, cacheDir: options.cacheDir, memo: memoNow, store: opened, stored: await labels });
        if (changed) return changed;
      }
      return await semanticAlignment(input, ctx, { embedder, cacheDir: options.cacheDir, store: opened, memo: memoNow, ahead, writeFileLabels: oneShot, ...(far ? { far } : {}) });
    } finally {
      started.clear();
    }
  };
  const ahead = (file: CandidateFile, ctx: RunContext): void => {
    // with a shared far cache, a missing vector is asked there before it is embedded: not ahead
    if (ctx.config.cache.redis_url !== undefined) return;
    queued.push({ path: file.path, content: file.content, hash: file.hash });
    if (flushing !== undefined) return;
    const chunkChars = ctx.config.relevance_scoring.embedding.chunk_chars;
    flushing = new Promise<void>((next) => setImmediate(next)).then(() => flush(chunkChars));
    // awaited (and its failure ignored) by the next alignment
    flushing.catch(() => undefined);
    pending.add(flushing);
  };
  return Object.assign(align, {
    ahead,
    async settle() {
      await Promise.all([memo?.ann.saving, memo?.labelsSaving]);
    },
    async readAhead() {
      const [[{ createSemanticMemo }], { readIndexAhead }] = await Promise.all([modules(), import('./semantic/ann-index.js')]);
      readIndexAhead({ indexDir: indexDirOf(options.cacheDir), modelId: embedder.id, dimensions: embedder.dimensions }, memoOf(createSemanticMemo).ann);
    },
    async hasTaskVector(task: string) {
      const [, { taskVectorKey, readStoredVector }] = await modules();
      // an open store answers; else the pack is searched for the one key, not read into a store
      if (store !== undefined) return (await store).hasVector(taskVectorKey(task));
      return (await readStoredVector(options.cacheDir, embedder.id, embedder.dimensions, taskVectorKey(task))) !== undefined;
    },
  });
}
