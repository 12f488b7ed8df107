import type { FactorName, FileCategory, Level, LevelContent, ScoredFile } from '../../src/types.js';
import type { Candidate, LevelOption } from '../../src/allocate/candidates.js';
import type { AllocateInput, BudgetPlan, HistoryMessage, RenderFormat } from '../../src/stages.js';
import type { Tokenizer } from '../../src/tokenize/tokenizer.js';
import { FACTOR_NAMES } from '../../src/types.js';
import { defaultConfig, type Config } from '../../src/config/schema.js';
import { planBudget } from '../../src/allocate/budget-plan.js';

/** A scored file as data: relevance, optional task_alignment, mention flag. */
export function scored(path: string, relevance: number, extra: { alignment?: number; mentioned?: boolean; category?: FileCategory } = {}): ScoredFile {
  const factors = Object.fromEntries(FACTOR_NAMES.map((name) => [name, { raw: 0, score: 0 }])) as Record<FactorName, { raw: number; score: number }>;
  factors.task_alignment = { raw: extra.alignment ?? relevance, score: extra.alignment ?? relevance };
  return { path, category: extra.category ?? 'source_code', factors, relevance, mentionedInTask: extra.mentioned ?? false };
}

/** Levels of a file whose full text is `lines` lines; lower levels shrink by roughly 3x each. */
export function levelsFor(path: string, lines: number, tokenizer: Tokenizer, omit: Level[] = []): LevelContent[] {
  const full = Array.from({ length: lines }, (_, k) => `export const value${k} = compute(${k}, "${path}");`).join('\n');
  const detailed = full.split('\n').filter((_, k) => k % 3 === 0).join('\n');
  const summary = `${path}: ${lines} constants computed from their index.`;
  const stub = `${path} (source_code, ${lines} lines)`;
  const all: [Level, string][] = [['full', full], ['detailed', detailed], ['summary', summary], ['stub', stub]];
  return all.filter(([level]) => !omit.includes(level)).map(([level, content]) => ({ level, content, tokens: tokenizer.count(content) }));
}

/** A budget plan from a config with the given max_tokens and no reserves. */
export function planFor(maxTokens: number, config: Config = defaultConfig()): BudgetPlan {
  return planBudget(config, { available: maxTokens, reserved: { output: 0, system: 0 } });
}

/** A config with the given budget and no reserves. Spare-budget upgrades are off unless asked, so tests see the tier mechanics alone. */
export function withBudget(config: Config, maxTokens: number, overrides: Partial<Config['budget_config']> = {}): Config {
  return {
    ...config,
    budget_config: {
      ...config.budget_config,
      upgrade_spare: false,
      ...overrides,
      total_budget: { max_tokens: maxTokens, reserve_for_output: 0, reserve_for_system: 0 },
    },
  };
}

export function allocateInput(
  files: { file: ScoredFile; levels: LevelContent[] }[],
  plan: BudgetPlan,
  extra: { history?: HistoryMessage[]; format?: RenderFormat; task?: string } = {},
): AllocateInput {
  return {
    task: extra.task ?? 'fix the retry loop',
    root: '/repo',
    scored: files.map((f) => f.file),
    levels: new Map(files.map((f) => [f.file.path, f.levels])),
    history: extra.history ?? [],
    plan,
    format: extra.format ?? 'xml',
  };
}

/** A candidate whose levels cost the given tokens (full, detailed, summary, stub). */
export function fakeCandidate(path: string, weight: number, costs: Partial<Record<Level, number>>): Candidate {
  const options: LevelOption[] = (Object.entries(costs) as [Level, number][]).map(([level, cost]) => ({ level, content: level, contentTokens: cost, block: level, cost }));
  return { path, tier: 'primary', relevance: weight, weight, category: 'source_code', factors: { task_alignment: 0, recency: 0, mention_density: 0, dependency_depth: 0, file_type: 0 }, options };
}

