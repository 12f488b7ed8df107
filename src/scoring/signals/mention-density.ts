import type { CandidateFile, FactorScore, Signal } from '../../types.js';
import { readFact, type FactKind } from '../../facts/fact-kind.js';
import { changesPaths, type FileChanges } from '../derived.js';
import { round6 } from '../numbers.js';
import { findAtReferences, resolveReference, type PathIndex, type Resolution } from '../references.js';
import { weakMemoWith } from '../../util/weak-memo.js';

/**
 * mention_density: weighted @-mentions of each file, through a saturating curve.
 *   w = 3 * (task mentions) + 1 * (mentions in .aiwg/ artifacts and agent instruction files)
 *       + 0.5 * (mentions in other candidate files); a directory mention (`@src/auth/`) gives
 *       each file under it a quarter of that weight.
 *   score = FLOOR + (1 - FLOOR) * (1 - exp(-w / K))
 * FLOOR is the neutral prior: most relevant files are never mentioned, so silence is no
 * evidence against a file. A file's mentions of itself do not count; mentions that resolve
 * outside the root or to several files (`@index.ts` with two index.ts) are ignored.
 */
export const MENTION_FLOOR = 0.3;
export const MENTION_SATURATION_K = 2;
export const MENTION_WEIGHTS = { task: 3, artifact: 1, other: 0.5 } as const;
const DIRECTORY_SHARE = 0.25;

/** Agent instruction files and aiwg artifacts: where a mention is a deliberate pointer. */
const ARTIFACT_PATH =
  /^\.aiwg\/|(?:^|\/)(?:AGENTS|CLAUDE|GEMINI|COPILOT)\.md$|(?:^|\/)\.(?:cursorrules|windsurfrules|clinerules)$|^\.github\/copilot-instructions\.md$|^\.(?:cursor|claude|windsurf|clinerules)\//i;

export const mentionDensitySignal: Signal = {
  name: 'mention_density',
  score(input) {
    // what the files say of each other does not depend on the task: once per file set, then updated from the changed files
    const fromFiles = () => fileMentions(input.files, input.facts.paths);
    const update = (previous: Map<string, MentionCounts>, changes: FileChanges) => updateFileMentions(previous, changes, input.files, input.facts.paths);
    const shared = input.derived ? input.derived('mention-counts', fromFiles, update) : fromFiles();
    const counts = new Map<string, MentionCounts>();
    for (const { resolution } of input.facts.atReferences) {
      credit(resolution, null, (p, share) => {
        if (!counts.has(p)) counts.set(p, { ...(shared.get(p) ?? { task: 0, artifact: 0, other: 0 }) });
        add(counts, p, 'task', share);
      });
    }
    // a task that @-mentions nothing scores the files as the last such task over the same files did
    return counts.size === 0 ? withoutTaskMentions(shared, input.files) : scoreFiles(input.files, shared, counts);
  },
};

/** Each file's score from the mentions of it (the task's in `counts`, where it has any). */
function scoreFiles(files: readonly CandidateFile[], shared: ReadonlyMap<string, MentionCounts>, counts: ReadonlyMap<string, MentionCounts> = new Map()): Map<string, FactorScore> {
  const out = new Map<string, FactorScore>();
  for (const f of files) {
    const c = counts.get(f.path) ?? shared.get(f.path) ?? { task: 0, artifact: 0, other: 0 };
    const w = MENTION_WEIGHTS.task * c.task + MENTION_WEIGHTS.artifact * c.artifact + MENTION_WEIGHTS.other * c.other;
    const score = MENTION_FLOOR + (1 - MENTION_FLOOR) * (1 - Math.exp(-w / MENTION_SATURATION_K));
    out.set(f.path, new MentionScore(round6(w), round6(score), c));
  }
  return out;
}

