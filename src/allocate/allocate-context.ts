import { plural } from '../util/format.js';
import type { AllocatedFile, ExcludedFile, FactorName, RunContext, TierAllocation, TierName } from '../types.js';
import type { AllocateInput, AllocateResult, AllocateStage } from '../stages.js';
import { FACTOR_NAMES } from '../types.js';
import { TIER_NAMES } from '../config/schema.js';
import { renderHeader, structureCost } from '../assemble/render.js';
import { worstCaseHeader } from '../assemble/boot-header.js';
import { getOutputFormat } from '../assemble/formats/index.js';
import { selectHistoryWindow, type HistoryItem } from '../assemble/history-window.js';
import { assignTiers, comparePaths, FILE_TIERS, startingLevels, type FileTier } from './tiers.js';
import { buildCandidate, isCandidate, type Candidate } from './candidates.js';
import { planTierBudgets } from './budgets.js';
import { chosenCost, fmt, type LevelAlgorithm } from './overflow.js';
import { upgradeWithSpare } from './upgrade-spare.js';
import { allocationValue, fitAllTiers } from './fit-tiers.js';
import { fitRender, type HeaderMode, type Placement, type RepairMode } from './fit-render.js';

/** A truncated file keeping less than this share of its tokens is "truncated significantly" (spec 001 section 9). */
const SIGNIFICANT_TRUNCATION = 0.5;

/**
 * The allocate + render stage. Pure: scored files, their levels and the history in; tiers,
 * exclusions, overflow facts and the rendered context out. Steps:
 * 1. tiers by thresholds (mentioned files primary; calibration guard);
 * 2. every file's options from its tier's starting level down, costed as exact rendered blocks;
 * 3. the boot header reserved first, tier budgets by percentage, unused budget flowing on;
 * 4. each over-budget tier fitted by the overflow strategy (optimiser or greedy loop);
 * 5. the history window from the newest message back;
 * 6. rendering, counted whole, repaired until count(rendered) <= available.
 */
