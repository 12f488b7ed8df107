import { relative, sep } from 'node:path';
import type { CollectStage } from '../stages.js';
import type { CandidateFile, CollectResult, Config, ExcludedFile, GitFacts, KeyValueCache } from '../types.js';
import { InputError } from '../errors.js';
import { resolveCacheDir, resolveSummaryCacheDir } from '../cache/cache-dir.js';
import { defaultCollectPorts, type CollectPorts } from './collect-ports.js';
import { withGitAhead, type GitAhead } from './git-ahead.js';
import { execGit, GitCommandError } from './git-port.js';
import { loadCoChange } from './co-change.js';
import { keepHeapNearLive, MANY_NEW_BLOBS } from '../util/heap-growth.js';
import { cachedCommitTimes, gitFacts, lastCommitTimes, listRepository, locateRepository, parseStatus, type GitListing, type GitLocation } from './git-facts.js';
import { readIndexed, readKnown, type IndexedReadOptions } from './indexed-read.js';
import { collectFactKey, type FactStore } from '../facts/fact-store.js';
import { createPathFilter, type PathFilter } from './path-filter.js';
import { mapLimit, readCandidate, type ReadOutcome } from './read-candidate.js';
import { walkTree } from './walk-tree.js';
import { underRoot } from '../util/root-path.js';

export type { CollectPorts } from './collect-ports.js';

/**
 * The collect stage: which files of the root are candidates, their content and hash, and the
 * git facts (last commit time per path, dirty paths, HEAD, shallowness) in the same pass.
 *
 * In a git work tree the candidates are `git ls-files --cached` plus untracked files that no
 * .gitignore (nested ones included) ignores, relative to the root even when the root is a
 * subdirectory of the repository. Elsewhere the tree is walked (walk-tree.ts) and a warning
 * says git signals are off. Every skipped file gets a reason in `excluded`; files inside an
 * excluded directory are reported once, as the directory with a file count.
 * Output is sorted by path so the same tree gives the same bytes.
 */
