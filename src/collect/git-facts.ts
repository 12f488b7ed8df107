import type { CommitTimes } from '../facts/fact-store.js';
import type { GitFacts } from '../types.js';
import { GitCommandError, type GitPort } from './collect-ports.js';

/** Where the root sits in its repository. */
export interface GitLocation {
  /** Root-relative to the repository top, with a trailing `/`, or '' at the top. */
  prefix: string;
  isShallow: boolean;
  /** HEAD commit; undefined in a repository without commits. */
  head?: string;
}

/**
 * Locate the root in its work tree with one `git rev-parse` (prefix, shallowness, HEAD); a
 * second call only for a repository without commits, where HEAD does not resolve.
 * `location` is undefined when the root is not inside a work tree (or git is missing).
 */
export async function locateRepository(git: GitPort, root: string): Promise<{ location?: GitLocation; warning?: string }> {
  const args = ['rev-parse', '--show-prefix', '--is-shallow-repository'];
  try {
    const out = await git.run([...args, 'HEAD'], root).catch(async (error: unknown) => {
      if (error instanceof GitCommandError && !error.isMissingGit && !error.notARepository) return git.run(args, root);
      throw error;
    });
    const [prefix = '', shallow, head] = out.toString('utf8').split('\n');
    return { location: { prefix, isShallow: shallow === 'true', ...(head ? { head } : {}) } };
  } catch (error) {
    if (!(error instanceof GitCommandError)) throw error;
    if (error.isMissingGit) return { warning: 'git not found on PATH: recency and history signals are off' };
    if (error.notARepository) return { warning: 'not a git repository: recency and history signals are off' };
    return { warning: `git failed (${error.stderr.trim().split('\n')[0] ?? 'unknown error'}): recency and history signals are off` };
  }
}

export interface GitListing {
  /** Root-relative paths git tracks. */
  tracked: Set<string>;
  /** Blob id in git's index of each tracked regular file (not symlinks, submodules or conflicts). */
  blobs: Map<string, string>;
  /** Root-relative untracked paths not ignored by any .gitignore. */
  untracked: Set<string>;
  /** Modified, staged or untracked. */
  dirty: Set<string>;
  /** Paths staged as new: they have no commit yet. */
  added: Set<string>;
}

/**
 * Tracked files and the working-tree status, two git calls run at once. Untracked files come
 * from `git status -uall` (`??` entries): the same .gitignore rules, nested ones included, as
 * `ls-files --others --exclude-standard`, without a third process.
 */
export async function listRepository(
  git: GitPort,
  root: string,
  location: GitLocation,
  /** Told git's index (tracked paths and blobs) as soon as it is read, while `git status` still runs. */
  onStaged?: (staged: ReturnType<typeof parseStagedFiles>) => void,
): Promise<GitListing> {
  const [staged, status] = await Promise.all([
    git.run(['ls-files', '-z', '--stage', '-v'], root).then((output) => {
      const parsed = parseStagedFiles(output);
      onStaged?.(parsed);
      return parsed;
    }),
    git.run(['status', '--porcelain', '-z', '--untracked-files=all', '--no-renames', '--', '.'], root),
  ]);
  return { ...staged, ...parseStatus(status, location.prefix) };
}

/**
 * `git ls-files --stage -v -z` entries are `<tag> <mode> <blob> <stage>\t<path>`, paths relative to
 * the cwd. `blobs` holds the regular files at stage 0 tagged `H`: the ones `git status` compares
 * with the working tree, so one it does not name holds that blob. A skip-worktree entry (`S`, a
 * sparse checkout: no file on disk) or an assume-unchanged one (lower case: status does not look)
 * is tracked but has no blob here: it is looked at on disk like any other file.
 */
export function parseStagedFiles(output: Buffer): { tracked: Set<string>; blobs: Map<string, string> } {
  const tracked = new Set<string>();
  const blobs = new Map<string, string>();
  for (const entry of splitNul(output)) {
    const tab = entry.indexOf('\t');
    if (tab === -1) continue;
    const path = entry.slice(tab + 1);
    tracked.add(path);
    const [tag, mode, blob, stage] = entry.slice(0, tab).split(' ');
    if (tag === 'H' && (mode === '100644' || mode === '100755') && stage === '0' && blob !== undefined) blobs.set(path, blob);
  }
  return { tracked, blobs };
}

/** `git status --porcelain -z` entries are `XY path`, relative to the repository top. */
export function parseStatus(output: Buffer, prefix: string): { dirty: Set<string>; added: Set<string>; untracked: Set<string> } {
  const dirty = new Set<string>();
  const added = new Set<string>();
  const untracked = new Set<string>();
  for (const entry of splitNul(output)) {
    if (entry.length < 4) continue;
    const full = entry.slice(3);
    if (!full.startsWith(prefix)) continue;
    const path = full.slice(prefix.length);
    dirty.add(path);
    if (entry[0] === 'A') added.add(path);
    else if (entry.startsWith('??')) untracked.add(path);
  }
  return { dirty, added, untracked };
}

