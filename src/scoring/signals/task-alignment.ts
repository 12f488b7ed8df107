import type { FactorScore, FileCategory, Signal } from '../../types.js';
import {
  addEvidence,
  boostAlignment,
  calibrateSemantic,
  categoryShares,
  fuseAlignment,
  keywordAlignment,
  positionsOf,
  promoteNamed,
  shapeAlignment,
  valuesOf,
  weighByCategory,
  type PathValues,
} from '../alignment.js';
import { matchDefinitions } from '../definitions.js';
import { addCoChangeEvidence } from '../co-change.js';
import { addPairedEvidence, pairTestsToSources } from '../test-pairs.js';
import { round6 } from '../numbers.js';
import type { SemanticAlignment } from '../semantic-adapter.js';
import { weakMemo, weakMemoWith } from '../../util/weak-memo.js';
import { candidatePaths } from '../task-facts.js';

/** What the alignment signal reports back to the score stage about the semantic side. */
export interface SemanticOutcome {
  modelId: string | null;
}

/**
 * task_alignment: keyword (BM25), semantic (embeddings) or hybrid, per
 * relevance_scoring.scoring_method. Without an embedder (none configured, model missing,
 * runtime failure) it falls back to keyword and says so in ctx.warnings.
 */
export interface TaskAlignmentOptions {
  /** Semantic alignment bound to an embedder; null/absent = keyword only. */
  semantic?: SemanticAlignment | null;
  /** Receives the embedding model id when semantic alignment ran. */
  outcome?: SemanticOutcome;
  /** The missing embedder was already explained in ctx.warnings (by the score stage). */
  fallbackNoted?: boolean;
}

export function createTaskAlignmentSignal(options: TaskAlignmentOptions = {}): Signal {
  return {
    name: 'task_alignment',
    async score(input, ctx) {
      const method = ctx.config.relevance_scoring.scoring_method;
      const paths = candidatePaths(input.files);
      const positions = positionsIn(paths);
      const keyword = keywordAlignment(input.facts.terms, input.files, input.derived, input.longLived === true);
      let semanticRaw: Map<string, number> | null = null;
      if (method !== 'keyword') semanticRaw = await runSemantic(options, input, ctx);
      const semantic = semanticRaw ? calibrateSemantic(semanticRaw, paths) : null;

      const keywordValues = valuesOf(keyword.scores, positions, paths.length);
      let combined: PathValues;
      if (semantic === null) combined = keywordValues;
      else if (method === 'semantic') combined = fuseAlignment(keywordValues, semantic, 0);
      else combined = boostAlignment(keywordValues, semantic);
      const named = input.facts.named;
      const framed = input.facts.framed;
      const definitions = matchDefinitions(input.facts.identifiers, input.files);
      const tested = addPairedEvidence(addEvidence(combined, definitions.scores, framed, positions), testPairsOf(input.categories), positions);
      const coChanged = addCoChangeEvidence(tested.scores, paths, positions, input.git.coChange, ctx.config.relevance_scoring.co_change.share);
      const shares = sharesOf(paths, input.categories, JSON.stringify(ctx.config.relevance_scoring.factors.file_type.priorities));
      const final = weighByCategory(promoteNamed(shapeAlignment(coChanged.scores), named, positions), shares, named, positions);

      const out = new Map<string, FactorScore>();
      const evidence: AlignmentEvidence = { keyword, semanticRaw, definitions: definitions.names, framed, tests: tested.lifted, partners: coChanged.lifted, named };
      const rawOf = semanticRaw && method === 'semantic' ? semanticRaw : keyword.raw;
      for (let i = 0; i < paths.length; i++) {
        const path = paths[i]!;
        out.set(path, new AlignmentScore(round6(rawOf.get(path) ?? 0), round6(final[i]!), path, evidence));
      }
      return out;
    },
  };
}

/*
 * What does not change from one query of a warm index to the next unless the paths do: the
 * paths' positions, kept per path list (candidatePaths); test-to-source pairs, per
 * classification (the same categories object while the paths stay the same); category shares,
 * per paths, classification and priorities.
 */
const positionsIn = weakMemo((of: readonly string[]) => positionsOf(of));
const testPairsOf = weakMemo((categories: ReadonlyMap<string, FileCategory>) => pairTestsToSources(categories));
/** Category shares, per paths, classification and priorities (as JSON: compared by content). */
const sharesOf = weakMemoWith((of: readonly string[], categories: ReadonlyMap<string, FileCategory>, priorities: string) => categoryShares(of, categories, JSON.parse(priorities)));

/** What a run's alignment found, shared by its files' scores for their explanations. */
interface AlignmentEvidence {
  keyword: { raw: ReadonlyMap<string, number>; ranks: ReadonlyMap<string, number> };
  semanticRaw: ReadonlyMap<string, number> | null;
  definitions: ReadonlyMap<string, readonly string[]>;
  framed: ReadonlySet<string>;
  tests: ReadonlyMap<string, string>;
  partners: ReadonlyMap<string, string>;
  named: ReadonlySet<string>;
}

/** A file's task alignment; its explanation (the evidence for it) is written when read: the score stage makes one per file per run. */
class AlignmentScore implements FactorScore {
  readonly #path: string;
  readonly #evidence: AlignmentEvidence;

  constructor(
    readonly raw: number,
    readonly score: number,
    path: string,
    evidence: AlignmentEvidence,
  ) {
    this.#path = path;
    this.#evidence = evidence;
  }

  get detail(): string {
    const path = this.#path;
    const { keyword, semanticRaw, definitions, framed, tests, partners, named } = this.#evidence;
    const bm25 = keyword.raw.get(path) ?? 0;
    const parts = [`bm25 ${bm25.toFixed(2)}${keyword.ranks.has(path) ? ` (rank ${keyword.ranks.get(path)}/${keyword.raw.size})` : ''}`];
    if (semanticRaw) parts.push(`semantic ${(semanticRaw.get(path) ?? 0).toFixed(3)}`);
    const defines = definitions.get(path);
    if (defines) parts.push(`defines ${defines.slice(0, 3).join(', ')}${defines.length > 3 ? ` and ${defines.length - 3} more` : ''}`);
    if (framed.has(path)) parts.push('in a stack frame of the task');
    const test = tests.get(path);
    if (test !== undefined) parts.push(`its test ${test} matches`);
    const partner = partners.get(path);
    if (partner !== undefined) parts.push(`changes together with ${partner}`);
    if (named.has(path)) parts.push('named in the task');
    return parts.join('; ');
  }
}

async function runSemantic(
  options: TaskAlignmentOptions,
  input: Parameters<Signal['score']>[0],
  ctx: Parameters<Signal['score']>[1],
): Promise<Map<string, number> | null> {
  const method = ctx.config.relevance_scoring.scoring_method;
  if (!options.semantic) {
    if (options.fallbackNoted !== true) ctx.warnings.push(`task_alignment: scoring_method is ${method} but no embedding model is available; fell back to keyword (BM25) alignment`);
    return null;
  }
  try {
    const result = await options.semantic({ task: input.task, files: input.files }, ctx);
    if (options.outcome) options.outcome.modelId = result.modelId;
    return result.scores;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    ctx.warnings.push(`task_alignment: semantic alignment failed (${reason}); fell back to keyword (BM25) alignment`);
    return null;
  }
}
