import type { EvalReport } from './run-eval.js';
import type { MethodSummary } from './metrics.js';
import { formatCount } from '../util/format.js';

const COLUMNS: Array<{ title: string; cell: (s: MethodSummary) => string }> = [
  { title: 'runs', cell: (s) => String(s.instances) },
  { title: 'recall full/detailed', cell: (s) => pct(s.recallDetailed) },
  { title: 'recall any level', cell: (s) => pct(s.recallAny) },
  { title: 'all gold in', cell: (s) => pct(s.allIncluded) },
  { title: '>=1 gold in', cell: (s) => pct(s.oneIncluded) },
  { title: 'gold in primary', cell: (s) => (s.primaryHitRate === null ? 'n/a' : pct(s.primaryHitRate)) },
  { title: 'MRR', cell: (s) => s.mrr.toFixed(3) },
  { title: 'within budget', cell: (s) => pct(s.adherence) },
  { title: 'ms/run', cell: (s) => String(Math.round(s.msPerRun)) },
  { title: 'errors', cell: (s) => String(s.errors) },
];

/** The report as text: a mining summary, then one Markdown table per budget (rows = methods). */
export function renderEvalReport(report: EvalReport): string {
  const skipped = Object.entries(report.mining.skipped)
    .filter(([, n]) => n > 0)
    .map(([reason, n]) => `${reason} ${n}`)
    .join(', ');
  const lines = [
    `Repository: ${report.root} at ${report.head.slice(0, 12)}`,
    report.mining.tasksFile === undefined
      ? `Instances: ${report.mining.qualified} qualifying commits (requested ${report.mining.requested}, scanned ${report.mining.scanned}; skipped: ${skipped || 'none'})`
      : `Instances: ${report.mining.qualified} tasks from ${report.mining.tasksFile} (requested ${report.mining.requested}, read ${report.mining.scanned}; skipped: ${skipped || 'none'})`,
    `Tokenizer: ${report.tokenizer}; a budget is the tokens available to the context (no reserves).`,
    '',
  ];
  for (const table of report.tables) {
    lines.push(`Budget ${formatCount(table.budget)} tokens`, '');
    const rows = table.rows.map((row) => [row.method, ...COLUMNS.map((c) => c.cell(row.summary))]);
    lines.push(...markdownTable(['method', ...COLUMNS.map((c) => c.title)], rows), '');
  }
  return `${lines.join('\n')}\n`;
}

/** A Markdown table with padded columns (readable as plain text too). */
export function markdownTable(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)];
}

function pct(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}
