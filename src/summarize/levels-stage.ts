import type { Config } from '../config/schema.js';
import type { LevelsInput, LevelsStage } from '../stages.js';
import type { CandidateFile, KeyValueCache, LevelContent, RunContext, RuntimeEnv } from '../types.js';
import { resolveCacheDir, resolveSummaryCacheDir, resolveTokenCacheDir } from '../cache/cache-dir.js';
import { createDiskCache } from '../cache/disk-cache.js';
import { createLayeredCache } from '../cache/layered-cache.js';
import { createTieredCache, sharedCacheFor } from '../cache/redis-cache.js';
import { checkRedisUrl } from '../util/redis-connection.js';
import { createFileLevels, type BuildFileLevels } from './file-levels.js';
import { createSyntaxEngine, type SyntaxEngine } from './syntax/engine.js';
import { outlineBlockStore } from './syntax/block-store.js';
import { createLlmSummarizer, type FetchPort, type LlmSummarizer } from './summarizers/llm.js';
import { ConfigError } from '../errors.js';

/** Files summarised at once: overlaps cache reads and LLM calls; parsing itself is synchronous. */
export const DEFAULT_LEVELS_CONCURRENCY = 16;

export interface LevelsStageOptions {
  root: string;
  config: Config;
  /** The stage serves many runs (the warm index): its block store writes go on between them, and settle resolves at once. */
  longLived?: boolean;
}

/** Ports of the levels stage; each defaults to the real thing. */
export interface LevelsStageDeps {
  /** Summary cache; `null` turns caching off. Default: LRU over disk under resolveSummaryCacheDir. */
  summaryCache: KeyValueCache | null;
  /** Token-count cache; `null` turns it off. Default: LRU over disk under resolveTokenCacheDir. */
  tokenCache: KeyValueCache | null;
  /** Clock for cache ages, epoch ms; default: the run's ctx.nowMs. */
  now: () => number;
  syntax: SyntaxEngine;
  /** HTTP for the optional LLM summarizer. */
  fetch: FetchPort;
  /** Environment, for the LLM API key named by summarization.llm.api_key_env; default the run's ctx.env. */
  env: RuntimeEnv;
  concurrency: number;
}

/**
 * The summarize stage: every level of every file, exact token counts for ctx.tokenizer. Ports are
 * created once per stage, lazily (no grammar loads when every level is a cache hit).
 */
export function createLevelsStage(options: LevelsStageOptions, deps: Partial<LevelsStageDeps> = {}): LevelsStage {
  let build: BuildFileLevels | undefined;
  let syntax: SyntaxEngine | undefined;
  const concurrency = deps.concurrency ?? DEFAULT_LEVELS_CONCURRENCY;
  // Without an injected clock, cache ages follow the run's clock (ctx.nowMs), as every stage does.
  let runNowMs = 0;
  const now = deps.now ?? (() => runNowMs);
  // the outline blocks a run parsed are written after its levels are out (settle says when)
  let saving: Promise<void> = Promise.resolve();
  const syntaxEngine = (): SyntaxEngine => (syntax ??= deps.syntax ?? defaultSyntaxEngine(options));
  const stage = async (input: LevelsInput, ctx: RunContext): Promise<Map<string, LevelContent[]>> => {
    runNowMs = ctx.nowMs;
    if (build === undefined) build = createFileLevels(options.config, resolveLevelsPorts(options, { ...deps, syntax: syntaxEngine(), now, env: deps.env ?? ctx.env ?? {} }));
    const files = [...input.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    await build.prepare(files, ctx);
    const results: LevelContent[][] = new Array(files.length);
    let next = 0;
    let done = 0;
    const worker = async () => {
      for (let i = next++; i < files.length; i = next++) {
        const file = files[i]!;
        const focus = input.focus?.paths.has(file.path) ? input.focus.identifiers : undefined;
        results[i] = (await build!(file, input.lastModifiedMs.get(file.path) ?? file.mtimeMs, ctx, focus)).levels;
        ctx.reporter.progress('summarize', ++done, files.length);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, files.length)) }, worker));
    saving = syntaxEngine().save().catch(() => undefined);
    return new Map(files.map((f, i) => [f.path, results[i]!]));
  };
  // new content may be outlined (summarization off parses nothing)
  const newContent = (file: CandidateFile) => {
    if (options.config.summarization.enabled) syntaxEngine().expect(file.path, file.content);
  };
  return Object.assign(stage, { settle: () => (options.longLived ? Promise.resolve() : saving), newContent });
}

/** The real ports for a config, with overrides. Shared by the stage and `aiwg summarize`. */
export function resolveLevelsPorts(options: LevelsStageOptions, deps: Partial<LevelsStageDeps> = {}) {
  const { root, config } = options;
  const now = deps.now ?? (() => Date.now());
  const caching = config.summarization.caching;
  const maxAgeMs = caching.max_age_hours * 3_600_000;
  const redisUrl = config.cache.redis_url;
  if (redisUrl !== undefined) checkRedisUrl(redisUrl, 'cache.redis_url');
  // With cache.redis_url the disk stays in front and Redis behind it, shared by every machine.
  // A long-lived stage answers first and writes its entries behind (on the thread pool).
  const behind = options.longLived === true;
  const backing = (dir: string) => {
    const disk = createDiskCache({ dir, now, maxAgeMs, asyncWrites: behind });
    const far = sharedCacheFor(config, { now, maxAgeMs });
    return far === undefined ? disk : createTieredCache(disk, far);
  };
  const layered = (dir: string) => createLayeredCache(backing(dir), { now, maxAgeMs, writeBehind: behind });
  const summaryCache = deps.summaryCache !== undefined ? deps.summaryCache : caching.enabled ? layered(resolveSummaryCacheDir(root, config)) : null;
  const tokenCache = deps.tokenCache !== undefined ? deps.tokenCache : caching.enabled ? layered(resolveTokenCacheDir(root, config)) : null;
  return {
    syntax: deps.syntax ?? defaultSyntaxEngine(options),
    summaryCache: summaryCache ?? undefined,
    tokenCache: tokenCache ?? undefined,
    llm: createConfiguredLlm(config, deps),
  };
}

/**
 * The syntax engine of a config: block outlines kept under the cache directory (block-store.ts)
 * while summary caching is on.
 */
export function defaultSyntaxEngine(options: LevelsStageOptions): SyntaxEngine {
  const { root, config } = options;
  return createSyntaxEngine(config.summarization.caching.enabled ? { blocks: outlineBlockStore(resolveCacheDir(root, config)) } : {});
}

/** The LLM summarizer `summarization.llm` configures, or undefined when it is off. */
export function createConfiguredLlm(config: Config, deps: Partial<Pick<LevelsStageDeps, 'fetch' | 'env'>>): LlmSummarizer | undefined {
  const llm = config.summarization.llm;
  if (!llm.enabled) return undefined;
  if (!llm.url || !llm.model) {
    throw new ConfigError('summarization.llm', 'enabled without url and model: set summarization.llm.url and summarization.llm.model, or enabled: false');
  }
  // The entry edge hands the environment in (the CLI passes its own); none means no key.
  const env = deps.env ?? {};
  const apiKey = llm.api_key_env ? env[llm.api_key_env] : undefined;
  return createLlmSummarizer(
    { url: llm.url, model: llm.model, timeoutMs: llm.timeout_ms, apiKey },
    // The global fetch's Response is wider than the port needs.
    deps.fetch ?? (fetch as unknown as FetchPort),
  );
}
