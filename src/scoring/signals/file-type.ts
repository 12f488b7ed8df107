import type { CandidateFile, FactorScore, FileCategory, Signal } from '../../types.js';

/** file_type: the configured priority of the file's category (classified once per run). */
export const fileTypeSignal: Signal = {
  name: 'file_type',
  score(input, ctx) {
    const priorities = ctx.config.relevance_scoring.factors.file_type.priorities;
    // nothing here depends on the task: a warm index asks again with the same files and categories
    const key = JSON.stringify(priorities);
    const held = byFileSet.get(input.files);
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
    byFileSet.set(input.files, { categories: input.categories, key, scores: out });
    return out;
  },
};

/** The scores of a file set, with the classification and priorities they were made under. */
const byFileSet = new WeakMap<readonly CandidateFile[], { categories: ReadonlyMap<string, FileCategory>; key: string; scores: Map<string, FactorScore> }>();
