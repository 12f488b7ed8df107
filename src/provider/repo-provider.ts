import { realpath, stat } from 'node:fs/promises';
import type { Config } from '../config/schema.js';
import { canonicalJson, loadConfig } from '../config/load.js';
import { InputError } from '../errors.js';
import type { PipelineDeps } from '../pipeline.js';
import { createRepoIndex } from '../repo-index/repo-index.js';
import { createScoreStage } from '../scoring/score-files.js';
import { defaultEmbedderFactory, type EmbedderFactory } from '../scoring/semantic-adapter.js';
import type { Tokenizer, TokenizerId } from '../tokenize/tokenizer.js';
import type { Level, ScoringMethod } from '../config/schema.js';
import { createLevelsStage, defaultSyntaxEngine } from '../summarize/levels-stage.js';
import { summarizeFile, type SummarizeFileResult } from '../summarize/summarize-file.js';
import { scoreOneFile, type ScoreOneFileResult } from '../context-score.js';
import type { Embedder, Reporter } from '../types.js';
import { CONTEXT_MODES, type ContextMode } from './modes/index.js';
import type { AgentContext, ContextProvider, ContextRequest } from './ports.js';
import { recordMetadata } from './budget-provider.js';
import { queryConfig, runContextQuery, type ContextAnswer, type ContextQuery } from './context-query.js';

export interface RepoProviderOptions {
  /** The repository to read; nothing outside it is read. */
  root: string;
  /** A resolved config; when absent it is loaded once from `<root>/.aiwg/rag/config.yaml` and `env`. */
  config?: Config;
  /** Warnings from loading `config` (LoadedConfig.warnings), listed in every record as the CLI lists them. */
  configWarnings?: string[];
  /** The caller's environment: AIWG_* for loading the config, and what each run sees (RunContext.env); none when absent (the library does not read process.env). */
  env?: Record<string, string | undefined>;
  /** Config file instead of the root's default one. */
  configFile?: string;
  /** Write the budget record and log line of every query as the CLI does. Off by default; a query may override it. */
  record?: boolean;
  /** Stage and port overrides (tests, custom embedders); they replace the warm defaults. */
  deps?: Partial<PipelineDeps>;
  modes?: readonly ContextMode[];
  reporter?: Reporter;
}

/** A query, plus whether this one call writes its record. */
export type RepoQuery = ContextQuery & { record?: boolean };

/**
 * A provider an agent loop opens once per repository and queries once per task. It keeps what
 * the engine can reuse between tasks warm in memory: the loaded config, the repository index
 * (collected files and their facts; only what changed is collected again), the tokenizers, the
 * embedding model and the summary/token caches (LRU over the disk caches). Queries run one at a
 * time, in call order; each one sees the files as they are on disk when it starts.
 */
export interface RepoProvider extends ContextProvider {
  /** Real path of the repository root. */
  readonly root: string;
  /** The base config every query starts from. */
  readonly config: Config;
  /** The context for a task, with the files in it (tier, level, tokens), the run id and the record. */
  query(query: RepoQuery): Promise<ContextAnswer>;
  /** Why `file` ranks where it does for `task`: every factor, its weight and the tier (`aiwg context-score`). */
  score(request: { file: string; task: string; scoring?: ScoringMethod }): Promise<ScoreOneFileResult>;
  /** One level of one file with its exact token count (`aiwg summarize`); the file must lie inside the root. */
  summarize(request: { file: string; level: Level; cache?: boolean }): Promise<SummarizeFileResult>;
  /** A tokenizer, created once per id for the provider's lifetime. */
  tokenizer(id?: TokenizerId): Promise<Tokenizer>;
  /** Waits for the query in progress; later queries are refused. */
  close(): Promise<void>;
}

