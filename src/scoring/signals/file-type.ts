import type { FactorScore, FileCategory, Signal } from '../../types.js';
import { candidatePaths } from '../task-facts.js';
import { weakMemoWith } from '../../util/weak-memo.js';

/** file_type: the configured priority of the file's category (classified once per run). */
export const fileTypeSignal: Signal = {
  name: 'file_type',
  // nothing here depends on the task or the contents: a warm index asks again with the same paths and categories
  score: (input, ctx) => scoresOf(candidatePaths(input.files), input.categories, JSON.stringify(ctx.config.relevance_scoring.factors.file_type.priorities)),
};

/** The scores of a path list (candidatePaths), per classification and priorities (as JSON: compared by content). */
const scoresOf = weakMemoWith((paths: readonly string[], categories: ReadonlyMap<string, FileCategory>, prioritiesJson: string): Map<string, FactorScore> => {
  const priorities = JSON.parse(prioritiesJson) as Record<FileCategory, number>;
  const out = new Map<string, FactorScore>();
  // one score per category, shared by its files (scores are never changed once made)
  const byCategory = new Map<FileCategory, FactorScore>();
  for (const path of paths) {
    const category = categories.get(path) ?? 'documentation';
    let score = byCategory.get(category);
    if (score === undefined) byCategory.set(category, (score = { raw: priorities[category], score: priorities[category], detail: category }));
    out.set(path, score);
  }
  return out;
});
