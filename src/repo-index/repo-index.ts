import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { isAbsolute, resolve, sep } from 'node:path';
import type { Config } from '../config/schema.js';
import type { CollectStage, HistoryMessage, RenderFormat } from '../stages.js';
import type { CollectResult, Reporter } from '../types.js';
import { resolveCacheDir } from '../cache/cache-dir.js';
import { collectKey, createCollectStage } from '../collect/collect-files.js';
import { factStorePath, openFactStore, type FactStore } from '../facts/fact-store.js';
import { defaultDeps, runContextBudget, runPieceCounts, runPieceCountsPath, type PipelineDeps, type PipelineResult } from '../pipeline.js';
import type { PieceCounts } from '../tokenize/piece-counts.js';
import { createChars4Tokenizer, memoiseTokenizers } from '../tokenize/tokenizer.js';
import { silentReporter } from '../util/reporter.js';
import { lowerBound } from '../util/sorted.js';
import { changedSince, takeSnapshot, type GitMetaPaths, type TreeSnapshot } from './tree-snapshot.js';
import { createTreeWatch, type TreeWatch } from './tree-watch.js';

export interface RepoIndexOptions {
  /** Repository root; nothing outside it is read. */
  root: string;
  /** The config the index is built for; a query may pass another (budget, mode) for the same root. */
  config: Config;
  /** Stage and port overrides (tests, custom embedders); the collect stage is the index's own. */
  deps?: Partial<Omit<PipelineDeps, 'collect'>>;
  /** Wall clock for the racy-stat guard, epoch ms. */
  now?: () => number;
}

export interface RepoIndexQuery {
  task: string;
  /** Another config for this query (same root): e.g. a provider mode's tier shares or budget. */
  config?: Config;
  history?: HistoryMessage[];
  format?: RenderFormat;
  reporter?: Reporter;
}

/**
 * A warm index of one repository for a long-lived process (an MCP server, an agent loop's
 * provider): created once per root, queried per task. The fact store is loaded once and kept
 * in memory; the embedding model, the summary caches' LRU layers, the tokenizer (with its
 * remembered counts) and the collected files stay warm between queries. Each query first checks, by stat alone, whether any collected
 * file, directory or git's index/HEAD changed since the last one; if so it collects again
 * (reading only new or changed blobs), so an edit between queries is in the next answer,
 * which is the same record a cold run on that tree would give.
 */
export interface RepoIndex {
  readonly root: string;
  /** The pipeline deps with the warm stages: pass them to runContextBudget or a provider. */
  readonly deps: PipelineDeps;
  /** Collect now (only if something changed since the last collect) and return the result. */
  refresh(config?: Config): Promise<CollectResult>;
  query(query: RepoIndexQuery): Promise<PipelineResult>;
  /** Persist what the index learnt (it is also saved after every collect that learnt something). */
  close(): Promise<void>;
}

export function createRepoIndex(options: RepoIndexOptions): RepoIndex {
  const root = isAbsolute(options.root) ? options.root : resolve(options.root);
  const now = options.now ?? (() => Date.now());
  const stores = new Map<string, Promise<FactStore>>();
  const storeFor = (rootReal: string, config: Config) => {
    const path = factStorePath(resolveCacheDir(rootReal, config));
    let store = stores.get(path);
    if (!store) stores.set(path, (store = openFactStore(path)));
    return store;
  };
  const watch = createTreeWatch();
  const collect = warmCollect(createCollectStage({ factStore: storeFor, remember: true }), now, watch);
  // The tokenizer too stays warm: its table loads once, and its remembered counts, opened once,
  // serve every query and take in what each one counts (saved in batches: batchedSaves).
  const createTokenizer = memoiseTokenizers(options.deps?.createTokenizer);
  const pieceStores = new Map<string, Promise<BatchedPieceCounts | undefined>>();
  const pieceCounts = (rootOfRun: string, config: Config) => {
    const path = runPieceCountsPath(rootOfRun, config);
    if (path === undefined) return Promise.resolve(undefined);
    let store = pieceStores.get(path);
    if (!store) pieceStores.set(path, (store = runPieceCounts(rootOfRun, config).then((opened) => opened && batchedSaves(opened))));
    return store;
  };
  const deps: PipelineDeps = { ...defaultDeps(options.config, root, { longLived: true }), pieceCounts, ...options.deps, createTokenizer, collect };
  return {
    root,
    deps,
    refresh: (config = options.config) =>
      collect({ root }, { config, tokenizer: createChars4Tokenizer(), reporter: silentReporter(), nowMs: now(), warnings: [] }),
    query: (query) =>
      runContextBudget(
        { task: query.task, root, config: query.config ?? options.config, history: query.history, format: query.format, reporter: query.reporter },
        deps,
      ),
    async close() {
      watch.close();
      for (const store of stores.values()) await (await store).save();
      // the counts are a cache: one that cannot be written now is counted again later
      for (const store of pieceStores.values()) await (await store)?.flush().catch(() => undefined);
    },
  };
}

/**
 * Remembered piece counts waiting in a warm index before a query's save writes them: a save
 * rewrites the whole file (~20 ms of a babel query), while a query learns a few hundred pieces.
 */
