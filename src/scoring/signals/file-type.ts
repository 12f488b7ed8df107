import type { FactorScore, FileCategory, Signal } from '../../types.js';

/** file_type: the configured priority of the file's category (classified once per run). */
export const fileTypeSignal: Signal = {
  name: 'file_type',
  score(input, ctx) {
    const priorities = ctx.config.relevance_scoring.factors.file_type.priorities;
    const out = new Map<string, FactorScore>();
    // one score per category, shared by its files (scores are never changed once made)
    const byCategory = new Map<FileCategory, FactorScore>();
    for (const f of input.files) {
      const category = input.categories.get(f.path) ?? 'documentation';
      let score = byCategory.get(category);
      if (score === undefined) byCategory.set(category, (score = { raw: priorities[category], score: priorities[category], detail: category }));
      out.set(f.path, score);
    }
    return out;
  },
};
