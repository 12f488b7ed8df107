import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { Config } from '../config/schema.js';

/**
 * Where the content-addressed caches live. `cache.dir` (or AIWG_CACHE_DIR, mapped onto it by
 * the config loader) moves all of them to a shared place so several checkouts of one
 * repository reuse summaries, token counts and embeddings; otherwise `<root>/.aiwg/rag/`.
 */
export function resolveCacheDir(root: string, config: Config): string {
  const dir = config.cache.dir;
  if (dir === undefined) return join(root, '.aiwg', 'rag');
  return isAbsolute(dir) ? dir : resolve(root, dir);
}

/** The summary cache directory: spec 003's `cache_path` under the root, or `<cache.dir>/summaries`. */
export function resolveSummaryCacheDir(root: string, config: Config): string {
  if (config.cache.dir !== undefined) return join(resolveCacheDir(root, config), 'summaries');
  const path = config.summarization.caching.cache_path;
  return isAbsolute(path) ? path : resolve(root, path);
}

/** The persistent index under a cache directory: the fact store, the ANN index, remembered piece counts. */
export function indexDirOf(cacheDir: string): string {
  return join(cacheDir, 'index');
}

/** Budget records and the JSONL log always stay with the repository they describe. */
export function resolveRecordsDir(root: string): string {
  return join(root, '.aiwg', 'rag', 'budget-records');
}

export function resolveBudgetLogPath(root: string): string {
  return join(root, '.aiwg', 'rag', 'context-budget-log.jsonl');
}

/** The event log of working-set updates and `assembled` runs: `<root>/.aiwg/rag/working-set-events.jsonl`. */
export function resolveWorkingSetEventsPath(root: string): string {
  return join(root, '.aiwg', 'rag', 'working-set-events.jsonl');
}

/** Token counts of whole files, keyed by content hash and tokenizer: `<cache dir>/tokens`. */
export function resolveTokenCacheDir(root: string, config: Config): string {
  return join(resolveCacheDir(root, config), 'tokens');
}

/** Secret-scan findings of file contents, keyed by content hash: `<cache dir>/secrets`. */
export function resolveSecretCacheDir(root: string, config: Config): string {
  return join(resolveCacheDir(root, config), 'secrets');
}

/** Where the semantic scorer keeps its vectors: `<cache dir>/embeddings`. */
export function resolveEmbeddingsCacheDir(root: string, config: Config): string {
  return join(resolveCacheDir(root, config), 'embeddings');
}

/**
 * Where embedding models are kept: `<cache.dir>` when one is configured, else a per-user cache
 * (`$XDG_CACHE_HOME/aiwg-context`, or `~/.cache/aiwg-context`), so the 40 MB default model is
 * built once per machine rather than once per repository. Models live under `<this>/models/`.
 * `env` is the environment the entry edge handed in (RunContext.env); none = no XDG_CACHE_HOME.
 */
export function resolveModelCacheBase(root: string, config: Config, env: Readonly<Record<string, string | undefined>> = {}): string {
  if (config.cache.dir !== undefined) return resolveCacheDir(root, config);
  const xdg = env.XDG_CACHE_HOME;
  return join(xdg !== undefined && xdg !== '' ? xdg : join(homedir(), '.cache'), 'aiwg-context');
}
