import type { CandidateFile, Config, FactorName, FileCategory, FactorScore, FactorScores, RunContext, ScoredFile, Signal, SignalDeps, SignalInput, Embedder } from '../types.js';
import { FACTOR_NAMES } from '../types.js';
import type { ScoreResult, ScoreStage } from '../stages.js';
import { resolveCacheDir } from '../cache/cache-dir.js';
import { importGraphCache, type ImportGraphCache } from './import-graph/graph-cache.js';
import { classifyFiles } from './classify.js';
import { createDerivedStore } from './derived.js';
import { round6 } from './numbers.js';
import { bindSemanticAlignment, defaultEmbedderFactory, startModelAhead, type EmbedderFactory, type SemanticAlignment } from './semantic-adapter.js';
import { defaultSignals, MENTION_FLOOR, RECENCY_FLOOR, type SemanticOutcome } from './signals/index.js';
import { buildTaskFacts, candidatePathIndex } from './task-facts.js';

export interface ScoreStageOptions {
  /** Repository root: where the embedding caches and the ANN index live. */
  root: string;
  /** The config the stage is built for; at run time the run's `ctx.config` (the same object in the pipeline) governs. */
  config: Config;
  /**
   * A long-lived stage (the warm index of a server or provider): after a run whose task vector was
   * cached, and so did not load the embedding model, the model loads in the background, so the
   * next new task does not wait for it. A one-shot run never loads what it did not need.
   */
  longLived?: boolean;
}

export interface ScoreStageDeps {
  /** Replace the signal registry (tests, experiments). Semantic alignment is then the caller's business. */
  signals?: Signal[];
  /** Build the embedder for semantic/hybrid alignment; default: transformers.js, loaded lazily. */
  embedderFactory?: EmbedderFactory;
}

/** What a factor falls back to when its signal fails or skips a file: "no evidence". */
export const NEUTRAL_FACTOR: Record<FactorName, number> = {
  task_alignment: 0,
  recency: RECENCY_FLOOR,
  mention_density: MENTION_FLOOR,
  dependency_depth: 0,
  file_type: 0.5,
};

/**
 * The score stage: classify every candidate once, run the signal registry in order (each
 * signal sees the factors of the earlier ones), then relevance = sum(weight_i * score_i)
 * with the configured weights. Files come back sorted by relevance, ties by path.
 */