export function splitNul(output: Buffer): string[] {
  const text = output.toString('utf8');
  return text === '' ? [] : text.split('\0').filter((s) => s !== '');
}

/**
 * Bound on commits walked. Files not seen by then were last changed before the oldest commit
 * walked, so they get that commit's time: an upper bound that keeps their recency low, which
 * is the truth, instead of a checkout mtime that would call them fresh.
 */
export const MAX_LOG_COMMITS = 20_000;

/**
 * Last commit time per path from ONE `git log` pass, newest first; the first time a path is
 * seen is its last change. The walk stops as soon as every wanted path has a time, or at
 * MAX_LOG_COMMITS. Paths are relative to the root.
 *
 * `--full-history` keeps every parent of a merge: the walk visits the same commits in the same
 * order whatever the pathspec, so a walk limited to a few paths (`limitToWanted`) finds the
 * commit a walk of the whole root would. Limited, only commits touching those paths count
 * towards `maxCommits`: callers limit a walk only where the history is known to be shorter.
 */
export async function lastCommitTimes(
  git: GitPort,
  root: string,
  options: { prefix: string; wanted: Set<string>; maxCommits?: number; range?: string; limitToWanted?: boolean },
): Promise<Map<string, number>> {
  const { prefix, wanted } = options;
  const maxCommits = options.maxCommits ?? MAX_LOG_COMMITS;
  const times = new Map<string, number>();
  if (wanted.size === 0) return times;
  let remaining = wanted.size;
  let commits = 0;
  let currentMs = 0;
  let expectTime = false;
  let firstName = false;
  let pending = Buffer.alloc(0);

  // Output: for each commit `\0<ct>\0` then `\n` and NUL-terminated names.
  const onToken = (token: Buffer): boolean => {
    if (token.length === 0) {
      expectTime = true;
      return true;
    }
    if (expectTime) {
      expectTime = false;
      firstName = true;
      if (commits >= maxCommits) return false;
      commits++;
      currentMs = Number(token.toString('latin1')) * 1000;
      return true;
    }
    let name = token.toString('utf8');
    if (firstName && name.startsWith('\n')) name = name.slice(1);
    firstName = false;
    if (!name.startsWith(prefix)) return true;
    const path = name.slice(prefix.length);
    if (wanted.has(path) && !times.has(path)) {
      times.set(path, currentMs);
      remaining--;
    }
    return remaining > 0;
  };

  let stoppedEarly = false;
  const range = options.range === undefined ? [] : [options.range];
  const pathspecs = options.limitToWanted === true ? [...wanted].map((path) => `:(literal)${path}`) : ['.'];
  await git.stream(['log', '--format=%x00%ct', '--name-only', '-z', '--no-renames', '--full-history', ...range, '--', ...pathspecs], root, (chunk) => {
    const data = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
    let start = 0;
    for (let nul = data.indexOf(0, start); nul !== -1; nul = data.indexOf(0, start)) {
      const keepGoing = onToken(data.subarray(start, nul));
      start = nul + 1;
      if (!keepGoing) {
        stoppedEarly = true;
        return false;
      }
    }
    pending = Buffer.from(data.subarray(start));
    return true;
  });
  if (stoppedEarly && remaining > 0 && commits >= maxCommits) {
    for (const path of wanted) if (!times.has(path)) times.set(path, currentMs);
  }
  return times;
}

/** Where commit times are remembered between runs (the fact store). */
export interface CommitTimesCache {
  commitTimes(prefixKey: string): readonly CommitTimes[];
  putCommitTimes(prefixKey: string, entry: CommitTimes): void;
}

/**
 * Stale paths up to which the walk from the merge base names the paths instead of the whole
 * root: git's cost per commit grows with the pathspecs, and past a few dozen paths limiting
 * costs more than it saves (vite, 290 paths: 2.0 s limited against 0.44 s for the whole walk).
 */
const LIMITED_WALK_MAX_PATHS = 32;

/**
 * lastCommitTimes through a cache keyed by HEAD: history is content-addressed, so the same HEAD
 * (in this checkout or a new clone) gives the same times. For a HEAD related to a remembered one
 * (a descendant, an ancestor such as an older checkout, or a sibling branch) only what lies
 * between them is walked, from their merge base B:
 * - a path changed in B..HEAD takes its time from that walk;
 * - a path the remembered side changed in B..remembered (and HEAD did not) takes its last time
 *   up to B, from a walk from B that stops once those few paths are found;
 * - every other path has the same last commit on both sides: the remembered time.
 * Anything else is one full walk, remembered for next time.
 *
 * An entry also remembers how many commits HEAD reaches (`reach`), counted alongside a full
 * walk and carried to the entries derived from it. When B's history is known to be shorter than
 * the walk's bound, the walk from B names a few stale paths instead of the whole root (a
 * checkout one commit back: one stale path, 6 ms instead of 90 on vite): the bound can then
 * never cut either walk short, and `--full-history` makes both find the same commit.
 */