/**
 * The scores of a file set when the task @-mentions nothing (most tasks), per mention counts of
 * the files (the same object while the files stay the same in a warm index): nothing in them
 * depends on the task, and babel's 27k files are scored on every query.
 */
const withoutTaskMentions = weakMemoWith((shared: ReadonlyMap<string, MentionCounts>, files: readonly CandidateFile[]) => scoreFiles(files, shared));

/** A file's mention score; its explanation is written when read (the score stage makes one per file per run). */
class MentionScore implements FactorScore {
  readonly #counts: MentionCounts;

  constructor(
    readonly raw: number,
    readonly score: number,
    counts: MentionCounts,
  ) {
    this.#counts = counts;
  }

  get detail(): string {
    const c = this.#counts;
    return `task ${fmt(c.task)}, artifacts ${fmt(c.artifact)}, other files ${fmt(c.other)}`;
  }
}

/** The @-references written in a blob, persisted by the fact store (src/facts/registry.ts). */
export const mentionsFactKind: FactKind<string[]> = {
  name: 'at-mentions',
  version: 1,
  extract: (_path, content) => findAtReferences(content),
};

/** The mentions of every file by the other files, per mentioned path. */
function fileMentions(files: readonly CandidateFile[], paths: PathIndex): Map<string, MentionCounts> {
  const counts = new Map<string, MentionCounts>();
  countMentions(counts, files, memoResolver(paths), 1);
  return counts;
}

/**
 * The mentions after `changes`, from those before: a changed file's old mentions are taken
 * away and its new ones added (counts are sums of 1 and DIRECTORY_SHARE: exact in floating
 * point, whatever the order). A reference resolves against every path, so an added or removed
 * path counts again.
 */
function updateFileMentions(previous: Map<string, MentionCounts>, changes: FileChanges, files: readonly CandidateFile[], paths: PathIndex): Map<string, MentionCounts> {
  if (changesPaths(changes)) return fileMentions(files, paths);
  const counts = new Map<string, MentionCounts>();
  for (const [p, c] of previous) counts.set(p, { ...c });
  const resolve = memoResolver(paths);
  countMentions(counts, changes.changed.map((c) => c.before), resolve, -1);
  countMentions(counts, changes.changed.map((c) => c.after), resolve, 1);
  for (const [p, c] of counts) if (c.task === 0 && c.artifact === 0 && c.other === 0) counts.delete(p);
  return counts;
}

/** Add (sign 1) or take away (sign -1) what `files` mention. */
function countMentions(counts: Map<string, MentionCounts>, files: readonly CandidateFile[], resolve: (ref: string) => Resolution, sign: 1 | -1): void {
  for (const file of files) {
    const kind = ARTIFACT_PATH.test(file.path) ? 'artifact' : 'other';
    for (const ref of readFact(mentionsFactKind, file)) credit(resolve(ref), file.path, (p, share) => add(counts, p, kind, sign * share));
  }
}

function credit(r: Resolution, self: string | null, give: (path: string, share: number) => void): void {
  if (r.kind === 'file' && r.path !== self) give(r.path, 1);
  else if (r.kind === 'directory') for (const p of r.paths) if (p !== self) give(p, DIRECTORY_SHARE);
}

interface MentionCounts {
  task: number;
  artifact: number;
  other: number;
}

function add(counts: Map<string, MentionCounts>, path: string, kind: keyof MentionCounts, amount: number): void {
  const c = counts.get(path) ?? { task: 0, artifact: 0, other: 0 };
  c[kind] += amount;
  counts.set(path, c);
}

/** Resolve each distinct reference once per run: JSDoc tags (@param, @returns) repeat thousands of times. */
function memoResolver(index: PathIndex): (ref: string) => Resolution {
  const memo = new Map<string, Resolution>();
  return (ref) => {
    let r = memo.get(ref);
    if (r === undefined) {
      r = resolveReference(ref, index);
      memo.set(ref, r);
    }
    return r;
  };
}

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2);
}
