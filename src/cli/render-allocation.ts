import { formatCount as fmt, plural } from '../util/format.js';
import type { BudgetRecord } from '../record/record-schema.js';
import { LEVELS, TIER_NAMES, type Level, type TierName } from '../config/schema.js';
import { displayWidth, padEndDisplay, padStartDisplay } from '../util/text-width.js';
import { NO_COLORS, type Colors } from '../util/color.js';
import { BUDGET_DROP_REASON } from '../record/report.js';
import { maxOf } from '../util/extremes.js';

const RULE = '='.repeat(80);
const TIER_TITLES: Record<TierName, string> = {
  primary: 'PRIMARY CONTEXT',
  supporting: 'SUPPORTING CONTEXT',
  reference: 'REFERENCE CONTEXT',
  history: 'HISTORY',
};
/** Rows listed per tier before "... and N more": the record has them all. */
const MAX_ROWS = 25;
/** Near misses named when nothing was selected. */
const NEAR_MISSES = 3;

export interface AllocationReportOptions {
  showExcluded?: boolean;
  /** relevance_scoring.thresholds.include_minimum of the run, for the "nothing selected" advice. */
  includeMinimum?: number;
  /** ANSI colours for tiers and levels; none by default. */
  colors?: Colors;
}

/**
 * The human allocation report of spec 003's example: reserves, each tier's files with level,
 * tokens and relevance, subtotals, and the summary. Pure: record in, text out.
 */
export function renderAllocationReport(record: BudgetRecord, options: AllocationReportOptions = {}): string {
  const c = options.colors ?? NO_COLORS;
  const out: string[] = [RULE, c.bold('CONTEXT BUDGET ALLOCATION'), RULE, ''];
  out.push(`Task: ${JSON.stringify(record.task)}`);
  out.push(`Root: ${record.root}`);
  const model = record.scoring.embedding_model ? `, embeddings ${record.scoring.embedding_model}` : '';
  out.push(`Tokenizer: ${record.tokenizer}   Scoring: ${record.scoring.method}${model}`);
  out.push(`Total Budget: ${fmt(record.total_budget)} tokens`, '');
  out.push('ALLOCATION:', '  Reserved:');
  out.push(`  - Output generation: ${fmt(record.reserved.output)} tokens`);
  out.push(`  - System prompts: ${fmt(record.reserved.system)} tokens`);
  out.push(`  - Available: ${fmt(record.available)} tokens`);
  if (record.budget_plan?.one_pool) out.push('  - One pool (budget_config.enabled: false): the tiers fill it in flow order');
  out.push('');

  for (const tier of TIER_NAMES) {
    const alloc = record.allocation[tier];
    if (tier === 'history' && alloc.files.length === 0) continue;
    out.push(`${c.tier(tier, TIER_TITLES[tier])} (${tierBudgetLabel(alloc.budget, record, tier)}):`);
    const rows = alloc.files.map((f) => [f.path + (f.truncated ? ' (truncated)' : ''), f.level, fmt(f.tokens), f.relevance_score.toFixed(2)]);
    out.push(...renderTable(rows, { colorCell: (col, cell, row) => (col === 1 ? c.level(row[1] as Level, cell) : cell) }));
    const share = alloc.budget === 0 ? '' : ` (${pct(alloc.total_tokens, alloc.budget)} of allocation)`;
    out.push(`Subtotal: ${fmt(alloc.total_tokens)} tokens${share}`, '');
  }

  const included = TIER_NAMES.reduce((n, t) => n + record.allocation[t].files.length, 0);
  const used = TIER_NAMES.reduce((sum, tier) => sum + record.allocation[tier].total_tokens, 0);
  out.push(c.bold('SUMMARY:'));
  out.push(`  Files: ${included} included, ${record.excluded.length} excluded`);
  out.push(`  Total Used: ${fmt(used)} tokens in files, ${fmt(record.metrics.rendered_tokens)} rendered with header`);
  out.push(`  Total Available: ${fmt(record.available)} tokens`);
  out.push(`  Utilization: ${(record.metrics.utilization * 100).toFixed(1)}%`);
  out.push(`  Efficiency: ${record.metrics.efficiency.toFixed(2)} (relevance-weighted share of used tokens)`);
  out.push(`  Status: ${statusLine(record, c)}`);
  for (const warning of record.warnings) out.push(`  ${c.warn('Warning:')} ${warning}`);
  if (included === 0) out.push('', ...nothingSelected(record, options.includeMinimum));
  if (options.showExcluded && record.excluded.length > 0) {
    out.push('', 'EXCLUDED:');
    const rows = record.excluded.map((e) => [e.path, e.relevance_score === null ? '-' : e.relevance_score.toFixed(2), e.reason]);
    // one by one: a spread of every excluded file's line overflows the stack past ~120k of them
    for (const line of renderTable(rows, { header: ['File', 'Relevance', 'Reason'], maxRows: Infinity })) out.push(line);
  }
  out.push('', `Run ${record.run_id} (${record.timings_ms.total ?? 0} ms)`);
  return `${out.join('\n')}\n`;
}

/**
 * "50% = 45,000 tokens", plus what flowed in from tiers that needed less: the plan the record
 * carries, never the config (which may not be what ran). One pool: what the tier took of it.
 * A record without a plan (written before records carried it): the share of available it got.
 */
function tierBudgetLabel(budget: number, record: BudgetRecord, tier: TierName): string {
  const plan = record.budget_plan;
  if (plan === undefined) return `${pct(budget, record.available)} = ${fmt(budget)} tokens`;
  if (plan.one_pool) return `${fmt(budget)} tokens of the ${fmt(record.available)}-token pool`;
  const { percent, tokens } = plan.tiers[tier];
  const flowed = budget - tokens;
  // a budget under the nominal share: the boot header's reserve was taken from the tiers
  const change = flowed > 0 ? `, +${fmt(flowed)} unused by other tiers` : flowed < 0 ? `, ${fmt(budget)} after the boot header` : '';
  return `${percent}% = ${fmt(tokens)} tokens${change}`;
}