export const BATCHED_SAVE_PIECES = 4_096;

type BatchedPieceCounts = PieceCounts & { flush(): Promise<void> };

/** A piece-count store whose save() writes only once BATCHED_SAVE_PIECES are waiting; flush() writes what is. */
export function batchedSaves(store: PieceCounts): BatchedPieceCounts {
  return {
    get remembered() {
      return store.remembered;
    },
    get learnt() {
      return store.learnt;
    },
    get: (piece) => store.get(piece),
    set: (piece, count) => store.set(piece, count),
    save: () => (store.learnt >= BATCHED_SAVE_PIECES ? store.save() : Promise.resolve()),
    flush: () => store.save(),
  };
}

/**
 * The collect stage of the warm index: the last result is reused while nothing changed in the
 * tree and the collect config is the same; otherwise the incremental collect runs, told the
 * paths the directory watchers (tree-watch.ts) named since the last collect began, so it looks
 * at those alone, or told nothing when a change cannot be pinned to entries. Where watching is
 * not available, the same stat snapshot is "nothing changed" (one taken while files were still
 * being written, racy, always collects again) and any difference collects everything.
 */
function warmCollect(inner: CollectStage, now: () => number, watch: TreeWatch): CollectStage {
  let last: { key: string; rootReal: string; result: CollectResult; snapshot: TreeSnapshot; git: GitMetaPaths | undefined } | undefined;
  /**
   * What changed since the last collect: nothing (an empty set), the root-relative paths the
   * watchers named, or 'all'. Where watching is not available, the same stat snapshot is
   * nothing and any difference is 'all'.
   */
  const changesSince = async (held: NonNullable<typeof last>): Promise<ReadonlySet<string> | 'all'> => {
    if (!watch.usable) return changedSince(held.snapshot, held.git) ? 'all' : new Set();
    const changes = await watch.changes();
    if (changes === 'all') return 'all';
    const inside = `${held.rootReal}${sep}`;
    const paths = new Set<string>();
    for (const abs of changes) {
      // an event on the root's own entry, or outside it: not a change of one file
      if (!abs.startsWith(inside)) return 'all';
      paths.add(abs.slice(inside.length).split(sep).join('/'));
    }
    return paths;
  };
  return async (input, ctx) => {
    const key = collectKey(input.root, ctx.config);
    const changes = last && last.key === key ? await changesSince(last) : 'all';
    if (changes !== 'all' && changes.size === 0) return { ...last!.result, warnings: [...last!.result.warnings] };
    // events from here on are changes this collect may not have seen
    watch.markClean();
    // the collect stage remembers its last collect: told the changed paths, it reads those alone
    const result = await inner(changes === 'all' ? input : { ...input, changed: changes }, ctx);
    // the stage collected the changed paths alone (it kept the other candidates), and none of
    // them came or went: the same directories, already watched
    if (last && changes !== 'all' && keptCandidates(last.result, result, changes) && [...changes].every((path) => listedIn(last!.result, path) === listedIn(result, path))) {
      last = { ...last, result };
      return { ...result, warnings: [...result.warnings] };
    }
    const rootReal = realpathSync.native(input.root);
    const git = result.git.isRepo ? gitMetaPaths(rootReal) : undefined;
    // the directories first: while the watchers already cover them, no stat of the tree is needed
    let snapshot = takeSnapshot(rootReal, result, git, now(), { stats: false });
    const added = watch.watchDirectories(snapshot.watch);
    if (added > 0 || !watch.usable) {
      snapshot = takeSnapshot(rootReal, result, git, now());
      // directories watched only from now on: compare their stats once for what changed before
      if (added > 0 && changedSince(snapshot, git)) watch.markDirty();
    }
    last = { key, rootReal, result, snapshot, git };
    return { ...result, warnings: [...result.warnings] };
  };
}

/**
 * Whether a collect told which paths changed looked at those alone: it keeps every other
 * candidate object, where a full collect makes every one anew (the first unchanged candidate tells).
 */
function keptCandidates(before: CollectResult, after: CollectResult, changed: ReadonlySet<string>): boolean {
  const kept = after.files.find((f) => !changed.has(f.path));
  return kept !== undefined && sortedFind(before.files, kept.path) === kept;
}

/** Whether a collect result lists `path` as a candidate or an exclusion (both are sorted by path). */
function listedIn(result: CollectResult, path: string): boolean {
  return sortedFind(result.files, path) !== undefined || sortedFind(result.excluded, path) !== undefined;
}

/** The entry at `path` of a list sorted by path. */
function sortedFind<T extends { path: string }>(entries: readonly T[], path: string): T | undefined {
  const at = entries[lowerBound(entries, path, (entry) => entry.path)];
  return at?.path === path ? at : undefined;
}

function gitMetaPaths(rootReal: string): GitMetaPaths | undefined {
  try {
    const out = execFileSync('git', ['rev-parse', '--absolute-git-dir', '--git-common-dir'], { cwd: rootReal, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const [gitDir, common] = out.trim().split('\n');
    if (!gitDir || !common) return undefined;
    return { gitDir, commonDir: isAbsolute(common) ? common : resolve(rootReal, common) };
  } catch {
    return undefined;
  }
}
