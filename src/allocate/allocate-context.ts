import { plural } from '../util/format.js';
import type { AllocatedFile, ExcludedFile, FactorName, Level, RunContext, TierAllocation, TierName } from '../types.js';
import type { AllocateInput, AllocateResult, AllocateStage } from '../stages.js';
import { FACTOR_NAMES } from '../types.js';
import { LEVELS, TIER_NAMES, type Config } from '../config/schema.js';
import { renderHeader, structureCost } from '../assemble/render.js';
import { worstCaseHeader } from '../assemble/boot-header.js';
import { getOutputFormat } from '../assemble/formats/index.js';
import { selectHistoryWindow, type HistoryItem } from '../assemble/history-window.js';
import { assignTiers, comparePaths, FILE_TIERS, startingLevels, type FileTier } from './tiers.js';
import { buildCandidates, isCandidate, type Candidate } from './candidates.js';
import { planTierBudgets } from './budgets.js';
import { allocateRanked, chosenCost, fmt, type TierOutcome } from './overflow.js';
import { upgradeWithSpare } from './upgrade-spare.js';
import { fitAllTiers } from './fit-tiers.js';
import { slotOption, type MonotoneValues } from './monotone.js';
import { fitRender, type HeaderMode, type Placement, type RepairMode } from './fit-render.js';
import { isSignificantCut } from './cut-to-fit.js';


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
  // Summarize and prioritize allocate over the whole ranking (monotone, see monotone.ts), so
  // every file offers its full ladder; truncate and error keep the tiers' starting levels.
  const monotone = budgetConfig.overflow_strategy === 'summarize' || budgetConfig.overflow_strategy === 'prioritize';
  // Without upgrade_spare no file goes above its tier's starting level.
  const ladderTop = (tier: FileTier): Level => (monotone && budgetConfig.upgrade_spare ? 'full' : starts[tier]);
  const excluded: ExcludedFile[] = [...tiering.excluded];
  const candidates: Record<FileTier, Candidate[]> = { primary: [], supporting: [], reference: [] };
  let withoutLevels = 0;
  // every tier's files at once: their blocks are counted in a few batches
  const tieredFiles = FILE_TIERS.flatMap((tier) => tiering.tiers[tier].map((tiered) => ({ tier, tiered, levels: input.levels.get(tiered.file.path), start: ladderTop(tier) })));
  buildCandidates(tieredFiles, { format, tokenizer }).forEach((built, i) => {
    if (isCandidate(built)) candidates[tieredFiles[i]!.tier].push(built);
    else {
      excluded.push(built);
      withoutLevels++;
    }
  });
  if (withoutLevels > 0) warnings.push(`${plural(withoutLevels, 'file')} without content levels excluded`);
  const startCost = (c: Candidate) => c.options[slotOption(c, LEVELS.indexOf(starts[c.tier]))]!.cost;

  const capBudget = plan.tiers.history;
  const wholeHistory = selectHistoryWindow(input.history, { budget: Number.POSITIVE_INFINITY, capBudget, format, tokenizer });
  const demand = {
    ...(Object.fromEntries(FILE_TIERS.map((t) => [t, candidates[t].reduce((sum, c) => sum + startCost(c), 0)])) as Record<FileTier, number>),
    history: wholeHistory.demand,
  };
  let requestedTokens = demand.primary + demand.supporting + demand.reference;

  const candidateCount = FILE_TIERS.reduce((n, t) => n + candidates[t].length, 0);
  const worst = worstCaseHeader(
    { root: input.root, task: input.task, available: plan.available, ...(input.boot ? { boot: input.boot } : {}) },
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
  let tierBudget: Record<TierName, number>;
  let historyItems: HistoryItem[];
  let outcomes: Record<FileTier, TierOutcome>;
  let upgraded = new Set<string>();
  const values = monotoneValues(config);
  // Tiers are a split of the budget, not a reason to drop the best file: when unused budget may
  // flow, the history keeps its own share and every file competes for the rest in rank order.
  // With flow_unused false the tiers are hard budgets, each allocated the same way on its own.
  const flowing = budgetConfig.flow_unused || !budgetConfig.enabled;
  if (flowing && budgetConfig.overflow_strategy !== 'error') {
    historyItems = budgets.constrained.includes('history')
      ? selectHistoryWindow(input.history, { budget: budgets.own.history, capBudget, format, tokenizer }).kept
      : wholeHistory.kept;
    const filesBudget = headerMode === 'full' ? Math.max(0, plan.available - reserve - historyItems.reduce((sum, h) => sum + h.cost, 0)) : 0;
    const ranked = FILE_TIERS.flatMap((t) => candidates[t]);
    const fitted = allocateRanked({ ranked, budget: filesBudget, strategy: budgetConfig.overflow_strategy, algorithm: budgetConfig.strategy, values, format, tokenizer });
    outcomes = splitByTier(fitted.candidates, fitted.choice);
    const filesUsed = FILE_TIERS.reduce((sum, t) => sum + chosenCost(outcomes[t].candidates, outcomes[t].choice), 0);
    let historyUsed = historyItems.reduce((sum, h) => sum + h.cost, 0);
    if (budgets.constrained.includes('history') && budgetConfig.flow_order.includes('history') && filesBudget > filesUsed) {
      // What the files leave flows on to the history, as the last tier in flow order.
      historyItems = selectHistoryWindow(input.history, { budget: historyUsed + filesBudget - filesUsed, capBudget, format, tokenizer }).kept;
      historyUsed = historyItems.reduce((sum, h) => sum + h.cost, 0);
    }
    tierBudget = { ...budgets.own, history: Math.max(budgets.own.history, historyUsed) };
    for (const t of FILE_TIERS) tierBudget[t] = Math.max(budgets.own[t], chosenCost(outcomes[t].candidates, outcomes[t].choice));
  } else {
    const tierFit = fitAllTiers({ candidates, budgets, wholeHistory: wholeHistory.kept, input, ctx, algorithm: budgetConfig.strategy, capBudget, values });
    tierBudget = tierFit.tierBudget;
    historyItems = tierFit.history;
    outcomes = tierFit.outcomes;
  }
  if (monotone) {
    // What a file got above its tier's starting level is spare budget spent, as spec 003 allows.
    for (const t of FILE_TIERS) {
      outcomes[t].candidates.forEach((c, i) => {
        const choice = outcomes[t].choice[i]!;
        if (choice >= 0 && LEVELS.indexOf(c.options[choice]!.level) < LEVELS.indexOf(starts[t])) {
          upgraded.add(c.path);
          requestedTokens += c.options[choice]!.cost - startCost(c);
        }
      });
    }
  } else if (budgetConfig.upgrade_spare && headerMode === 'full') {
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
    header: { root: input.root, task: input.task, available: plan.available, excludedBefore: excluded.length, ...(input.boot ? { boot: input.boot } : {}) },
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
        if (isSignificantCut(option.contentTokens, option.originalTokens ?? 0)) significantlyTruncated++;
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

/** The ranked allocation's choice split back into tiers (the ranking is the tiers in order). */
function splitByTier(ranked: Candidate[], choice: Int32Array): Record<FileTier, TierOutcome> {
  const out = {} as Record<FileTier, TierOutcome>;
  for (const t of FILE_TIERS) {
    const idx = ranked.map((c, i) => (c.tier === t ? i : -1)).filter((i) => i >= 0);
    out[t] = { candidates: idx.map((i) => ranked[i]!), choice: Int32Array.from(idx.map((i) => choice[i]!)) };
  }
  return out;
}

/** The level values and rank decay of the monotone allocation, from budget_config.allocation. */
function monotoneValues(config: Config): MonotoneValues {
  const a = config.budget_config.monotone;
  return { level: a.level_value, rankDecay: a.rank_decay };
}

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

