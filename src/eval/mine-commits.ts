import { InputError, UsageError } from '../errors.js';
import { runGit, type GitRunner } from './git.js';
import { isDocPath, isSourcePath } from './source-paths.js';

/** A file a commit changed, from `git log --name-status` (renames: `from` is the old path). */
export interface ChangedFile {
  status: 'A' | 'M' | 'D' | 'R' | 'C' | 'T';
  path: string;
  /** Old path of a rename or copy. */
  from?: string;
}

/** One commit as read from the log. */
export interface RawCommit {
  hash: string;
  parents: string[];
  /** Author date, epoch ms. */
  dateMs: number;
  message: string;
  files: ChangedFile[];
}

/** A commit turned into an evaluation task: the message is the task, the changed sources the answer. */
export interface EvalInstance {
  commit: string;
  parent: string;
  /** Author date of the commit, epoch ms: the replay's clock, so recency is judged as it was then. */
  dateMs: number;
  subject: string;
  /** Commit message without trailers: the task text. */
  task: string;
  /** Non-test source files the commit changed (added ones included), sorted. */
  sources: string[];
  /** Sources that existed at the parent (added files removed): what retrieval should find. Sorted. */
  gold: string[];
}

/** Why a commit is not a task. */
export const SKIP_REASONS = [
  'root-commit',
  'merge',
  'revert',
  'release',
  'dependency-bump',
  'formatting',
  'docs-only',
  'short-message',
  'no-source-files',
  'too-many-source-files',
  'only-added-files',
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

export type Classification = { ok: true; instance: EvalInstance } | { ok: false; reason: SkipReason };

export interface MineOptions {
  root: string;
  /** How many of the most recent qualifying commits to return. */
  commits: number;
  /** Most source files a task may touch (default 4). */
  maxSourceFiles?: number;
  /** Commits of history to scan at most (default max(2000, 50 x commits)). */
  maxScan?: number;
}

export interface MineResult {
  /** Newest first, as `git log` orders them. */
  instances: EvalInstance[];
  scanned: number;
  /** Count of skipped commits per reason (stable key order). */
  skipped: Record<SkipReason, number>;
}

const RECORD_SEP = '\x1e';
const FIELD_SEP = '\x1f';
/** Header fields then `--name-status -z` entries; \x1e starts a commit, \x1f ends each field. */
const LOG_FORMAT = `--format=${RECORD_SEP}%H${FIELD_SEP}%P${FIELD_SEP}%at${FIELD_SEP}%B${FIELD_SEP}`;
const DEFAULT_MAX_SOURCE_FILES = 4;
const MIN_TASK_WORDS = 3;
const MIN_TASK_CHARS = 15;

/**
 * Mine the repository's history for evaluation tasks, with one `git log` for the whole scan.
 * Deterministic: git's commit order, the first `commits` qualifying commits.
 */
export async function mineCommits(options: MineOptions, git: GitRunner = runGit): Promise<MineResult> {
  if (!Number.isInteger(options.commits) || options.commits < 1) {
    throw new UsageError(`--commits ${options.commits}: pass a whole number of commits of at least 1`);
  }
  const maxScan = options.maxScan ?? Math.max(2000, options.commits * 50);
  let text: string;
  try {
    text = await git(options.root, ['log', '--no-merges', '-z', '-M', '--name-status', `--max-count=${maxScan}`, LOG_FORMAT, 'HEAD']);
  } catch (error) {
    throw new InputError(`${options.root}: cannot read the git history (is it a git repository with at least one commit?)`, { cause: error });
  }
  const commits = parseGitLog(text);
  const skipped = Object.fromEntries(SKIP_REASONS.map((r) => [r, 0])) as Record<SkipReason, number>;
  const instances: EvalInstance[] = [];
  let scanned = 0;
  for (const commit of commits) {
    if (instances.length >= options.commits) break;
    scanned += 1;
    const verdict = classifyCommit(commit, options.maxSourceFiles ?? DEFAULT_MAX_SOURCE_FILES);
    if (verdict.ok) instances.push(verdict.instance);
    else skipped[verdict.reason] += 1;
  }
  return { instances, scanned, skipped };
}

/** Parse the output of `git log -z --name-status` with LOG_FORMAT. Pure. */
export function parseGitLog(text: string): RawCommit[] {
  const commits: RawCommit[] = [];
  for (const chunk of text.split(RECORD_SEP)) {
    if (chunk.trim() === '') continue;
    const [hash = '', parents = '', at = '0', message = '', rest = ''] = chunk.split(FIELD_SEP);
    commits.push({
      hash,
      parents: parents.split(' ').filter((p) => p !== ''),
      dateMs: Number(at) * 1000,
      message: message.trim(),
      files: parseNameStatus(rest),
    });
  }
  return commits;
}

function parseNameStatus(rest: string): ChangedFile[] {
  const tokens = rest.replace(/^\0?\n?/, '').split('\0');
  const files: ChangedFile[] = [];
  for (let i = 0; i < tokens.length; i += 1) {
    const status = (tokens[i] ?? '').trim();
    if (status === '') continue;
    const kind = status[0] as ChangedFile['status'];
    if (kind === 'R' || kind === 'C') {
      files.push({ status: kind, from: tokens[i + 1] ?? '', path: tokens[i + 2] ?? '' });
      i += 2;
    } else {
      files.push({ status: kind, path: tokens[i + 1] ?? '' });
      i += 1;
    }
  }
  return files;
}

/** Message rules, checked on the subject line (case-insensitive). Order matters: first match wins. */
const MESSAGE_RULES: Array<{ reason: SkipReason; pattern: RegExp }> = [
  // Squash or rebase merges keep a merge-like subject with one parent.
  { reason: 'merge', pattern: /^merge (pull request|branch|remote-tracking branch|tag|commit)\b/i },
  { reason: 'revert', pattern: /^(revert\b|reapply\b|"revert)/i },
  { reason: 'dependency-bump', pattern: /^(chore|build|fix)\(deps(-dev)?\)|\bbump(s|ed)? [@\w./-]+ from \S+ to\b|\b(update|upgrade|bump)(d|s)? (all |the )?(dependencies|deps|devdependencies|lockfile|package-lock)\b/i },
  { reason: 'release', pattern: /^(chore\(release\)|version packages\b|release\b|releasing\b|prepare (for )?release|publish\b|v?\d+\.\d+\.\d+(-[\w.]+)?$)|\b(bump(ed)?|update) (the )?version\b|^version \d/i },
  { reason: 'formatting', pattern: /^style(\(.*\))?!?:|\b(typos?|whitespace|prettier|reformat(ted|ting)?|formatting|lint(ing)?( fix(es)?| errors| warnings)?|eslint)\b/i },
  { reason: 'docs-only', pattern: /^docs(\(.*\))?!?:/i },
];

const TRAILER = /^(signed-off-by|co-authored-by|reviewed-by|acked-by|tested-by|reported-by|change-id|cc):/i;

/** Decide whether one commit is a task, and build the instance. Pure. */
export function classifyCommit(commit: RawCommit, maxSourceFiles = DEFAULT_MAX_SOURCE_FILES): Classification {
  if (commit.parents.length === 0) return { ok: false, reason: 'root-commit' };
  if (commit.parents.length > 1) return { ok: false, reason: 'merge' };
  const task = taskText(commit.message);
  const subject = task.split('\n')[0] ?? '';
  for (const rule of MESSAGE_RULES) {
    if (rule.pattern.test(subject)) return { ok: false, reason: rule.reason };
  }
  if (subject.trim().split(/\s+/).length < MIN_TASK_WORDS || task.length < MIN_TASK_CHARS) {
    return { ok: false, reason: 'short-message' };
  }
  const sources = commit.files.filter((f) => isSourcePath(f.path) || (f.from !== undefined && isSourcePath(f.from)));
  if (sources.length === 0) {
    const docsOnly = commit.files.length > 0 && commit.files.every((f) => isDocPath(f.path));
    return { ok: false, reason: docsOnly ? 'docs-only' : 'no-source-files' };
  }
  if (sources.length > maxSourceFiles) return { ok: false, reason: 'too-many-source-files' };
  const gold = sources.flatMap((f) => (f.status === 'A' || f.status === 'C' ? [] : [f.from ?? f.path])).filter(isSourcePath);
  if (gold.length === 0) return { ok: false, reason: 'only-added-files' };
  return {
    ok: true,
    instance: {
      commit: commit.hash,
      parent: commit.parents[0] as string,
      dateMs: commit.dateMs,
      subject,
      task,
      sources: [...new Set(sources.map((f) => f.path))].sort(),
      gold: [...new Set(gold)].sort(),
    },
  };
}

/** The commit message as a task: trailers (Signed-off-by and the like) removed, blank runs collapsed. */
export function taskText(message: string): string {
  return message
    .split('\n')
    .filter((line) => !TRAILER.test(line.trim()))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
