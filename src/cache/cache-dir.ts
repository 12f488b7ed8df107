import { accessSync, constants, lstatSync, readFileSync, statSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { Config } from '../config/schema.js';

/** Spec 003's default summary cache path (`summarization.caching.cache_path`), relative to the root. */
export const DEFAULT_SUMMARY_CACHE_PATH = '.aiwg/rag/summaries/';

/** The directory the default cache takes inside a repository's common git directory. */
export const REPOSITORY_CACHE_NAME = 'aiwg-context';

/**
 * Where the content-addressed caches live (the persistent index, summaries, token counts,
 * embeddings, secret-scan findings). `cache.dir` (or AIWG_CACHE_DIR, mapped onto it by the config
 * loader) names the place; without it, a root in a git repository uses the repository's cache
 * (repositoryCacheDir), which every worktree of the repository shares, and any other root
 * `<root>/.aiwg/rag/`.
 */
export function resolveCacheDir(root: string, config: Config): string {
  const dir = config.cache.dir;
  if (dir === undefined) return repositoryCacheDir(root) ?? join(root, '.aiwg', 'rag');
  return isAbsolute(dir) ? dir : resolve(root, dir);
}

/**
 * The summary cache directory: `<cache.dir>/summaries`; without cache.dir, spec 003's
 * `cache_path` under the root when it is set to another place than its default, else
 * `summaries` in the repository's cache, else the default path under the root.
 */
export function resolveSummaryCacheDir(root: string, config: Config): string {
  if (config.cache.dir !== undefined) return join(resolveCacheDir(root, config), 'summaries');
  const path = config.summarization.caching.cache_path;
  const shared = path === DEFAULT_SUMMARY_CACHE_PATH ? repositoryCacheDir(root) : undefined;
  if (shared !== undefined) return join(shared, 'summaries');
  return isAbsolute(path) ? path : resolve(root, path);
}

/**
 * The default cache of a root inside a git repository: `<common git dir>/aiwg-context`, the
 * directory every worktree of the repository shares (`git rev-parse --git-common-dir`), so a new
 * worktree (`git worktree add`, how agents often start a task) reuses the facts, levels and
 * embeddings of every blob the repository's other worktrees have indexed: only the files whose
 * content is new to the repository cost anything. Found from the files alone (no process): the
 * root's own `.git`, a directory or the `gitdir:` file of a linked worktree, and that git
 * directory's `commondir`. Nothing above the root is looked at: a root below a repository's top
 * level keeps `<root>/.aiwg/rag/`, as does a root without `.git`, a symlinked `.git`, a `.git`
 * file that is not a linked worktree's (a submodule's), a git directory that does not look like
 * one (a HEAD file and an objects directory), or one that is not writable.
 */
export function repositoryCacheDir(root: string): string | undefined {
  const common = commonGitDir(root);
  return common === undefined ? undefined : join(common, REPOSITORY_CACHE_NAME);
}

function commonGitDir(root: string): string | undefined {
  const dotGit = join(root, '.git');
  // not followed: a symlinked .git is not the root's own
  const info = statOf(dotGit, lstatSync);
  if (info === undefined || !(info.isDirectory() || info.isFile())) return undefined;
  const gitDir = info.isDirectory() ? dotGit : gitDirOfFile(dotGit, root);
  if (gitDir === undefined || !statOf(join(gitDir, 'HEAD'))?.isFile()) return undefined;
  // a .git file is taken only from a linked worktree whose git directory names it back (git's own
  // check); any other (a submodule's, one written by hand) keeps the root's own cache
  if (info.isFile()) {
    const back = readText(join(gitDir, 'gitdir'))?.trim();
    if (back === undefined || !sameFile(resolve(gitDir, back), dotGit)) return undefined;
  }
  const linked = readText(join(gitDir, 'commondir'))?.trim();
  const common = linked ? resolve(gitDir, linked) : gitDir;
  return statOf(join(common, 'objects'))?.isDirectory() && writable(common) ? common : undefined;
}

/** The git directory a `.git` file (a linked worktree's, a submodule's) names: `gitdir: <path>`. */
function gitDirOfFile(dotGit: string, dir: string): string | undefined {
  const match = /^gitdir: (.+)$/m.exec(readText(dotGit) ?? '');
  return match ? resolve(dir, match[1]!.trim()) : undefined;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function sameFile(a: string, b: string): boolean {
  const x = statOf(a);
  const y = statOf(b);
  return x !== undefined && y !== undefined && x.dev === y.dev && x.ino === y.ino;
}

function statOf(path: string, how: typeof statSync | typeof lstatSync = statSync): Stats | undefined {
  try {
    return how(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
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
