import type { FactorScore, Signal } from '../../types.js';
import { addEvidence, CATEGORY_SHARPNESS, weighByCategory, calibrateSemantic, boostAlignment, fuseAlignment, keywordAlignment, promoteNamed, shapeAlignment } from '../alignment.js';
import { matchDefinitions } from '../definitions.js';
import { addCoChangeEvidence } from '../co-change.js';
import { addPairedEvidence, pairTestsToSources } from '../test-pairs.js';
import { round6 } from '../numbers.js';
import type { SemanticAlignment } from '../semantic-adapter.js';

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
      const paths = input.files.map((f) => f.path);
      const keyword = keywordAlignment(input.facts.terms, input.files, input.derived);
      let semanticRaw: Map<string, number> | null = null;
      if (method !== 'keyword') semanticRaw = await runSemantic(options, input, ctx);
      const semantic = semanticRaw ? calibrateSemantic(semanticRaw, paths) : null;

      let combined: Map<string, number>;
      if (semantic === null) combined = keyword.scores;
      else if (method === 'semantic') combined = fuseAlignment(keyword.scores, semantic, paths, 0);
      else combined = boostAlignment(keyword.scores, semantic, paths);
      const named = input.facts.named;
      const framed = input.facts.framed;
      const definitions = matchDefinitions(input.facts.identifiers, input.files);
      const tested = addPairedEvidence(addEvidence(combined, definitions.scores, framed, paths), pairTestsToSources(input.categories));
      const coChanged = addCoChangeEvidence(tested.scores, input.git.coChange, ctx.config.relevance_scoring.co_change.share);
      const paired = { scores: coChanged.scores, lifted: tested.lifted };
      const priorities = ctx.config.relevance_scoring.factors.file_type.priorities;
      const share = (path: string) => priorities[input.categories.get(path) ?? 'documentation'] ** CATEGORY_SHARPNESS;
      const final = weighByCategory(promoteNamed(shapeAlignment(paired.scores), named, paths), share, named);

      const out = new Map<string, FactorScore>();
      const evidence: AlignmentEvidence = { keyword, semanticRaw, definitions: definitions.names, framed, tests: paired.lifted, partners: coChanged.lifted, named };
      for (const path of paths) {
        const bm25 = keyword.raw.get(path) ?? 0;
        const raw = semanticRaw && method === 'semantic' ? (semanticRaw.get(path) ?? 0) : bm25;
        out.set(path, new AlignmentScore(round6(raw), round6(final.get(path) ?? 0), path, evidence));
      }
      return out;
    },
  };
}

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