export async function cachedCommitTimes(
  git: GitPort,
  root: string,
  options: { prefix: string; head: string; wanted: Set<string>; cache: CommitTimesCache },
): Promise<Map<string, number>> {
  const { prefix, head, wanted, cache } = options;
  const key = `prefix:${prefix}`;
  const known = cache.commitTimes(key);
  const covers = (times: Map<string, number>) => [...wanted].every((p) => times.has(p));
  const exact = known.find((e) => e.head === head);
  if (exact && covers(exact.times)) return new Map([...wanted].map((p) => [p, exact.times.get(p) as number]));
  for (const entry of known) {
    if (entry.head === head) continue;
    const base = await mergeBase(git, root, entry.head, head);
    if (base === null) continue;
    const [ours, added] = base === head
      ? [new Map<string, number>(), 0]
      : await Promise.all([
          lastCommitTimes(git, root, { prefix, wanted, range: `${base}..${head}` }),
          entry.reach === undefined ? undefined : commitCount(git, root, `${base}..${head}`),
        ]);
    const theirs = base === entry.head ? new Set<string>() : await changedPaths(git, root, prefix, `${base}..${entry.head}`);
    const stale = new Set([...wanted].filter((p) => !ours.has(p) && theirs.has(p)));
    // B is an ancestor of the remembered HEAD, so it reaches no more commits than that HEAD does.
    const limited = stale.size <= LIMITED_WALK_MAX_PATHS && entry.reach !== undefined && entry.reach < MAX_LOG_COMMITS;
    const fromBase = stale.size === 0 ? new Map<string, number>() : await lastCommitTimes(git, root, { prefix, wanted: stale, range: base, limitToWanted: limited });
    const merged = new Map<string, number>();
    for (const path of wanted) {
      const t = ours.get(path) ?? (stale.has(path) ? fromBase.get(path) : entry.times.get(path));
      if (t !== undefined) merged.set(path, t);
    }
    if (merged.size === wanted.size) {
      const reach = entry.reach === undefined || added === undefined ? undefined : entry.reach + added;
      cache.putCommitTimes(key, { head, times: merged, ...(reach === undefined ? {} : { reach }) });
      return merged;
    }
  }
  const [times, reach] = await Promise.all([lastCommitTimes(git, root, { prefix, wanted }), commitCount(git, root, head)]);
  cache.putCommitTimes(key, { head, times, ...(reach === undefined ? {} : { reach }) });
  return times;
}

/**
 * The commits `rev` reaches (a revision or a range), counted up to MAX_LOG_COMMITS: git walks
 * commits without diffing trees, a fraction of a log's cost. undefined past that bound or when
 * git cannot count them.
 */
async function commitCount(git: GitPort, root: string, rev: string): Promise<number | undefined> {
  try {
    const out = (await git.run(['rev-list', '--count', `--max-count=${MAX_LOG_COMMITS}`, rev], root)).toString('latin1').trim();
    const count = /^\d+$/.test(out) ? Number(out) : undefined;
    return count !== undefined && count < MAX_LOG_COMMITS ? count : undefined;
  } catch (error) {
    if (error instanceof GitCommandError) return undefined;
    throw error;
  }
}

/** The merge base of two commits, or null when they share no history (or one is unknown to this clone). */
async function mergeBase(git: GitPort, root: string, a: string, b: string): Promise<string | null> {
  try {
    const out = (await git.run(['merge-base', a, b], root)).toString('latin1').trim();
    return /^[0-9a-f]{40,64}$/.test(out) ? out : null;
  } catch (error) {
    if (error instanceof GitCommandError) return null;
    throw error;
  }
}

/** Every path (relative to the prefix) some commit of `range` touched: a change reverted later still counts. */
async function changedPaths(git: GitPort, root: string, prefix: string, range: string): Promise<Set<string>> {
  const out = await git.run(['log', '--format=', '--name-only', '-z', '--no-renames', '--full-history', range, '--', '.'], root);
  const paths = new Set<string>();
  for (const field of out.toString('utf8').split('\0')) {
    const name = field.replace(/^\n+/, '');
    if (name !== '' && name.startsWith(prefix)) paths.add(name.slice(prefix.length));
  }
  return paths;
}

/** Assemble the GitFacts of a repository. */
export function gitFacts(listing: GitListing, location: GitLocation, lastCommitMs: Map<string, number>): GitFacts {
  return {
    isRepo: true,
    lastCommitMs,
    dirty: listing.dirty,
    ...(location.head ? { head: location.head } : {}),
    isShallow: location.isShallow,
  };
}