export const allocateContext: AllocateStage = (input: AllocateInput, ctx: RunContext): AllocateResult => {
  const { config, tokenizer } = ctx;
  const { plan, format } = input;
  const budgetConfig = config.budget_config;
  getOutputFormat(format);
  const warnings: string[] = [];

  const tiering = input.tiering ?? assignTiers(input.scored, config);
  warnings.push(...tiering.notes);
  const starts = startingLevels(config);
  const excluded: ExcludedFile[] = [...tiering.excluded];
  const candidates: Record<FileTier, Candidate[]> = { primary: [], supporting: [], reference: [] };
  let withoutLevels = 0;
  for (const tier of FILE_TIERS) {
    for (const tiered of tiering.tiers[tier]) {
      const built = buildCandidate(tiered, input.levels.get(tiered.file.path), starts[tier], { format, tokenizer });
      if (isCandidate(built)) candidates[tier].push(built);
      else {
        excluded.push(built);
        withoutLevels++;
      }
    }
  }
  if (withoutLevels > 0) warnings.push(`${plural(withoutLevels, 'file')} without content levels excluded`);

  const capBudget = plan.tiers.history;
  const wholeHistory = selectHistoryWindow(input.history, { budget: Number.POSITIVE_INFINITY, capBudget, format, tokenizer });
  const demand = {
    ...(Object.fromEntries(FILE_TIERS.map((t) => [t, candidates[t].reduce((sum, c) => sum + c.options[0]!.cost, 0)])) as Record<FileTier, number>),
    history: wholeHistory.demand,
  };
  let requestedTokens = demand.primary + demand.supporting + demand.reference;

  const candidateCount = FILE_TIERS.reduce((n, t) => n + candidates[t].length, 0);
  const worst = worstCaseHeader(
    { root: input.root, task: input.task, available: plan.available },
    { files: { primary: candidateCount, supporting: candidateCount, reference: candidateCount, history: 0 }, messages: input.history.length, excluded: excluded.length + candidateCount },
  );
  const reserve = tokenizer.count(renderHeader(worst, format)) + structureCost(format, tokenizer);
  const headerMode: HeaderMode = reserve <= plan.available ? 'full' : 'minimal';
  if (headerMode === 'minimal') {
    warnings.push(`the budget of ${fmt(plan.available)} tokens cannot hold the boot header (${fmt(reserve)} tokens) and any file: rendered a minimal header only; raise --max-tokens`);
  }

  const budgets = planTierBudgets({
    nominal: plan.tiers,
    demand,
    available: plan.available,
    reserve: headerMode === 'full' ? reserve : plan.available,
    // A one-pool plan (budget_config.enabled false) has to flow.
    flowUnused: budgetConfig.flow_unused || plan.onePool,
    flowOrder: budgetConfig.flow_order,
  });

  ctx.reporter.debug(
    `allocate: reserve ${reserve} tokens; own budgets ${TIER_NAMES.map((t) => `${t} ${budgets.own[t]}`).join(', ')}; pool ${budgets.pool}; constrained ${budgets.constrained.join(', ') || 'none'}`,
  );
  const fitTiers = (algorithm: LevelAlgorithm) =>
    fitAllTiers({ candidates, budgets, wholeHistory: wholeHistory.kept, input, ctx, algorithm, capBudget });
  let tierFit = fitTiers(budgetConfig.strategy);
  const choosesLevels = budgetConfig.overflow_strategy === 'summarize' || budgetConfig.overflow_strategy === 'prioritize';
  if (budgetConfig.strategy === 'optimal' && choosesLevels && FILE_TIERS.some((t) => budgets.constrained.includes(t))) {
    // Per tier the optimiser already beats the greedy loop; across tiers, leftover budget
    // flows differently, so the whole allocation is compared too and the better one kept.
    const greedy = fitTiers('greedy');
    const optimalValue = allocationValue(tierFit.outcomes);
    const greedyValue = allocationValue(greedy.outcomes);
    ctx.reporter.debug(`allocate: value optimal ${optimalValue.toFixed(3)}, greedy ${greedyValue.toFixed(3)}`);
    if (greedyValue > optimalValue + 1e-12) tierFit = greedy;
  }
  const { tierBudget } = tierFit;
  const historyItems = tierFit.history;
  let { outcomes } = tierFit;
  let upgraded = new Set<string>();
  if (budgetConfig.upgrade_spare && headerMode === 'full') {
    const used = FILE_TIERS.reduce((sum, t) => sum + chosenCost(outcomes[t].candidates, outcomes[t].choice), 0) + historyItems.reduce((sum, h) => sum + h.cost, 0);
    const tiered = new Map(FILE_TIERS.flatMap((t) => tiering.tiers[t].map((f) => [f.file.path, f] as const)));
    const lifted = upgradeWithSpare({ outcomes, tiered, levels: input.levels, spare: plan.available - reserve - used, format, tokenizer });
    outcomes = lifted.outcomes;
    upgraded = new Set(lifted.upgraded);
    requestedTokens += lifted.extraRequested;
    // Like flowed budget, a tier's recorded budget is what it was given: at least what it holds.
    for (const t of FILE_TIERS) tierBudget[t] = Math.max(tierBudget[t], chosenCost(outcomes[t].candidates, outcomes[t].choice));
    if (upgraded.size > 0) ctx.reporter.debug(`allocate: spare budget lifted ${upgraded.size} files above their starting level`);
  }

  const repairMode: RepairMode = budgetConfig.overflow_strategy === 'error' ? 'fail' : budgetConfig.overflow_strategy === 'prioritize' ? 'drop' : 'degrade';
  const fitted = fitRender({
    placements: Object.fromEntries(
      FILE_TIERS.map((t) => [t, outcomes[t].candidates.map((candidate, i) => ({ candidate, choice: outcomes[t].choice[i]! }))]),
    ) as Record<FileTier, Placement[]>,
    history: historyItems,
    header: { root: input.root, task: input.task, available: plan.available, excludedBefore: excluded.length },
    headerMode,
    format,
    tokenizer,
    available: plan.available,
    mode: repairMode,
  });

  const tiers = {} as Record<TierName, TierAllocation>;
  const affected: string[] = [];
  let budgetDropped = 0;
  let truncated = 0;
  let significantlyTruncated = 0;
  for (const tier of FILE_TIERS) {
    const files: AllocatedFile[] = [];
    for (const { candidate, choice } of fitted.placements[tier]) {
      if (choice < 0) {
        budgetDropped++;
        affected.push(candidate.path);
        excluded.push({
          path: candidate.path,
          relevance_score: candidate.relevance,
          reason:
            headerMode === 'full'
              ? `over budget: dropped from the ${tier} tier (budget ${fmt(tierBudget[tier])} tokens, needed ${fmt(candidate.options[0]!.cost)} at ${candidate.options[0]!.level})`
              : `over budget: ${fmt(plan.available)} available tokens leave no room after the boot header`,
        });
        continue;
      }
      const option = candidate.options[choice]!;
      if ((choice > 0 && !upgraded.has(candidate.path)) || option.truncated) affected.push(candidate.path);
      if (option.truncated) {
        truncated++;
        if (option.contentTokens < (option.originalTokens ?? 0) * SIGNIFICANT_TRUNCATION) significantlyTruncated++;
      }
      files.push({
        path: candidate.path,
        tier,
        level: option.level,
        tokens: option.cost,
        relevance_score: candidate.relevance,
        factors: candidate.factors,
        content: option.content,
        ...(option.truncated ? { truncated: true } : {}),
      });
    }
    tiers[tier] = { budget: tierBudget[tier], total_tokens: files.reduce((sum, f) => sum + f.tokens, 0), files };
  }
  const historyFiles = fitted.history.map(historyFile);
  tiers.history = { budget: tierBudget.history, total_tokens: historyFiles.reduce((sum, f) => sum + f.tokens, 0), files: historyFiles };

  if (budgetDropped > 0) warnings.push(`${plural(budgetDropped, 'file')} excluded due to budget`);
  // Spec 001 section 9 wording: "1 file truncated significantly" (under half its tokens kept).
  if (significantlyTruncated > 0) warnings.push(`${plural(significantlyTruncated, 'file')} truncated significantly`);
  if (truncated > significantlyTruncated) warnings.push(`${plural(truncated - significantlyTruncated, 'file')} truncated`);
  warnings.push(...historyWarnings(input.history.length, fitted.history, wholeHistory.invalid));
  if (fitted.headerMode === 'none') warnings.push(`the budget of ${fmt(plan.available)} tokens cannot hold even a minimal header: the rendered context is empty`);

  const filesAffected = [...new Set(affected)].sort(comparePaths);
  return {
    tiers: Object.fromEntries(TIER_NAMES.map((t) => [t, tiers[t]])) as Record<TierName, TierAllocation>,
    excluded: excluded.sort((a, b) => comparePaths(a.path, b.path)),
    overflow: {
      occurred: filesAffected.length > 0,
      strategy_applied: filesAffected.length > 0 ? budgetConfig.overflow_strategy : null,
      files_affected: filesAffected,
    },
    warnings,
    rendered: fitted.rendered,
    renderedTokens: fitted.tokens,
    requestedTokens,
  };
};

const ZERO_FACTORS = Object.fromEntries(FACTOR_NAMES.map((name) => [name, 0])) as Record<FactorName, number>;

/** History messages appear in the record as `history:<index>:<role>` at level full, relevance 1. */
function historyFile(item: HistoryItem): AllocatedFile {
  return {
    path: `history:${item.index}:${item.role}`,
    tier: 'history',
    level: 'full',
    tokens: item.cost,
    relevance_score: 1,
    factors: { ...ZERO_FACTORS },
    content: item.content,
    ...(item.truncated ? { truncated: true } : {}),
  };
}

function historyWarnings(total: number, kept: HistoryItem[], invalid: number): string[] {
  const warnings: string[] = [];
  if (invalid > 0) warnings.push(`${invalid} history message${invalid === 1 ? '' : 's'} dropped for invalid tool-call ordering (calls without results or results without calls)`);
  const left = total - invalid - kept.length;
  if (left > 0) warnings.push(`${left} older history message${left === 1 ? '' : 's'} left out of the window`);
  const capped = kept.filter((h) => h.truncated).length;
  if (capped > 0) warnings.push(`${capped} history message${capped === 1 ? '' : 's'} capped (tool output or long message)`);
  return warnings;
}