/** Open a repository for repeated queries. A bad root or config fails here, not on the first query. */
export async function openRepoProvider(options: RepoProviderOptions): Promise<RepoProvider> {
  const root = await realDirectory(options.root);
  const { config, warnings } =
    options.config !== undefined
      ? { config: options.config, warnings: options.configWarnings ?? [] }
      : await loadConfig({ root, env: options.env ?? {}, configFile: options.configFile });
  // Stages built once: the levels stage holds the syntax engine and the in-memory cache layers,
  // the score stage a memoised embedder; a query's options reach them through ctx.config.
  // The collect stage is the warm repository index's (src/repo-index/): between queries only
  // what changed on disk is collected again, the facts of the rest stay in memory.
  const syntax = defaultSyntaxEngine({ root, config });
  const { collect: collectOverride, ...overrides } = options.deps ?? {};
  const index = createRepoIndex({
    root,
    config,
    deps: {
      score: createScoreStage({ root, config }, { embedderFactory: memoiseEmbedders(defaultEmbedderFactory) }),
      levels: createLevelsStage({ root, config }, { syntax }),
      ...overrides,
    },
  });
  const deps: PipelineDeps = collectOverride === undefined ? index.deps : { ...index.deps, collect: collectOverride };
  // One tokenizer per id for the provider's lifetime: the index's (memoised, counts remembered).
  const tokenizer = (id: TokenizerId = config.tokenizer): Promise<Tokenizer> => index.deps.createTokenizer(id);
  const modes = options.modes ?? CONTEXT_MODES;
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;

  /** One call at a time, in call order: the stages share caches and the clock of the run. */
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    if (closed) return Promise.reject(new InputError(`the provider for ${root} is closed: open a new one with openRepoProvider`));
    const run = queue.then(work);
    queue = run.catch(() => undefined);
    return run;
  };
  const query = (q: RepoQuery): Promise<ContextAnswer> => {
    const { record = options.record === true, ...rest } = q;
    return serial(() => runContextQuery(rest, { root, config, deps, modes, reporter: options.reporter, record, warnings, env: options.env }));
  };

  return {
    root,
    config,
    query,
    tokenizer,
    score: ({ file, task, scoring }) =>
      serial(() =>
        scoreOneFile({ root, task, file, config: queryConfig(config, { scoring }), reporter: options.reporter }, { collect: deps.collect, score: deps.score, now: deps.now }),
      ),
    summarize: ({ file, level, cache }) =>
      serial(async () => {
        const useCache = cache ?? config.summarization.caching.enabled;
        // As `aiwg summarize` does: the cache directories ignore themselves in git before the first write.
        if (useCache) await deps.ensureOwnDirs(root, config);
        return summarizeFile({ root, file, config, level, useCache }, { syntax });
      }),
    async buildContext(request: ContextRequest): Promise<AgentContext> {
      const answer = await query(request);
      return { mode: answer.mode, context: answer.context, metadata: recordMetadata(answer.record, answer.mode) };
    },
    async close(): Promise<void> {
      closed = true;
      await queue;
      await index.close();
    },
  };
}

/**
 * One embedder per embedding config for the provider's lifetime. A factory that returns null
 * (no model; it notes why in the run's warnings) is asked again next time, so every run that
 * falls back to keywords still says why.
 */
export function memoiseEmbedders(factory: EmbedderFactory): EmbedderFactory {
  const made = new Map<string, Promise<Embedder | null>>();
  return async (config, options) => {
    const key = canonicalJson(config.relevance_scoring.embedding);
    const known = made.get(key);
    if (known !== undefined) {
      const embedder = await known.catch(() => null);
      if (embedder !== null) return embedder;
    }
    const next = factory(config, options);
    made.set(key, next);
    const embedder = await next.catch((error: unknown) => {
      made.delete(key);
      throw error;
    });
    if (embedder === null) made.delete(key);
    return embedder;
  };
}

async function realDirectory(path: string): Promise<string> {
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    throw new InputError(`root ${path}: no such directory; pass the repository to read`);
  }
  if (!(await stat(real)).isDirectory()) throw new InputError(`root ${path}: not a directory; pass the repository folder, not a file`);
  return real;
}