export function createCollectStage(ports: Partial<CollectPorts> & CollectStageOptions = {}): CollectStage {
  // `secretCache`: findings of the secret scan by content hash (security/secret-cache.ts); the
  // pipeline passes the disk-backed one, so a warm run never rescans; none = scan every file.
  const { fs, concurrency, factKinds } = { ...defaultCollectPorts(), ...ports };
  // An injected file system (an in-memory fake) gets no disk index unless one is injected too.
  const factStore = ports.factStore ?? (ports.fs ? async () => null : defaultCollectPorts().factStore);
  // What the last collect found (ports.remember): the next one, told which paths changed, starts from it.
  let memory: CollectMemory | undefined;
  let saveTimer: NodeJS.Timeout | undefined;
  /** Save the store soon, off the answer's path: the next change within the delay moves the save on. */
  const saveLater = (store: FactStore, warn: (message: string) => void) => {
    clearTimeout(saveTimer);
    saveTimer = setTimeout(() => {
      store.save().catch((error: unknown) => warn(saveFailure(store, error)));
    }, DEFERRED_SAVE_MS);
    saveTimer.unref();
  };
  return async ({ root, changed }, ctx) => {
    // git runs in the environment the entry edge handed in (RunContext.env); its first commands
    // may have been started before the engine loaded (git-ahead.ts)
    const git = withGitAhead(ports.git ?? execGit(ctx.env), ports.gitAhead);
    const rootReal = await fs.realpath(root).catch((error: unknown) => {
      throw new InputError(`root ${root}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}); pass an existing directory`, { cause: error });
    });
    const filter = createPathFilter({
      ignore: ctx.config.collect.ignore,
      include: ctx.config.collect.include,
      ownDirs: ownDirectories(rootReal, ctx.config),
      rules: { includeSecrets: ctx.config.collect.include_secrets },
    });
    /** Why the path rules exclude a path (an excluded directory above it, or its own name), if they do. */
    const pathCheck = (path: string) => filter.excludedAncestor(path)?.reason ?? filter.fileReason(path);
    let newBlobs = 0;
    /** A blob read and analysed for the first time: the run is told (the score stage embeds it ahead). */
    const onNewBlob = (file: CandidateFile) => {
      if (++newBlobs === MANY_NEW_BLOBS) keepHeapNearLive();
      ctx.onNewContent?.(file);
    };
    const key = collectKey(rootReal, ctx.config);
    // the warm index says which paths changed since the last collect: only those are looked at again
    if (changed !== undefined && memory?.key === key) {
      const result = await collectChanged(memory, changed);
      if (result !== undefined) return result;
    }
    memory = undefined;
    const warnings: string[] = [];
    const excluded: ExcludedFile[] = [];

    // the fact store loads (one read, one deserialize) while git lists the files
    const opening = factStore(rootReal, ctx.config);
    opening.catch(() => undefined);
    const located = await locateRepository(git, rootReal);
    const { location } = located;
    let warning = located.warning;
    let gitListed = false;
    // While git status runs (0.1-0.2 s for vite's 2.8k files in a fresh worktree), the tracked
    // files whose blobs (by git's index) the store knows are answered from it; what status then
    // names as changed, and every blob that needs a read, is read after it. A warm run is all
    // such lookups.
    let early: Map<string, Promise<ReadOutcome | undefined>> | undefined;
    let earlyStarted: Promise<typeof early> | undefined;
    const onStaged = (staged: { tracked: ReadonlySet<string>; blobs: ReadonlyMap<string, string> }) => {
      aheadOfReads?.(staged);
      earlyStarted = opening
        .then((store) => {
          const known = store && indexedOptions(store);
          if (!known || gitListed) return undefined;
          const paths = dropExcludedByPath([...staged.tracked], filter, []);
          return startReads(paths, (path) => readKnown(path, staged.blobs.get(path)!, known));
        })
        .catch(() => undefined);
    };
    // A tracked blob the store has no facts for is new content: the run gets ready for it now,
    // while git status runs (in a fresh worktree it hashes every file again: 0.1-0.2 s here). The
    // check looks only while the listing is not done (the reads find new blobs themselves after),
    // a slice at a time, so a warm run, where it finds nothing, pays only for git's wait.
    const aheadOfReads = ctx.onNewContentAhead
      ? (staged: { blobs: ReadonlyMap<string, string> }) => {
          opening
            .then(async (opened) => {
              if (!opened) return;
              const { include_secrets: includeSecrets, max_file_bytes: maxBytes } = ctx.config.collect;
              let n = 0;
              for (const [path, blob] of staged.blobs) {
                if (++n % AHEAD_SLICE === 0) await new Promise((next) => setImmediate(next));
                if (gitListed) return;
                // a blob collect has analysed (its other facts are missing only after a fact kind changed)
                if (opened.getCollect(collectFactKey(blob, path.slice(path.lastIndexOf('/') + 1), includeSecrets)) !== undefined) continue;
                // only what collect will read: files the path rules exclude, or too large to read, never get facts
                if (pathCheck(path) !== undefined) continue;
                const info = await fs.lstat(underRoot(rootReal, path)).catch(() => undefined);
                if (info?.kind === 'file' && info.size <= maxBytes) return ctx.onNewContentAhead?.();
              }
            })
            .catch(() => undefined);
        }
      : undefined;
    // A repository git can locate but not list (permissions, corruption) is walked instead.
    const listing = location
      ? await listRepository(git, rootReal, location, onStaged).catch((error: unknown) => {
          if (!(error instanceof GitCommandError)) throw error;
          warning = `git could not list the files (${error.stderr.trim().split('\n')[0] ?? ''}): recency and history signals are off`;
          return undefined;
        })
      : undefined;
    gitListed = true;
    // a store that opened after git status answered starts no early reads: the reads below do it all
    early = await earlyStarted;
    const store = await opening;
    if (store?.corrupt !== undefined) warnings.push(`index ${store.path} was ignored (${store.corrupt}): every file is read again and the index rebuilt`);
    let listed: string[];
    let facts: Promise<GitFacts>;
    if (location && listing) {
      listed = dropExcludedByPath([...new Set([...listing.tracked, ...listing.untracked])], filter, excluded);
      const wanted = new Set(listed.filter((p) => listing.tracked.has(p) && !listing.added.has(p)));
      if (location.isShallow) warnings.push('shallow clone: git history is partial, so commit times and history signals cover only the fetched commits');
      const head = location.head;
      const times = head === undefined
        ? Promise.resolve(new Map<string, number>())
        : store
          ? cachedCommitTimes(git, rootReal, { prefix: location.prefix, head, wanted, cache: store })
          : lastCommitTimes(git, rootReal, { prefix: location.prefix, wanted });
      facts = times
        .catch((error: unknown) => {
          if (!(error instanceof GitCommandError)) throw error;
          warnings.push(`git log failed (${error.stderr.trim().split('\n')[0] ?? ''}): recency signal is off`);
          return new Map<string, number>();
        })
        .then((times) => gitFacts(listing, location, times));
      const coChange = ctx.config.relevance_scoring.co_change;
      if (head !== undefined && coChange.share > 0) {
        const cacheDir = ports.fs ? undefined : resolveCacheDir(rootReal, ctx.config);
        const table = loadCoChange(git, rootReal, { prefix: location.prefix, head, commits: coChange.commits, maxFiles: coChange.max_files_per_commit, ...(cacheDir ? { cacheDir } : {}) })
          .catch((error: unknown) => {
            if (!(error instanceof GitCommandError)) throw error;
            warnings.push(`git log failed (${error.stderr.trim().split('\n')[0] ?? ''}): co-change signal is off`);
            return undefined;
          });
        facts = Promise.all([facts, table]).then(([f, t]) => (t ? { ...f, coChange: t } : f));
      }
    } else {
      warnings.push(warning ?? 'not a git repository: recency and history signals are off');
      const walked = await walkTree(fs, rootReal, filter);
      // one by one: a spread of every excluded path overflows the stack past ~120k of them
      for (const entry of walked.excluded) excluded.push(entry);
      warnings.push(...walked.warnings);
      listed = dropExcludedByPath(walked.paths, filter, excluded);
      facts = Promise.resolve({ isRepo: false, lastCommitMs: new Map(), dirty: new Set() });
    }

    const read = reader(store, cleanBlobOf(listing));
    const readListed = async (path: string) => (listing && !listing.dirty.has(path) ? await early?.get(path) : undefined) ?? read(path);
    const [outcomes, gitResult] = await Promise.all([readAll(listed, readListed), facts]);
    // what a later collect that starts from this one says again (not this one's save failure)
    const readWarnings = [...warnings];
    if (store) {
      store.retainStats(rootReal, new Set(listed));
      await store.save().catch((error: unknown) => {
        warnings.push(saveFailure(store, error));
      });
    }
    const byPathOutcome = new Map(listed.map((path, i) => [path, outcomes[i]!]));
    if (ports.remember && store && location && listing) {
      memory = { key, rootReal, store, location, listing, listed, pathExcluded: excluded, warnings: readWarnings, outcomes: byPathOutcome, git: gitResult };
    }
    return assemble(byPathOutcome, excluded, warnings, gitResult);

    /**
     * How one listed path is read: through the fact store when there is one (a tracked file the
     * working tree has not changed is known by `blobOf`, git's blob id), else in full.
     */
    function reader(store: FactStore | null, blobOf: (path: string) => string | undefined): (path: string) => Promise<ReadOutcome> {
      const indexed = store ? indexedOptions(store) : undefined;
      const plain = readOptions();
      return (path) => (indexed ? readIndexed(path, blobOf(path), indexed) : readCandidate(path, plain));
    }

    function readOptions() {
      const includeSecrets = ctx.config.collect.include_secrets;
      const secretCache = includeSecrets ? null : (ports.secretCache ?? null);
      return { fs, rootReal, maxBytes: ctx.config.collect.max_file_bytes, rules: { includeSecrets }, pathCheck, secretCache };
    }

    /** Reads through the fact store (undefined without a synchronous read for lazy content). */
    function indexedOptions(store: FactStore): IndexedReadOptions | undefined {
      const base = readOptions();
      const readFileSync = fs.readFileSync?.bind(fs);
      if (!readFileSync) return undefined;
      // With the fact store, a blob's findings live in its collect fact: the secret cache is read
      // there but not written (a cold run would write one file per blob, ~0.3 ms each here).
      const lstatSync = fs.lstatSync?.bind(fs);
      return { ...base, secretCache: readOnly(base.secretCache), store, kinds: factKinds, readFileSync, ...(lstatSync ? { lstatSync } : {}), nowMs: ctx.nowMs, onNewBlob };
    }

    /** Start answering `paths` now (readAll's pace, no progress): each path's outcome, to be taken or dropped. */
    function startReads(paths: readonly string[], read: (path: string) => Promise<ReadOutcome | undefined>): Map<string, Promise<ReadOutcome | undefined>> {
      const outcomes = new Map<string, Promise<ReadOutcome | undefined>>();
      const settle = new Map<string, (outcome: ReadOutcome | undefined) => void>();
      for (const path of paths) outcomes.set(path, new Promise((resolve) => settle.set(path, resolve)));
      // an early answer that fails is no answer: the path is read after git status
      void readAll(paths, (path) => read(path).catch(() => undefined).then((outcome) => (settle.get(path)!(outcome), outcome)), false);
      return outcomes;
    }

    /** Read every path, `concurrency` at a time, reporting progress (unless told not to). */
    function readAll<T>(paths: readonly string[], read: (path: string) => Promise<T>, report = true): Promise<T[]> {
      let done = 0;
      // Reads are synchronous behind the async port, and a new blob is analysed at once; after
      // TURN_MS of that all readers wait one turn of the event loop, so git (commit times, running
      // meanwhile as a chain of commands) gets its pipe drained and its next command started
      // instead of stalling until the last file is read.
      let turn: Promise<void> | undefined;
      let turnAt = performance.now();
      return mapLimit(paths, concurrency, async (path) => {
        if (performance.now() - turnAt >= TURN_MS) {
          turn = new Promise((next) => setImmediate(next));
          turnAt = performance.now();
        }
        await turn;
        const outcome = await read(path);
        if (report) ctx.reporter.progress('collect', ++done, paths.length);
        return outcome;
      });
    }

    /** The result of a collect: candidates and exclusions sorted by path, and the redaction warning. */
    function assemble(outcomes: ReadonlyMap<string, ReadOutcome>, pathExcluded: readonly ExcludedFile[], baseWarnings: readonly string[], gitResult: GitFacts): CollectResult {
      const files: CandidateFile[] = [];
      const excludedAll = [...pathExcluded];
      const warningsAll = [...baseWarnings];
      const redacted: string[] = [];
      for (const outcome of outcomes.values()) {
        if ('file' in outcome) {
          files.push(outcome.file);
          if (outcome.redacted) redacted.push(`${outcome.file.path} (${outcome.redacted.join(', ')})`);
        } else excludedAll.push(outcome.excluded);
      }
      if (redacted.length > 0) {
        redacted.sort();
        const shown = redacted.slice(0, 5).join('; ');
        warningsAll.push(`credentials redacted in ${redacted.length} file${redacted.length === 1 ? '' : 's'}: ${shown}${redacted.length > 5 ? '; ...' : ''}; set collect.include_secrets: true to keep them`);
      }
      ctx.reporter.debug(`collect: ${files.length} candidates, ${excludedAll.length} excluded`);
      // the dirty paths the collect looked at: what the path rules exclude is never scored
      const dirty = new Set([...gitResult.dirty].filter((path) => outcomes.has(path)));
      return { root, files: files.sort(byPath), excluded: excludedAll.sort(byPath), git: { ...gitResult, dirty }, warnings: warningsAll };
    }

    /**
     * The collect after `held`, when only `changedPaths` (root-relative) may differ and git's
     * index, HEAD and refs did not change: git is asked about those paths alone, only they are
     * read again, and every other path keeps its outcome (the same candidate object). Undefined
     * when the change is not one of files (a directory came or went): then everything is collected.
     */
    async function collectChanged(held: CollectMemory, changedPaths: ReadonlySet<string>): Promise<CollectResult | undefined> {
      if (changedPaths.size > MAX_CHANGED_PATHS) return undefined;
      const paths = [...changedPaths].filter((p) => p !== '' && !p.split('/').some((part) => part === '' || part === '.' || part === '..'));
      if (paths.length !== changedPaths.size) return undefined;
      // a file that changes what git ignores or how it compares content changes other paths' status too
      if (paths.some((p) => GIT_RULE_FILES.has(p.slice(p.lastIndexOf('/') + 1)))) return undefined;
      const previous = held.listing;
      for (const path of paths) {
        const info = await fs.lstat(underRoot(rootReal, path)).catch(() => undefined);
        if (info?.kind === 'dir') return undefined;
        // gone, and not a path the last collect knew: it may have been a directory
        if (info === undefined && !held.outcomes.has(path) && !previous.tracked.has(path) && !previous.untracked.has(path)) {
          const inside = `${path}/`;
          for (const known of held.outcomes.keys()) if (known.startsWith(inside)) return undefined;
          for (const known of previous.tracked) if (known.startsWith(inside)) return undefined;
        }
      }
      const listing: GitListing = { ...previous, dirty: new Set(previous.dirty), added: new Set(previous.added), untracked: new Set(previous.untracked) };
      if (paths.length > 0) {
        const status = await git.run(['--literal-pathspecs', 'status', '--porcelain', '-z', '--untracked-files=all', '--no-renames', '--', ...paths], rootReal).catch((error: unknown) => {
          if (error instanceof GitCommandError) return undefined;
          throw error;
        });
        if (status === undefined) return undefined;
        for (const path of paths) {
          listing.dirty.delete(path);
          listing.added.delete(path);
          listing.untracked.delete(path);
        }
        const now = parseStatus(status, held.location.prefix);
        for (const path of now.dirty) listing.dirty.add(path);
        for (const path of now.added) listing.added.add(path);
        for (const path of now.untracked) listing.untracked.add(path);
      }
      // the listed paths change only when an untracked file came or went
      const sameUntracked = listing.untracked.size === previous.untracked.size && paths.every((p) => listing.untracked.has(p) === previous.untracked.has(p));
      let listed = held.listed;
      let pathExcluded = held.pathExcluded;
      if (!sameUntracked) {
        const excludedNow: ExcludedFile[] = [];
        listed = dropExcludedByPath([...new Set([...listing.tracked, ...listing.untracked])], filter, excludedNow);
        pathExcluded = excludedNow;
      }
      const read = reader(held.store, cleanBlobOf(listing));
      const again = sameUntracked ? paths.filter((path) => held.outcomes.has(path)) : listed.filter((path) => changedPaths.has(path) || !held.outcomes.has(path));
      const readNow = await readAll(again, read);
      let outcomes: Map<string, ReadOutcome>;
      if (sameUntracked) {
        outcomes = new Map(held.outcomes);
        again.forEach((path, i) => outcomes.set(path, readNow[i]!));
      } else {
        const fresh = new Map(again.map((path, i) => [path, readNow[i]!]));
        outcomes = new Map(listed.map((path) => [path, fresh.get(path) ?? held.outcomes.get(path)!]));
      }
      if (!sameUntracked) held.store.retainStats(rootReal, new Set(listed));
      const warningsNow = [...held.warnings];
      if (held.store.dirty) saveLater(held.store, (message) => (held.saveWarning = message));
      if (held.saveWarning !== undefined) {
        warningsNow.push(held.saveWarning);
        held.saveWarning = undefined;
      }
      const gitResult: GitFacts = { ...held.git, dirty: listing.dirty };
      memory = { ...held, listing, listed, pathExcluded, outcomes, git: gitResult };
      return assemble(outcomes, pathExcluded, warningsNow, gitResult);
    }
  };
}

