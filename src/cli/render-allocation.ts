import { formatCount as fmt } from '../util/format.js';
import type { BudgetRecord } from '../record/record-schema.js';
import { TIER_NAMES, type TierName } from '../config/schema.js';

const RULE = '='.repeat(80);
const TIER_TITLES: Record<TierName, string> = {
  primary: 'PRIMARY CONTEXT',
  supporting: 'SUPPORTING CONTEXT',
  reference: 'REFERENCE CONTEXT',
  history: 'HISTORY',
};
/** Rows listed per tier before "... and N more": the record has them all. */
const MAX_ROWS = 25;

/**
 * The human allocation report of spec 003's example: reserves, each tier's files with level,
 * tokens and relevance, subtotals, and the summary. Pure: record in, text out.
 */
export function renderAllocationReport(
  record: BudgetRecord,
  options: { showExcluded?: boolean; percentages?: Record<TierName, number> } = {},
): string {
  const out: string[] = [RULE, 'CONTEXT BUDGET ALLOCATION', RULE, ''];
  out.push(`Task: ${JSON.stringify(record.task)}`);
  out.push(`Root: ${record.root}`);
  const model = record.scoring.embedding_model ? `, embeddings ${record.scoring.embedding_model}` : '';
  out.push(`Tokenizer: ${record.tokenizer}   Scoring: ${record.scoring.method}${model}`);
  out.push(`Total Budget: ${fmt(record.total_budget)} tokens`, '');
  out.push('ALLOCATION:', '  Reserved:');
  out.push(`  - Output generation: ${fmt(record.reserved.output)} tokens`);
  out.push(`  - System prompts: ${fmt(record.reserved.system)} tokens`);
  out.push(`  - Available: ${fmt(record.available)} tokens`, '');

  for (const tier of TIER_NAMES) {
    const alloc = record.allocation[tier];
    if (tier === 'history' && alloc.files.length === 0) continue;
    out.push(`${TIER_TITLES[tier]} (${tierBudgetLabel(alloc.budget, record.available, options.percentages?.[tier])}):`);
    out.push(...renderTable(alloc.files.map((f) => [f.path + (f.truncated ? ' (truncated)' : ''), f.level, fmt(f.tokens), f.relevance_score.toFixed(2)])));
    const share = alloc.budget === 0 ? '' : ` (${pct(alloc.total_tokens, alloc.budget)} of allocation)`;
    out.push(`Subtotal: ${fmt(alloc.total_tokens)} tokens${share}`, '');
  }

  const used = TIER_NAMES.reduce((sum, tier) => sum + record.allocation[tier].total_tokens, 0);
  out.push('SUMMARY:');
  out.push(`  Files: ${TIER_NAMES.reduce((n, t) => n + record.allocation[t].files.length, 0)} included, ${record.excluded.length} excluded`);
  out.push(`  Total Used: ${fmt(used)} tokens in files, ${fmt(record.metrics.rendered_tokens)} rendered with header`);
  out.push(`  Total Available: ${fmt(record.available)} tokens`);
  out.push(`  Utilization: ${(record.metrics.utilization * 100).toFixed(1)}%`);
  out.push(`  Efficiency: ${record.metrics.efficiency.toFixed(2)} (relevance-weighted share of used tokens)`);
  out.push(`  Status: ${statusLine(record)}`);
  for (const warning of record.warnings) out.push(`  Warning: ${warning}`);
  if (options.showExcluded && record.excluded.length > 0) {
    out.push('', 'EXCLUDED:');
    out.push(...renderTable(record.excluded.map((e) => [e.path, e.relevance_score === null ? '-' : e.relevance_score.toFixed(2), e.reason]), ['File', 'Relevance', 'Reason'], Infinity));
  }
  out.push('', `Run ${record.run_id} (${record.timings_ms.total ?? 0} ms)`);
  return `${out.join('\n')}\n`;
}

/** "50% = 45,000 tokens", plus what flowed in from tiers that needed less. */
function tierBudgetLabel(budget: number, available: number, percentage: number | undefined): string {
  if (percentage === undefined) return `${pct(budget, available)} = ${fmt(budget)} tokens`;
  const nominal = Math.floor((available * percentage) / 100);
  const flowed = budget - nominal;
  return `${percentage}% = ${fmt(nominal)} tokens${flowed > 0 ? `, +${fmt(flowed)} unused by other tiers` : ''}`;
}

function statusLine(record: BudgetRecord): string {
  if (!record.overflow.occurred) return 'within budget, no overflow handling needed';
  const n = record.overflow.files_affected.length;
  return `over budget: "${record.overflow.strategy_applied}" applied to ${n} file${n === 1 ? '' : 's'}`;
}

function renderTable(rows: string[][], header = ['File', 'Level', 'Tokens', 'Relevance'], maxRows = MAX_ROWS): string[] {
  const shown = rows.slice(0, maxRows);
  const all = [header, ...shown];
  const widths = header.map((_, col) => Math.max(...all.map((row) => (row[col] ?? '').length)));
  const line = (row: string[]) =>
    `│ ${row.map((cell, col) => (col === 0 || col === row.length - 1 && header[col] === 'Reason' ? cell.padEnd(widths[col] ?? 0) : cell.padStart(widths[col] ?? 0))).join(' │ ')} │`;
  const border = (l: string, m: string, r: string) => `${l}${widths.map((w) => '─'.repeat(w + 2)).join(m)}${r}`;
  const out = [border('┌', '┬', '┐'), line(header), border('├', '┼', '┤')];
  if (shown.length === 0) out.push(`│ ${'(none)'.padEnd(widths.reduce((a, w) => a + w + 3, -3))} │`);
  for (const row of shown) out.push(line(row));
  out.push(border('└', '┴', '┘'));
  if (rows.length > shown.length) out.push(`  ... and ${rows.length - shown.length} more (see --json)`);
  return out;
}


function pct(part: number, whole: number): string {
  return whole === 0 ? '0%' : `${Math.round((part / whole) * 100)}%`;
}
