import type { FactorScore, Signal } from '../../types.js';

/** file_type: the configured priority of the file's category (classified once per run). */
export const fileTypeSignal: Signal = {
  name: 'file_type',
  score(input, ctx) {
    const priorities = ctx.config.relevance_scoring.factors.file_type.priorities;
    const out = new Map<string, FactorScore>();
    for (const f of input.files) {
      const category = input.categories.get(f.path) ?? 'documentation';
      out.set(f.path, { raw: priorities[category], score: priorities[category], detail: category });
    }
    return out;
  },
};