export function createScoreStage(options: ScoreStageOptions, deps: ScoreStageDeps = {}): ScoreStage {
  // One embedder per stage and embedding config: a long-lived stage (the warm index) loads the model once.
  let loaded: { key: string; embedder: Promise<Embedder | null>; warnings: string[] } | undefined;
  const loadFor = (ctx: RunContext) => {
    const key = JSON.stringify([ctx.config.relevance_scoring.embedding, resolveCacheDir(options.root, ctx.config)]);
    if (loaded?.key !== key) {
      const warnings: string[] = [];
      loaded = { key, embedder: loadEmbedder(options, deps, { ...ctx, warnings }), warnings };
    }
    return loaded;
  };
  const embedderFor = async (ctx: RunContext): Promise<Embedder | null> => {
    const held = loadFor(ctx);
    const embedder = await held.embedder;
    // the warnings of loading it belong to every run that uses it
    ctx.warnings.push(...held.warnings);
    return embedder;
  };
  // Task-independent data of the collected file sets (SignalInput.derived), updated when a file changes.
  const derivedStore = createDerivedStore();
  // One binding per embedder and cache directory: it keeps the embedding store open between runs of a long-lived stage.
  let bound: { embedder: Embedder; cacheDir: string; align: SemanticAlignment } | undefined;
  /** The import graph cache of the last one-shot run: settle awaits its write. */
  let keptGraph: ImportGraphCache | undefined;
  const alignmentFor = (embedder: Embedder, cacheDir: string): SemanticAlignment => {
    if (bound?.embedder !== embedder || bound.cacheDir !== cacheDir) bound = { embedder, cacheDir, align: bindSemanticAlignment(embedder, { cacheDir, longLived: options.longLived === true }) };
    return bound.align;
  };
  /**
   * A run's embedder and its binding, found once per run (collect tells newContent of every new
   * file: the stage's config key is not worked out again per file); null for keyword scoring,
   * injected signals, or no model.
   */
  const runBinding = new WeakMap<RunContext, Promise<{ embedder: Embedder; align: SemanticAlignment } | null>>();
  const bindingFor = (ctx: RunContext) => {
    let binding = runBinding.get(ctx);
    if (binding === undefined) {
      binding =
        deps.signals !== undefined || ctx.config.relevance_scoring.scoring_method === 'keyword'
          ? Promise.resolve(null)
          : loadFor(ctx).embedder.then((embedder) => (embedder ? { embedder, align: alignmentFor(embedder, resolveCacheDir(options.root, ctx.config)) } : null));
      binding.catch(() => undefined);
      runBinding.set(ctx, binding);
    }
    return binding;
  };
  /**
   * Called as a run starts, before collect: when the task's vector is not stored yet, the model
   * loads now, while the run waits for git, instead of in the middle of scoring; the ANN index on
   * disk is read meanwhile too. Failures are the score stage's to report.
   */
  const prepare = async (task: string, ctx: RunContext): Promise<void> => {
    await (async () => {
      // the default model, before its embedder is made (the first run of this stage)
      const ahead = loaded === undefined && deps.signals === undefined && deps.embedderFactory === undefined;
      if (ahead && ctx.config.relevance_scoring.scoring_method !== 'keyword' && ctx.config.cache.redis_url === undefined) {
        await startModelAhead(task, ctx.config, { root: options.root, cacheDir: resolveCacheDir(options.root, ctx.config), ...(ctx.env ? { env: ctx.env } : {}) });
      }
      const bound = await bindingFor(ctx);
      void bound?.align.readAhead().catch(() => undefined);
      if (bound?.embedder.load && !(await bound.align.hasTaskVector(task))) await bound.embedder.load();
    })().catch(() => undefined);
  };
  /**
   * New content means new chunks to embed: each file's chunks are embedded ahead on the
   * embedder's thread while collect still reads (the first such call loads the model there).
   */
  const newContent = (file: CandidateFile, ctx: RunContext): void => {
    // the model loads from the first new file on, while the embedding store is still being read
    expectNewContent(ctx);
    bindingFor(ctx)
      .then((bound) => bound?.align.ahead(file, ctx))
      .catch(() => undefined);
  };
  /** Runs whose model load has been started (once each). */
  const loadStarted = new WeakSet<RunContext>();
  /** New content is coming (collect saw it in git's index, or read it): the model loads now. */
  const expectNewContent = (ctx: RunContext): void => {
    if (loadStarted.has(ctx)) return;
    loadStarted.add(ctx);
    bindingFor(ctx)
      .then((bound) => bound?.embedder.load?.())
      .catch(() => undefined);
  };
  const stage = async ({ task, collected, facts: given }: Parameters<ScoreStage>[0], ctx: RunContext): Promise<ScoreResult> => {
    const { files, git } = collected;
    const facts = given ?? buildTaskFacts(task, candidatePathIndex(files));
    const config = ctx.config;
    const method = config.relevance_scoring.scoring_method;
    const derived = derivedStore.forFiles(files);
    const overrides = config.relevance_scoring.factors.file_type.overrides;
    const paths = () => files.map((f) => f.path);
    const categories = derived(`categories ${JSON.stringify(overrides)}`, () => classifyFiles(paths(), config), (previous: Map<string, FileCategory>) => classifyFiles(paths(), config, previous));
    const outcome: SemanticOutcome = { modelId: null };
    let embedder: Embedder | null = null;
    let signals = deps.signals;
    if (signals === undefined) {
      if (method !== 'keyword' && files.length > 0) embedder = await embedderFor(ctx);
      const cacheDir = resolveCacheDir(options.root, config);
      signals = defaultSignals({
        semantic: embedder ? alignmentFor(embedder, cacheDir) : null,
        outcome,
        // the factory records why it returned no embedder; do not say it twice
        fallbackNoted: method !== 'keyword',
      });
    }

    // the scores of each signal that ran, by factor: what later signals read (SignalInput.prior)
    const prior = new Map<FactorName, ReadonlyMap<string, FactorScore>>();
    // a one-shot run keeps its import graph for the next (a long-lived one keeps and updates it in `derived`)
    const graphCache = !options.longLived && config.summarization.caching.enabled ? importGraphCache(resolveCacheDir(options.root, config)) : undefined;
    keptGraph = graphCache;
    const input: SignalInput = { task, facts, files, git, nowMs: ctx.nowMs, prior, categories, derived, ...(graphCache ? { importGraphCache: graphCache } : {}), ...(options.longLived ? { longLived: true } : {}) };
    const signalDeps: SignalDeps = embedder ? { embedder } : {};
    for (const [i, signal] of signals.entries()) {
      ctx.reporter.progress('scoring', i, signals.length);
      // a signal that failed scores no file
      prior.set(signal.name, (await runSignal(signal, input, ctx, signalDeps)) ?? new Map());
    }
    ctx.reporter.progress('scoring', signals.length, signals.length);

    // Each factor of every file, in file order: its signal's score, or neutral where it has none.
    // One column per factor and one object literal per file: babel's 27k files are scored on every
    // query of a warm index.
    const column = (name: FactorName): FactorScore[] => {
      const scores = prior.get(name);
      const neutral: FactorScore = { raw: 0, score: NEUTRAL_FACTOR[name], detail: scores ? 'not scored (neutral)' : 'no signal registered (neutral)' };
      return scores ? files.map((f) => scores.get(f.path) ?? neutral) : files.map(() => neutral);
    };
    const columns: FactorColumns = {
      task_alignment: column('task_alignment'),
      recency: column('recency'),
      mention_density: column('mention_density'),
      dependency_depth: column('dependency_depth'),
      file_type: column('file_type'),
    };
    const relevance = relevances(columns, config);
    const scored: ScoredFile[] = files.map((f, k) => ({
      path: f.path,
      category: categories.get(f.path) ?? 'documentation',
      factors: {
        task_alignment: columns.task_alignment[k]!,
        recency: columns.recency[k]!,
        mention_density: columns.mention_density[k]!,
        dependency_depth: columns.dependency_depth[k]!,
        file_type: columns.file_type[k]!,
      },
      relevance: relevance[k]!,
      mentionedInTask: facts.mentioned.has(f.path),
    }));
    scored.sort(compareScored);
    // the model loads while the caller is busy with this answer; a failure surfaces on its first embed()
    if (options.longLived && embedder?.load) embedder.load().catch(() => undefined);
    const result: ScoreResult = { files: scored, method, embeddingModel: outcome.modelId };
    return result;
  };
  const settle = async (): Promise<void> => {
    if (!options.longLived) await Promise.all([bound?.align.settle(), keptGraph?.written()]);
  };
  return Object.assign(stage, { prepare, newContent, expectNewContent, settle });
}