export interface CollectStageOptions {
  secretCache?: KeyValueCache | null;
  /** git commands started before the engine loaded (git-ahead.ts): a collect in their directory takes their output. */
  gitAhead?: GitAhead;
  /**
   * Keep what the last collect found, for a long-lived caller (the warm index): a collect told
   * which paths changed (CollectInput.changed) then looks at those alone, and its fact store is
   * saved a moment after the answer instead of before it (and by the caller on close).
   */
  remember?: boolean;
}

/** What one collect found, kept for the next (CollectStageOptions.remember). */
interface CollectMemory {
  key: string;
  rootReal: string;
  store: FactStore;
  location: GitLocation;
  listing: GitListing;
  /** Paths read (the listing after the path rules), and what each gave. */
  listed: string[];
  outcomes: Map<string, ReadOutcome>;
  /** Paths the path rules excluded (before any read). */
  pathExcluded: ExcludedFile[];
  /** Warnings before the reads (store, shallow clone, git). */
  warnings: string[];
  git: GitFacts;
  /** A deferred save that failed: said by the next collect. */
  saveWarning?: string;
}

/**
 * Everything a collect's result depends on besides the tree: two collects with the same key
 * over an unchanged tree give the same result.
 */
export function collectKey(root: string, config: Config): string {
  return JSON.stringify([root, config.collect, config.cache, config.summarization.caching.cache_path, config.relevance_scoring.co_change]);
}