/** Overflow handling, and files shown below full detail even when nothing overflowed. */
function statusLine(record: BudgetRecord, c: Colors): string {
  const files = TIER_NAMES.flatMap((t) => record.allocation[t].files);
  const reduced = LEVELS.filter((l) => l !== 'full')
    .map((level) => [level, files.filter((f) => f.level === level).length] as const)
    .filter(([, n]) => n > 0);
  const reducedCount = reduced.reduce((n, [, k]) => n + k, 0);
  const detail = reducedCount === 0 ? '' : `${plural(reducedCount, 'file')} at reduced detail (${reduced.map(([l, n]) => `${c.level(l, l)} ${n}`).join(', ')})`;
  if (!record.overflow.occurred) {
    return reducedCount === 0 ? 'within budget, no overflow handling needed' : `within budget with ${detail}, nothing dropped for lack of budget`;
  }
  const n = record.overflow.files_affected.length;
  return `over budget: "${record.overflow.strategy_applied}" applied to ${plural(n, 'file')}${detail ? `; ${detail}` : ''}`;
}

/**
 * Why a run selected nothing, from the record alone: the nearest misses against the threshold,
 * or no candidate at all, and what to try.
 */
function nothingSelected(record: BudgetRecord, includeMinimum: number | undefined): string[] {
  const scored = record.excluded.filter((e) => e.relevance_score !== null).sort((a, b) => (b.relevance_score ?? 0) - (a.relevance_score ?? 0) || (a.path < b.path ? -1 : 1));
  const threshold = includeMinimum ?? thresholdFromReasons(record);
  const out = ['NOTHING SELECTED:'];
  if (scored.length === 0) {
    out.push(
      `  No file was a candidate: ${record.excluded.length === 0 ? 'the root holds no readable files' : `${plural(record.excluded.length, 'file')} excluded before scoring (--show-allocation lists the reasons)`}.`,
      '  Try: --root pointing at the repository, or check collect.ignore and .gitignore.',
    );
    return out;
  }
  const dropped = scored.filter((e) => BUDGET_DROP_REASON.test(e.reason));
  if (dropped.length > 0) {
    out.push(
      `  ${plural(dropped.length, 'relevant file')} did not fit even as a stub in ${fmt(record.available)} available tokens.`,
      '  Try: raise --max-tokens, lower --reserve-output / --reserve-system, or use --overflow truncate.',
    );
    return out;
  }
  const nearest = scored.slice(0, NEAR_MISSES).map((e) => `${e.path} ${(e.relevance_score ?? 0).toFixed(2)}`);
  const limit = threshold === undefined ? 'the include threshold' : `include_minimum ${threshold}`;
  out.push(
    `  No file scored at or above ${limit}: the task matched too little of the repository. Closest: ${nearest.join(', ')}.`,
    '  Try: name the files, functions, identifiers or error messages the change touches',
    '       (e.g. "fix retryDelay in src/http/retry.ts: the backoff is ignored after a timeout"),',
    `       or lower relevance_scoring.thresholds.include_minimum${threshold === undefined ? '' : ` (now ${threshold})`} in .aiwg/rag/config.yaml;`,
    '       "aiwg context-score <file> --task ..." shows why a file you expected scored low.',
  );
  return out;
}

/** "relevance 0.19 below include_minimum 0.3" carries the threshold of the run. */
function thresholdFromReasons(record: BudgetRecord): number | undefined {
  for (const e of record.excluded) {
    const m = /below include_minimum ([\d.]+)/.exec(e.reason);
    if (m) return Number(m[1]);
  }
  return undefined;
}

interface TableOptions {
  header?: string[];
  maxRows?: number;
  /** Colour a padded cell; widths are measured before colouring. */
  colorCell?: (col: number, cell: string, row: string[]) => string;
}

function renderTable(rows: string[][], options: TableOptions = {}): string[] {
  const { header = ['File', 'Level', 'Tokens', 'Relevance'], maxRows = MAX_ROWS, colorCell } = options;
  const shown = rows.slice(0, maxRows);
  const all = [header, ...shown];
  const widths = header.map((_, col) => maxOf(all.map((row) => displayWidth(row[col] ?? ''))));
  const leftAligned = (col: number) => col === 0 || (col === header.length - 1 && header[col] === 'Reason');
  const line = (row: string[], isHeader: boolean) =>
    `│ ${row
      .map((cell, col) => {
        const padded = leftAligned(col) ? padEndDisplay(cell, widths[col] ?? 0) : padStartDisplay(cell, widths[col] ?? 0);
        return isHeader || !colorCell ? padded : colorCell(col, padded, row);
      })
      .join(' │ ')} │`;
  const border = (l: string, m: string, r: string) => `${l}${widths.map((w) => '─'.repeat(w + 2)).join(m)}${r}`;
  const out = [border('┌', '┬', '┐'), line(header, true), border('├', '┼', '┤')];
  if (shown.length === 0) out.push(`│ ${'(none)'.padEnd(widths.reduce((a, w) => a + w + 3, -3))} │`);
  for (const row of shown) out.push(line(row, false));
  out.push(border('└', '┴', '┘'));
  if (rows.length > shown.length) out.push(`  ... and ${rows.length - shown.length} more (see --json)`);
  return out;
}

function pct(part: number, whole: number): string {
  return whole === 0 ? '0%' : `${Math.round((part / whole) * 100)}%`;
}
