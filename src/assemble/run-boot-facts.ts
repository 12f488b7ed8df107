import type { Config } from '../config/schema.js';
import { createHash } from 'node:crypto';
import { canonicalJson } from '../config/load.js';
import { join } from 'node:path';
import { REPOSITORY_CACHE_NAME, repositoryCacheDir, resolveSummaryCacheDir } from '../cache/cache-dir.js';
import { TOOL_VERSION } from '../version.js';
import { displayPath } from '../util/display-path.js';
import type { BootFacts } from './boot-header.js';

/** Hex digits of the rules checksum the header shows. */
export const HEADER_CHECKSUM_CHARS = 12;

/**
 * The boot header rows of a task-driven run (context-budget, the provider): the constitution is
 * the engine's rules (its version) under this config (`rulesChecksum`), the session is the run
 * id, the output sink is where the caller writes the context, and the cache hints name the
 * content-addressed caches a follow-up run reuses. Nothing machine-local is printed (a cache
 * outside the root is named by its config key), so the same tree, task and settings give the same
 * header wherever the caches live. Paths are computed; only the root's `.git` is looked at.
 */
export function runBootFacts(input: { root: string; config: Config; runId: string; outputSink?: string }): BootFacts {
  const { root, config } = input;
  const cacheHints: string[] = [];
  if (config.summarization.caching.enabled) cacheHints.push(`${cacheDisplay(root, config)} (summaries by content hash)`);
  return {
    constitution: { path: 'aiwg-context', version: TOOL_VERSION, checksum: rulesChecksum(config) },
    session: input.runId,
    ...(input.outputSink !== undefined ? { outputSink: input.outputSink } : {}),
    cacheHints,
  };
}

/**
 * sha256 of the settings that decide a context, shortened: the config without `cache` and
 * `shared_context`, which say where things are stored (paths, Redis URLs), not what is chosen.
 */
export function rulesChecksum(config: Config): string {
  const { cache: _cache, shared_context: _shared, ...rules } = config;
  return createHash('sha256').update(canonicalJson(rules)).digest('hex').slice(0, HEADER_CHECKSUM_CHARS);
}

/**
 * The summary cache as the header names it: root-relative when inside the root, else by its config
 * key; the repository's cache (cache-dir.ts) always as `<git common dir>/aiwg-context/summaries/`,
 * which every worktree of the repository shares, so the main worktree and a linked one print the
 * same header.
 */
function cacheDisplay(root: string, config: Config): string {
  const dir = resolveSummaryCacheDir(root, config);
  const shared = config.cache.dir === undefined ? repositoryCacheDir(root) : undefined;
  if (shared !== undefined && dir === join(shared, 'summaries')) return `<git common dir>/${REPOSITORY_CACHE_NAME}/summaries/`;
  const shown = displayPath(root, dir);
  if (shown.startsWith('/') || /^[A-Za-z]:/.test(shown)) return config.cache.dir !== undefined ? '<cache.dir>/summaries/' : '<summarization.caching.cache_path>/';
  return `${shown}/`;
}
