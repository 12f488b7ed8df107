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
 * Embedding calls started ahead (as collect reads new files) that are under way at once, and the
 * content each takes at most (one file at least): the embedding thread is sent work as it takes
 * it on, so the texts waiting for it do not pile up in its memory (a cold run over 20,000 files
 * sent everything at once).
 */
const MAX_AHEAD_CALLS = 2;
const AHEAD_CALL_CHARS = 1_000_000;

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
  // files waiting for a call (at most MAX_AHEAD_CALLS are under way), and the busy spell's end
  const queued: Array<Pick<CandidateFile, 'path' | 'content' | 'hash'>> = [];
  let inFlight = 0;
  let scheduled = false;
  let spell: { done: Promise<void>; end: () => void } | undefined;
  const pump = (chunkChars: number) => {
    while (inFlight < MAX_AHEAD_CALLS && queued.length > 0) {
      let take = 0;
      let chars = 0;
      while (take < queued.length && (take === 0 || chars + queued[take]!.content.length <= AHEAD_CALL_CHARS)) chars += queued[take++]!.content.length;
      const files = queued.splice(0, take);
      inFlight++;
      // a failed call only means the alignment embeds those chunks itself
      void (async () => {
        const [[{ embedAhead }], opened] = await Promise.all([modules(), storeNow()]);
        await embedAhead(opened, embedder, files, chunkChars, started);
      })()
        .catch(() => undefined)
        .finally(() => {
          inFlight--;
          pump(chunkChars);
          if (inFlight === 0 && queued.length === 0) {
            spell?.end();
            spell = undefined;
          }
        });
    }
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
    // a one-shot run has no use for the model once its vectors are in: its memory goes before the search
    const embedded = oneShot && embedder.release ? () => embedder.release!().catch(() => undefined) : undefined;
    const ahead = [...pending];
    pending.clear();
    try {
      // files changed since the labels were written: the others keep theirs, once the new ones' vectors are in
      if (labels) {
        await Promise.all(ahead.map((p) => p.catch(() => undefined)));
        const changed = await alignFromChangedLabels(input, ctx, { embedder, cacheDir: options.cacheDir, memo: memoNow, store: opened, stored: await labels, ...(embedded ? { embedded } : {}) });
        if (changed) return changed;
      }
      return await semanticAlignment(input, ctx, { embedder, cacheDir: options.cacheDir, store: opened, memo: memoNow, ahead, writeFileLabels: oneShot, ...(far ? { far } : {}), ...(embedded ? { embedded } : {}) });
    } finally {
      started.clear();
      // a one-shot run is done with its vectors (the store flushed them) and chunk lists: the
      // steps after scoring do not carry them (~60 MB on 109k chunks); another run reads them again
      if (oneShot) {
        store = undefined;
        if (memo) {
          memo.last = undefined;
          // and with its ANN index, freed once the index and the labels that name it are written
          const free = (await import('./semantic/ann-index.js')).detachAnnIndex(memo.ann);
          void Promise.all([memo.ann.saving, memo.labelsSaving])
            .then(free)
            .catch(() => undefined);
        }
      }
    }
  };
  const ahead = (file: CandidateFile, ctx: RunContext): void => {
    // with a shared far cache, a missing vector is asked there before it is embedded: not ahead
    if (ctx.config.cache.redis_url !== undefined) return;
    queued.push({ path: file.path, content: file.content, hash: file.hash });
    if (spell === undefined) {
      let end!: () => void;
      const done = new Promise<void>((resolve) => (end = resolve));
      spell = { done, end };
      // awaited by the next alignment
      pending.add(done);
    }
    // a turn later: the files read meanwhile go in the same call
    if (scheduled) return;
    scheduled = true;
    const chunkChars = ctx.config.relevance_scoring.embedding.chunk_chars;
    setImmediate(() => {
      scheduled = false;
      pump(chunkChars);
    });
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
