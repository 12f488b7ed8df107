import type { FactorScore, FileCategory, Signal } from '../../types.js';
import { candidatePaths } from '../task-facts.js';

/** file_type: the configured priority of the file's category (classified once per run). */
export const fileTypeSignal: Signal = {
  name: 'file_type',
  score(input, ctx) {
    const priorities = ctx.config.relevance_scoring.factors.file_type.priorities;
    // nothing here depends on the task or the contents: a warm index asks again with the same paths and categories
    const key = JSON.stringify(priorities);
    const paths = candidatePaths(input.files);
    const held = byPaths.get(paths);
    if (held?.categories === input.categories && held.key === key) return held.scores;
    const out = new Map<string, FactorScore>();
    // one score per category, shared by its files (scores are never changed once made)
    const byCategory = new Map<FileCategory, FactorScore>();
    for (const f of input.files) {
      const category = input.categories.get(f.path) ?? 'documentation';
      let score = byCategory.get(category);
      if (score === undefined) byCategory.set(category, (score = { raw: priorities[category], score: priorities[category], detail: category }));
      out.set(f.path, score);
    }
    byPaths.set(paths, { categories: input.categories, key, scores: out });
    return out;
  },
};

/** The scores of a path list (candidatePaths), with the classification and priorities they were made under. */
const byPaths = new WeakMap<readonly string[], { categories: ReadonlyMap<string, FileCategory>; key: string; scores: Map<string, FactorScore> }>();
