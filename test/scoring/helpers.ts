import { createHash } from 'node:crypto';
import type { CandidateFile, FileCategory, GitFacts, SignalInput } from '../../src/types.js';
import { defaultConfig, type Config } from '../../src/config/schema.js';
import { classifyFiles } from '../../src/scoring/classify.js';
import { buildTaskFacts } from '../../src/scoring/task-facts.js';
import { positionsOf, valuesOf, type PathValues } from '../../src/scoring/alignment.js';

/** In-memory candidate files from a path -> content table. */
export function candidates(files: Record<string, string>, mtimeMs = Date.UTC(2026, 0, 1)): CandidateFile[] {
  return Object.entries(files)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([path, content]) => ({
      path,
      content,
      size: Buffer.byteLength(content),
      mtimeMs,
      hash: createHash('sha256').update(content).digest('hex'),
      lineCount: content.split('\n').length,
    }));
}

export function gitFacts(lastCommit: Record<string, number> = {}, dirty: string[] = [], isRepo = true): GitFacts {
  return { isRepo, lastCommitMs: new Map(Object.entries(lastCommit)), dirty: new Set(dirty) };
}

/** A SignalInput over in-memory files; categories from the default classifier. */
export function signalInput(
  files: CandidateFile[],
  options: { task?: string; git?: GitFacts; nowMs?: number; config?: Config; prior?: SignalInput['prior'] } = {},
): SignalInput {
  const categories: Map<string, FileCategory> = classifyFiles(files.map((f) => f.path), options.config ?? defaultConfig());
  const task = options.task ?? '';
  return {
    task,
    facts: buildTaskFacts(task, files.map((f) => f.path)),
    files,
    git: options.git ?? gitFacts(),
    nowMs: options.nowMs ?? Date.UTC(2026, 0, 15),
    prior: options.prior ?? new Map(),
    categories,
  };
}

export const DAY_MS = 86_400_000;

/**
 * Per-path values as the alignment steps take them (PathValues, in the order of `paths`; a path
 * without an entry is 0), with a reader back by path.
 */
export function byPath(entries: Record<string, number>, paths: readonly string[] = Object.keys(entries)) {
  const positions = positionsOf(paths);
  const values = valuesOf(new Map(Object.entries(entries)), positions, paths.length);
  const at = (of: PathValues, path: string): number => {
    const i = positions.get(path);
    if (i === undefined) throw new Error(`${path} is not among the paths`);
    return of[i]!;
  };
  return { paths, positions, values, at };
}