/** relevance = sum over factors of weight * score, clamped to [0,1] and rounded for stable records. */
export function composite(factors: FactorScores, config: Config): number {
  const columns = Object.fromEntries(FACTOR_NAMES.map((name) => [name, [factors[name]]])) as Record<FactorName, FactorScore[]>;
  return relevances(columns, config)[0] as number; // one file in every column
}

/** Each factor's score of every file, in the same file order. */
export type FactorColumns = Readonly<Record<FactorName, readonly FactorScore[]>>;

/**
 * composite() for every file of the columns at once: the weighted sum in FACTOR_NAMES order (so
 * a file's relevance is the same to the last bit), factor by factor instead of file by file.
 */
function relevances(columns: FactorColumns, config: Config): Float64Array {
  const weights = config.relevance_scoring.factors;
  const totals = new Float64Array(columns[FACTOR_NAMES[0]].length);
  for (const name of FACTOR_NAMES) {
    const weight = weights[name].weight;
    const column = columns[name];
    for (let k = 0; k < totals.length; k++) totals[k]! += weight * column[k]!.score;
  }
  for (let k = 0; k < totals.length; k++) totals[k] = round6(Math.min(1, Math.max(0, totals[k]!)));
  return totals;
}

/** What the ranking order reads of a scored file; `factors` absent counts as no evidence. */
export interface Rankable {
  path: string;
  relevance: number;
  factors?: { task_alignment: FactorScore };
}

/**
 * The ranking order: relevance descending; equal relevance by the strength of the evidence
 * (task alignment, then its raw match score), so the file that matches the task better wins a
 * tie; the path only as the last resort, for a deterministic order.
 */
export function compareScored(a: Rankable, b: Rankable): number {
  return (
    b.relevance - a.relevance ||
    (b.factors?.task_alignment.score ?? 0) - (a.factors?.task_alignment.score ?? 0) ||
    (b.factors?.task_alignment.raw ?? 0) - (a.factors?.task_alignment.raw ?? 0) ||
    (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)
  );
}

async function runSignal(signal: Signal, input: SignalInput, ctx: RunContext, deps: SignalDeps): Promise<Map<string, FactorScore> | null> {
  try {
    const scores = await signal.score(input, ctx, deps);
    const invalid: string[] = [];
    scores.forEach((factor, path) => {
      const score = factor.score;
      if (!(score >= 0 && score <= 1)) invalid.push(path);
    });
    for (const path of invalid) {
      const factor = scores.get(path) as FactorScore; // collected from `scores` just above
      ctx.warnings.push(`${signal.name}: score ${factor.score} for ${path} is outside [0,1]; neutral value used`);
      scores.set(path, { raw: factor.raw, score: NEUTRAL_FACTOR[signal.name], detail: 'invalid score (neutral)' });
    }
    return scores;
  } catch (error) {
    ctx.warnings.push(`${signal.name}: signal failed (${error instanceof Error ? error.message : String(error)}); every file gets the neutral value`);
    return null;
  }
}

async function loadEmbedder(options: ScoreStageOptions, deps: ScoreStageDeps, ctx: RunContext): Promise<Embedder | null> {
  const factory = deps.embedderFactory ?? defaultEmbedderFactory;
  try {
    const embedder = await factory(ctx.config, {
      root: options.root,
      cacheDir: resolveCacheDir(options.root, ctx.config),
      reporter: ctx.reporter,
      warnings: ctx.warnings,
      ...(ctx.env ? { env: ctx.env } : {}),
    });
    if (embedder === null && !ctx.warnings.some((w) => w.includes('keyword'))) {
      ctx.warnings.push('task_alignment: no embedding model is available; using keyword alignment');
    }
    return embedder;
  } catch (error) {
    ctx.warnings.push(`task_alignment: the embedding model could not be loaded (${error instanceof Error ? error.message : String(error)}); using keyword alignment`);
    return null;
  }
}
