import type { ExcludedFile, FactorName, FileCategory, Level, LevelContent } from '../types.js';
import type { RenderFormat } from '../stages.js';
import type { Tokenizer } from '../tokenize/tokenizer.js';
import { FACTOR_NAMES } from '../types.js';
import { LEVELS } from '../config/schema.js';
import { fileBlockCost, fileBlockCosts } from '../assemble/block-cost.js';
import type { FileTier, TieredFile } from './tiers.js';

/** One level of one file as it would be rendered: its block and that block's exact cost. */
export interface LevelOption {
  level: Level;
  content: string;
  contentTokens: number;
  block: string;
  /** Tokens of the block plus the format's separator, by the run's tokenizer. */
  cost: number;
  truncated?: boolean;
  /** Content tokens before truncation (truncated options only). */
  originalTokens?: number;
}

/** A file competing for its tier's budget. */
export interface Candidate {
  path: string;
  tier: FileTier;
  relevance: number;
  weight: number;
  category: FileCategory;
  factors: Record<FactorName, number>;
  /** The starting level first, then every lower level the file has, down to stub. */
  options: LevelOption[];
}

/**
 * Usefulness of a level to the agent, the value side of the knapsack: value = weight x usefulness.
 * A stub is an existence marker (worth a little: the agent learns the file exists), a summary a
 * paragraph, detailed the structure with signatures, full everything.
 */
export const LEVEL_USEFULNESS: Readonly<Record<Level, number>> = { full: 1, detailed: 0.6, summary: 0.3, stub: 0.05 };

/**
 * A tiered file's options from its starting level down. A level missing from `levels` (or
 * repeating the level above, as the levels stage does for small files) was not smaller than
 * the level above it, so when the starting level itself is missing the nearest level above
 * stands in (it is no bigger). Returns an excluded entry when no level exists.
 */
export function buildCandidate(
  tiered: TieredFile,
  levels: readonly LevelContent[] | undefined,
  start: Level,
  options: { format: RenderFormat; tokenizer: Tokenizer },
): Candidate | ExcludedFile {
  return buildCandidates([{ tiered, levels, start }], options)[0]!;
}

/** buildCandidate for many files, their blocks counted together (fileBlockCosts: a few batches, not one per block). */
export function buildCandidates(
  files: ReadonlyArray<{ tiered: TieredFile; levels: readonly LevelContent[] | undefined; start: Level }>,
  options: { format: RenderFormat; tokenizer: Tokenizer },
): Array<Candidate | ExcludedFile> {
  const ladders = files.map(({ tiered, levels, start }) => ladder(tiered, levels, start));
  const blocks = ladders.flatMap((rungs, i) => (rungs === null ? [] : rungs.map((l) => ({ path: files[i]!.tiered.file.path, level: l.level, content: l.content, tokens: l.tokens }))));
  const costs = fileBlockCosts(blocks, options.format, options.tokenizer);
  let at = 0;
  return files.map(({ tiered }, i) => {
    const { file } = tiered;
    const rungs = ladders[i]!;
    if (rungs === null) return { path: file.path, relevance_score: file.relevance, reason: 'no content levels were produced for this file' };
    return {
      path: file.path,
      tier: tiered.tier,
      relevance: file.relevance,
      weight: tiered.weight,
      category: file.category,
      factors: Object.fromEntries(FACTOR_NAMES.map((name) => [name, file.factors[name].score])) as Record<FactorName, number>,
      options: rungs.map((l) => {
        const { block, cost } = costs[at++]!;
        return { level: l.level, content: l.content, contentTokens: l.tokens, block, cost };
      }),
    };
  });
}

/** The levels a file offers from its starting level down (see buildCandidate); null when it has none. */
function ladder(tiered: TieredFile, levels: readonly LevelContent[] | undefined, start: Level): LevelContent[] | null {
  // A level that repeats the content of the level above it is that level: label it truthfully.
  const present: LevelContent[] = [];
  for (const level of LEVELS) {
    const found = levels?.find((l) => l.level === level);
    if (found && found.content !== present[present.length - 1]?.content) present.push(found);
  }
  if (present.length === 0) return null;
  const startRank = LEVELS.indexOf(start);
  let first = present.findIndex((l) => LEVELS.indexOf(l.level) >= startRank);
  if (first === -1) first = present.length - 1;
  else if (LEVELS.indexOf(present[first]!.level) > startRank && first > 0) first -= 1;
  return present.slice(first);
}

/** Render one level of a file and count its block exactly (contentTokens must be exact). */
export function levelOption(
  path: string,
  level: Level,
  content: string,
  contentTokens: number,
  options: { format: RenderFormat; tokenizer: Tokenizer; truncated?: boolean; originalTokens?: number },
): LevelOption {
  const { block, cost } = fileBlockCost({ path, level, content, tokens: contentTokens, ...(options.truncated ? { truncated: true } : {}) }, options.format, options.tokenizer);
  return {
    level,
    content,
    contentTokens,
    block,
    cost,
    ...(options.truncated ? { truncated: true, originalTokens: options.originalTokens ?? contentTokens } : {}),
  };
}

/** value of a candidate at an option index (-1 = dropped). */
export function optionValue(candidate: Candidate, index: number): number {
  if (index < 0) return 0;
  const option = candidate.options[index]!;
  const kept = option.truncated && option.originalTokens ? option.contentTokens / option.originalTokens : 1;
  return candidate.weight * LEVEL_USEFULNESS[option.level] * kept;
}

export function isCandidate(value: Candidate | ExcludedFile): value is Candidate {
  return 'options' in value;
}
