import type { FactorScore, Signal } from '../../types.js';
import { buildImportGraph, distancesFrom, updateImportGraph, type ImportGraph } from '../import-graph/index.js';
import { round6 } from '../numbers.js';

/**
 * dependency_depth: distance in the import graph (imports and importers alike) from the seed
 * set: the task's @-mentioned files plus its best-aligned files (the SEED_MAX best with at
 * least SEED_MIN_ALIGNMENT, and every file at alignment 1). score = 1 - d / (max_depth + 1): a seed is 1, with max_depth 3
 * its direct neighbours 0.75, then 0.5, 0.25, and 0 beyond max_depth or when unreachable.
 * Runs after task_alignment in the registry and reads it from `prior`.
 */
export const SEED_MAX = 5;
export const SEED_MIN_ALIGNMENT = 0.6;

export const dependencyDepthSignal: Signal = {
  name: 'dependency_depth',
  score(input, ctx) {
    const maxDepth = ctx.config.relevance_scoring.factors.dependency_depth.max_depth;
    const seeds = seedFiles(input);
    // The graph does not depend on the task: a warm index builds it once, then updates it from the
    // changed files; a one-shot run takes the graph the last run kept for the same files.
    const build = (): ImportGraph => {
      const kept = input.importGraphCache?.load(input.files);
      if (kept) return kept;
      const built = buildImportGraph(input.files);
      input.importGraphCache?.save(input.files, built);
      return built;
    };
    const graph = input.derived ? input.derived('import-graph', build, (previous: ImportGraph, changes) => updateImportGraph(previous, input.files, changes)) : build();
    ctx.warnings.push(...graph.warnings);
    const distance = distancesFrom(seeds, graph, maxDepth);
    const out = new Map<string, FactorScore>();
    const run = { graph, seeded: seeds.length > 0, maxDepth };
    for (const { path } of input.files) {
      const d = distance.get(path);
      out.set(path, d === undefined ? new DepthScore(-1, 0, path, run) : new DepthScore(d, round6(1 - d / (maxDepth + 1)), path, run));
    }
    return out;
  },
};

/** A file's dependency-depth score (raw: its distance, -1 when none); its explanation is written when read. */
class DepthScore implements FactorScore {
  readonly #path: string;
  readonly #run: { graph: ImportGraph; seeded: boolean; maxDepth: number };

  constructor(
    readonly raw: number,
    readonly score: number,
    path: string,
    run: { graph: ImportGraph; seeded: boolean; maxDepth: number },
  ) {
    this.#path = path;
    this.#run = run;
  }

  get detail(): string {
    const { graph, seeded, maxDepth } = this.#run;
    const edges = (graph.imports.get(this.#path)?.length ?? 0) + (graph.importers.get(this.#path)?.length ?? 0);
    if (this.raw < 0) return `${seeded ? `not within ${maxDepth} imports of a seed` : 'no seed file (nothing aligned or mentioned)'}; ${edges} import edges`;
    return `${this.raw === 0 ? 'seed' : `depth ${this.raw} from a seed`}; ${edges} import edges`;
  }
}

/** The task's @-mentioned files and its top-aligned files, sorted. */
export function seedFiles(input: Parameters<Signal['score']>[0]): string[] {
  const seeds = new Set(input.facts.mentioned);
  const aligned: Array<[string, number]> = [];
  input.prior.get('task_alignment')?.forEach(({ score }, path) => {
    if (score >= SEED_MIN_ALIGNMENT) aligned.push([path, score]);
  });
  aligned.sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1));
  // every full match (alignment 1) is a seed even past SEED_MAX: ties must not be cut by path order
  for (const [i, [p, a]] of aligned.entries()) if (i < SEED_MAX || a >= 1) seeds.add(p);
  return [...seeds].sort();
}
