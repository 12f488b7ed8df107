import type { CommitTimes } from '../facts/fact-store.js';
import { joinRecent, packRecent, RECENT_CHANGES, RECENT_COMMITS, timeUpTo, touchedAt, unpackRecent, type RecentHistory } from './recent-history.js';
import type { GitFacts } from '../types.js';
import { GitCommandError, type GitPort } from './git-port.js';

const LOCATE_ARGS = ['rev-parse', '--show-prefix', '--is-shallow-repository'] as const;
const LS_FILES_ARGS = ['ls-files', '-z', '--stage', '-v'] as const;
const STATUS_ARGS = ['status', '--porcelain', '-z', '--untracked-files=all', '--no-renames', '--', '.'] as const;

/**
 * The commands a collect in a git work tree starts with, in the root: locateRepository's (with
 * HEAD) and listRepository's two. git-ahead.ts starts these same commands early.
 */
export const FIRST_GIT_COMMANDS: ReadonlyArray<readonly string[]> = [[...LOCATE_ARGS, 'HEAD'], LS_FILES_ARGS, STATUS_ARGS];

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
  try {
    const out = await git.run([...LOCATE_ARGS, 'HEAD'], root).catch(async (error: unknown) => {
      if (error instanceof GitCommandError && !error.isMissingGit && !error.notARepository) return git.run([...LOCATE_ARGS], root);
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
    git.run([...LS_FILES_ARGS], root).then((output) => {
      const parsed = parseStagedFiles(output);
      onStaged?.(parsed);
      return parsed;
    }),
    git.run([...STATUS_ARGS], root),
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
  // Read in place: an entry is `<tag> <mode> <blob> <stage>\t<path>`, and only the path and the
  // blob become strings (babel's 27k entries, split into fields, made ~8 strings each).
  const text = output.toString('utf8');
  for (let at = 0; at < text.length; ) {
    let end = text.indexOf('\0', at);
    if (end === -1) end = text.length;
    const tab = text.indexOf('\t', at);
    if (tab !== -1 && tab < end) {
      const path = text.slice(tab + 1, end);
      tracked.add(path);
      if (isRegularBlobEntry(text, at, tab)) blobs.set(path, text.slice(at + REGULAR_HEAD.length, tab - STAGE_0.length));
    }
    at = end + 1;
  }
  return { tracked, blobs };
}

/** The start of an entry of a regular file git status compares (tag H, mode 100644 or 100755), up to its blob. */
const REGULAR_HEAD = 'H 100644 ';
const EXECUTABLE_HEAD = 'H 100755 ';
/** What ends the header of an entry at stage 0. */
const STAGE_0 = ' 0';

/** Whether the header text[at, tab) is `H 100644|100755 <blob> 0`, a blob of at least one character. */
function isRegularBlobEntry(text: string, at: number, tab: number): boolean {
  if (!text.startsWith(REGULAR_HEAD, at) && !text.startsWith(EXECUTABLE_HEAD, at)) return false;
  const blobEnd = tab - STAGE_0.length;
  return blobEnd > at + REGULAR_HEAD.length && text.startsWith(STAGE_0, blobEnd) && text.indexOf(' ', at + REGULAR_HEAD.length) === blobEnd;
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
  return (await walkCommitTimes(git, root, options)).times;
}

/** What one walk found: the times, and with `keepRecent` its first commits (see RecentHistory). */
export interface CommitWalk {
  times: Map<string, number>;
  recent?: RecentHistory;
  /** The walk saw every commit of its range and kept them all in `recent`. */
  recentIsWhole: boolean;
}

/**
 * lastCommitTimes, keeping on request the first commits of the walk and the paths they touched.
 * For each path they touched, the walk also notes its next change after them, if it gets that
 * far anyway: it never walks further for that.
 */
export async function walkCommitTimes(
  git: GitPort,
  root: string,
  /** keepRecent: keep up to this many first commits (RECENT_COMMITS in every walk of cachedCommitTimes). */
  options: { prefix: string; wanted: Set<string>; maxCommits?: number; range?: string; limitToWanted?: boolean; keepRecent?: number },
): Promise<CommitWalk> {
  const { prefix, wanted } = options;
  const maxCommits = options.maxCommits ?? MAX_LOG_COMMITS;
  const times = new Map<string, number>();
  if (wanted.size === 0) return { times, recentIsWhole: false };
  const keepCommits = options.keepRecent ?? 0;
  const recent: RecentHistory | undefined = keepCommits > 0 ? { commits: [], times: [], touched: new Map(), before: new Map() } : undefined;
  let recording = recent !== undefined;
  let changes = 0;
  let awaitingBefore: Set<string> | undefined;
  let remaining = wanted.size;
  let commits = 0;
  let currentMs = 0;
  let expectHeader = false;
  let firstName = false;
  let pending = Buffer.alloc(0);

  // Output: for each commit `\0<id> <ct>\0` then `\n` and NUL-terminated names.
  const onToken = (token: Buffer): boolean => {
    if (token.length === 0) {
      expectHeader = true;
      return true;
    }
    if (expectHeader) {
      expectHeader = false;
      firstName = true;
      // every wanted path was found in the last commit, read whole because this walk keeps commits
      if (remaining === 0 || commits >= maxCommits) return false;
      commits++;
      const header = token.toString('latin1');
      const space = header.indexOf(' ');
      currentMs = Number(header.slice(space + 1)) * 1000;
      if (recent !== undefined && recording) {
        if (recent.commits.length < keepCommits && changes < RECENT_CHANGES) {
          recent.commits.push(header.slice(0, space));
          recent.times.push(currentMs);
        } else {
          recording = false;
          awaitingBefore = new Set(recent.touched.keys());
        }
      }
      return true;
    }
    let name = token.toString('utf8');
    if (firstName && name.startsWith('\n')) name = name.slice(1);
    firstName = false;
    if (!name.startsWith(prefix)) return true;
    const path = name.slice(prefix.length);
    if (recent !== undefined) {
      if (recording) {
        const position = recent.commits.length - 1;
        const positions = recent.touched.get(path);
        if (positions === undefined) recent.touched.set(path, [position]);
        else if (positions[positions.length - 1] !== position) positions.push(position);
        changes++;
      } else if (awaitingBefore !== undefined && awaitingBefore.delete(path)) recent.before.set(path, currentMs);
    }
    if (wanted.has(path) && !times.has(path)) {
      times.set(path, currentMs);
      remaining--;
    }
    // a walk that keeps commits reads each to its end: a kept commit's paths must all be listed,
    // and a later one may hold the next change of a kept path
    return remaining > 0 || recent !== undefined;
  };

  let stoppedEarly = false;
  const range = options.range === undefined ? [] : [options.range];
  const pathspecs = options.limitToWanted === true ? [...wanted].map((path) => `:(literal)${path}`) : ['.'];
  await git.stream(['log', '--format=%x00%H %ct', '--name-only', '-z', '--no-renames', '--full-history', ...range, '--', ...pathspecs], root, (chunk) => {
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
  return { times, ...(recent ? { recent } : {}), recentIsWhole: recent !== undefined && recording && !stoppedEarly };
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
 *   up to B: the stale paths;
 * - every other path has the same last commit on both sides: the remembered time.
 * Anything else is one full walk, remembered for next time.
 *
 * The stale paths cost nothing when the entry kept the first commits of its walk (RecentHistory)
 * and B..remembered lies among them: a path's time up to B is that of the first kept commit
 * outside B..remembered that touched it, or else its next change after the kept commits.
 * Otherwise they are walked from B, a walk that stops once they are found. An entry also
 * remembers how many commits HEAD reaches (`reach`), counted alongside a full walk and carried to
 * the entries derived from it. When B's history is known to be shorter than the walk's bound,
 * the walk from B names a few stale paths instead of the whole root: the bound can then never
 * cut either walk short, and `--full-history` makes both find the same commit.
 *
 * A derived entry keeps recent commits too: those of B..HEAD, then the remembered entry's that B
 * reaches, so a chain of checkouts (back, forward, a pull) keeps needing no walk.
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
    const kept = entry.recent === undefined ? undefined : unpackRecent(entry.recent);
    const [ours, added, between] = await Promise.all([
      base === head ? undefined : walkCommitTimes(git, root, { prefix, wanted, range: `${base}..${head}`, keepRecent: RECENT_COMMITS }),
      base === head || entry.reach === undefined ? 0 : commitCount(git, root, `${base}..${head}`),
      base === entry.head ? new Set<number>() : recentPositions(git, root, `${base}..${entry.head}`, kept),
    ]);
    const recent = between === undefined ? undefined : kept;
    const theirs = base === entry.head ? new Set<string>() : recent && between ? touchedAt(recent, between) : await changedPaths(git, root, prefix, `${base}..${entry.head}`);
    const ourTimes = ours?.times ?? new Map<string, number>();
    const upToBase = new Map<string, number>();
    const walk = new Set<string>();
    for (const path of wanted) {
      if (ourTimes.has(path) || !theirs.has(path)) continue;
      const t = recent && between ? timeUpTo(recent, between, path) : undefined;
      if (t === undefined) walk.add(path);
      else upToBase.set(path, t);
    }
    // B is an ancestor of the remembered HEAD, so it reaches no more commits than that HEAD does.
    const limited = walk.size <= LIMITED_WALK_MAX_PATHS && entry.reach !== undefined && entry.reach < MAX_LOG_COMMITS;
    // a walk of the whole root from B = HEAD (an older checkout) is the start of HEAD's own walk: its commits are kept too
    const fromBase = walk.size === 0 ? undefined : await walkCommitTimes(git, root, { prefix, wanted: walk, range: base, limitToWanted: limited, ...(base === head && !limited ? { keepRecent: RECENT_COMMITS } : {}) });
    for (const [path, t] of fromBase?.times ?? []) upToBase.set(path, t);
    const merged = new Map<string, number>();
    for (const path of wanted) {
      const t = ourTimes.get(path) ?? (theirs.has(path) ? upToBase.get(path) : entry.times.get(path));
      if (t !== undefined) merged.set(path, t);
    }
    if (merged.size === wanted.size) {
      const reach = entry.reach === undefined || added === undefined ? undefined : entry.reach + added;
      const asOfBase = (path: string) => (!theirs.has(path) ? entry.times.get(path) : upToBase.get(path) ?? (recent && between ? timeUpTo(recent, between, path) : undefined));
      const joined = base === head || ours?.recentIsWhole === true ? joinRecent(ours?.recent, recent && between ? { recent, drop: between } : undefined, asOfBase) : undefined;
      cache.putCommitTimes(key, { head, times: merged, ...(reach === undefined ? {} : { reach }), ...packed(joined ?? fromBase?.recent) });
      return merged;
    }
  }
  const [walked, reach] = await Promise.all([walkCommitTimes(git, root, { prefix, wanted, keepRecent: RECENT_COMMITS }), commitCount(git, root, head)]);
  const { times, recent } = walked;
  cache.putCommitTimes(key, { head, times, ...(reach === undefined ? {} : { reach }), ...packed(recent) });
  return times;
}

/** The `recent` field of an entry: kept commits packed, or nothing when none were kept. */
function packed(recent: RecentHistory | undefined): { recent?: Uint8Array } {
  const bytes = recent && recent.commits.length > 0 ? packRecent(recent) : undefined;
  return bytes ? { recent: bytes } : {};
}

/**
 * Positions in `recent` of the commits of `range` (B..remembered), or undefined when some are
 * not among them (or the entry kept none): then what B reaches cannot be told from them.
 */
async function recentPositions(git: GitPort, root: string, range: string, recent: RecentHistory | undefined): Promise<Set<number> | undefined> {
  if (recent === undefined || recent.commits.length === 0) return undefined;
  // the commits a walk of the range prints (as the walk that kept them did): merges and commits
  // that change nothing under the root are in neither
  const out = (await git.run(['rev-list', `--max-count=${recent.commits.length + 1}`, '--full-history', range, '--', '.'], root)).toString('latin1');
  const ids = out.split('\n').filter((line) => line !== '');
  if (ids.length > recent.commits.length) return undefined;
  const index = new Map(recent.commits.map((id, position) => [id, position]));
  const positions = new Set<number>();
  for (const id of ids) {
    const position = index.get(id);
    if (position === undefined) return undefined;
    positions.add(position);
  }
  return positions;
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