/** Files in the tree that change git's view of other paths: a change to one is a change of everything. */
const GIT_RULE_FILES = new Set(['.gitignore', '.gitattributes', '.gitmodules']);
/** Beyond this many changed paths a collect starts over (one git call names them all). */
const MAX_CHANGED_PATHS = 1000;
/** A remembering stage saves its fact store this long after a collect that learnt something. */
const DEFERRED_SAVE_MS = 1000;

function saveFailure(store: FactStore, error: unknown): string {
  return `index ${store.path} could not be saved (${(error as NodeJS.ErrnoException).code ?? String(error)}): the next run reads changed files again`;
}

/** Tracked files the new-content check looks at between two turns of the event loop. */
const AHEAD_SLICE = 1024;

/** git's index knows the blob of a tracked file the working tree has not changed. */
function cleanBlobOf(listing: GitListing | undefined): (path: string) => string | undefined {
  return (path) => (listing && !listing.dirty.has(path) ? listing.blobs.get(path) : undefined);
}

/**
 * Apply the path-only rules before any file is opened. Files under an excluded directory are
 * counted into one entry for that directory, so a tracked vendor/ tree costs one line.
 */
function dropExcludedByPath(paths: string[], filter: PathFilter, excluded: ExcludedFile[]): string[] {
  const accepted: string[] = [];
  const dirCounts = new Map<string, { reason: string; count: number }>();
  for (const path of paths) {
    const ancestor = filter.excludedAncestor(path);
    if (ancestor) {
      const entry = dirCounts.get(ancestor.dir) ?? { reason: ancestor.reason, count: 0 };
      entry.count++;
      dirCounts.set(ancestor.dir, entry);
      continue;
    }
    const reason = filter.fileReason(path);
    if (reason !== undefined) excluded.push({ path, reason });
    else accepted.push(path);
  }
  for (const [dir, { reason, count }] of dirCounts) {
    excluded.push({ path: `${dir}/`, reason: `${reason} (${count} ${count === 1 ? 'file' : 'files'})` });
  }
  return accepted;
}

/** Root-relative directories of our caches and records that lie inside the root. */
function ownDirectories(rootReal: string, config: Config): string[] {
  const dirs = new Set(['.aiwg/rag']);
  for (const abs of [resolveCacheDir(rootReal, config), resolveSummaryCacheDir(rootReal, config)]) {
    const rel = relative(rootReal, abs);
    if (rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !rel.startsWith(sep)) dirs.add(rel.split(sep).join('/'));
  }
  return [...dirs];
}

function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/** Milliseconds of reading between turns of the event loop. */
const TURN_MS = 5;

/** A cache that answers from `cache` and keeps nothing new. */
function readOnly(cache: KeyValueCache | null): KeyValueCache | null {
  return cache && { get: (namespace, key) => cache.get(namespace, key), set: async () => undefined };
}
