import { relative, sep } from 'node:path';
import type { CollectStage } from '../stages.js';
import type { CandidateFile, CollectResult, Config, ExcludedFile, GitFacts, KeyValueCache } from '../types.js';
import { InputError } from '../errors.js';
import { resolveCacheDir, resolveSummaryCacheDir } from '../cache/cache-dir.js';
import { defaultCollectPorts, execGit, GitCommandError, type CollectPorts } from './collect-ports.js';
import { loadCoChange } from './co-change.js';
import { cachedCommitTimes, gitFacts, lastCommitTimes, listRepository, locateRepository } from './git-facts.js';
import { readIndexed } from './indexed-read.js';
import { collectFactKey } from '../facts/fact-store.js';
import { createPathFilter, type PathFilter } from './path-filter.js';
import { mapLimit, readCandidate } from './read-candidate.js';
import { walkTree } from './walk-tree.js';

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
export function createCollectStage(ports: Partial<CollectPorts> & { secretCache?: KeyValueCache | null } = {}): CollectStage {
  // `secretCache`: findings of the secret scan by content hash (security/secret-cache.ts); the
  // pipeline passes the disk-backed one, so a warm run never rescans; none = scan every file.
  const { fs, concurrency, factKinds } = { ...defaultCollectPorts(), ...ports };
  // An injected file system (an in-memory fake) gets no disk index unless one is injected too.
  const factStore = ports.factStore ?? (ports.fs ? async () => null : defaultCollectPorts().factStore);
  return async ({ root }, ctx) => {
    // git runs in the environment the entry edge handed in (RunContext.env).
    const git = ports.git ?? execGit(ctx.env);
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
    const warnings: string[] = [];
    const excluded: ExcludedFile[] = [];

    // the fact store loads (one read, one deserialize) while git lists the files
    const opening = factStore(rootReal, ctx.config);
    opening.catch(() => undefined);
    const located = await locateRepository(git, rootReal);
    const { location } = located;
    let warning = located.warning;
    // A tracked blob the store has no facts for is new content: the run gets ready for it now,
    // while git status runs (in a fresh worktree it hashes every file again: 0.1-0.2 s here). The
    // check looks only while the listing is not done (the reads find new blobs themselves after),
    // a slice at a time, so a warm run, where it finds nothing, pays only for git's wait.
    let gitListed = false;
    const onStaged = ctx.onNewContentAhead
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
                const info = await fs.lstat(`${rootReal}${sep}${path.split('/').join(sep)}`).catch(() => undefined);
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
      excluded.push(...walked.excluded);
      warnings.push(...walked.warnings);
      listed = dropExcludedByPath(walked.paths, filter, excluded);
      facts = Promise.resolve({ isRepo: false, lastCommitMs: new Map(), dirty: new Set() });
    }

    const includeSecrets = ctx.config.collect.include_secrets;
    const secretCache = includeSecrets ? null : (ports.secretCache ?? null);
    const readOptions = { fs, rootReal, maxBytes: ctx.config.collect.max_file_bytes, rules: { includeSecrets }, pathCheck, secretCache };
    const readFileSync = fs.readFileSync?.bind(fs);
    // With the fact store, a blob's findings live in its collect fact: the secret cache is read
    // there but not written (a cold run would write one file per blob, ~0.3 ms each here).
    const onNewBlob = (file: CandidateFile) => ctx.onNewContent?.(file);
    const indexed = store && readFileSync
      ? { ...readOptions, secretCache: readOnly(secretCache), store, kinds: factKinds, readFileSync, nowMs: ctx.nowMs, onNewBlob }
      : undefined;
    // git's index knows the blob of a tracked file the working tree has not changed
    const gitBlob = (path: string) => (listing && !listing.dirty.has(path) ? listing.blobs.get(path) : undefined);
    let done = 0;
    // Reads are synchronous behind the async port, and a new blob is analysed at once; after
    // TURN_MS of that all readers wait one turn of the event loop, so git (commit times, running
    // meanwhile as a chain of commands) gets its pipe drained and its next command started
    // instead of stalling until the last file is read.
    let turn: Promise<void> | undefined;
    let turnAt = performance.now();
    const [outcomes, gitResult] = await Promise.all([
      mapLimit(listed, concurrency, async (path) => {
        if (performance.now() - turnAt >= TURN_MS) {
          turn = new Promise((next) => setImmediate(next));
          turnAt = performance.now();
        }
        await turn;
        const outcome = indexed ? await readIndexed(path, gitBlob(path), indexed) : await readCandidate(path, readOptions);
        ctx.reporter.progress('collect', ++done, listed.length);
        return outcome;
      }),
      facts,
    ]);
    const files: CandidateFile[] = [];
    const redacted: string[] = [];
    for (const outcome of outcomes) {
      if ('file' in outcome) {
        files.push(outcome.file);
        if (outcome.redacted) redacted.push(`${outcome.file.path} (${outcome.redacted.join(', ')})`);
      } else excluded.push(outcome.excluded);
    }
    if (redacted.length > 0) {
      redacted.sort();
      const shown = redacted.slice(0, 5).join('; ');
      warnings.push(`credentials redacted in ${redacted.length} file${redacted.length === 1 ? '' : 's'}: ${shown}${redacted.length > 5 ? '; ...' : ''}; set collect.include_secrets: true to keep them`);
    }
    ctx.reporter.debug(`collect: ${files.length} candidates, ${excluded.length} excluded`);
    if (store) {
      store.retainStats(rootReal, new Set(listed));
      await store.save().catch((error: unknown) => {
        warnings.push(`index ${store.path} could not be saved (${(error as NodeJS.ErrnoException).code ?? String(error)}): the next run reads changed files again`);
      });
    }
    const result: CollectResult = {
      root,
      files: files.sort(byPath),
      excluded: excluded.sort(byPath),
      git: gitResult,
      warnings,
    };
    return result;
  };
}

/** Tracked files the new-content check looks at between two turns of the event loop. */
const AHEAD_SLICE = 1024;

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
