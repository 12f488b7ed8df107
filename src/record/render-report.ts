import { TIER_NAMES } from '../config/schema.js';
import { fmt, pct, type ContextReport } from './report.js';
import { displayWidth, padEndDisplay, padStartDisplay } from '../util/text-width.js';
import { maxOf } from '../util/extremes.js';

/** Runs listed in the human report (newest); `--json` carries them all. */
const RUNS_SHOWN = 20;
const TASK_CHARS = 40;

/** The human `aiwg context-report`: aligned plain-text tables. Pure: report in, text out. */
export function renderReport(report: ContextReport, options: { recordsDir: string }): string {
  const { summary } = report;
  if (summary.runs === 0) return `No budget records in ${options.recordsDir}: run "aiwg context-budget <task>" first.\n`;
  const out: string[] = [`CONTEXT REPORT: ${summary.runs} run${summary.runs === 1 ? '' : 's'} from ${summary.first} to ${summary.last}`, ''];

  const shown = report.runs.slice(-RUNS_SHOWN);
  out.push(`RUNS${shown.length < report.runs.length ? ` (newest ${shown.length})` : ''}:`);
  out.push(
    ...alignTable(
      ['Run', 'When', 'Task', 'Used', 'Available', 'Util', ...TIER_NAMES.map(capitalise), 'Overflow'],
      shown.map((r) => [
        r.run_id.slice(0, 8),
        r.timestamp.slice(0, 16).replace('T', ' '),
        clip(r.task, TASK_CHARS),
        fmt(r.rendered_tokens),
        fmt(r.available),
        pct(r.utilization),
        ...TIER_NAMES.map((t) => `${fmt(r.tiers[t].tokens)}/${r.tiers[t].files}`),
        r.overflow.occurred ? `${r.overflow.strategy ?? 'yes'} (${r.overflow.files_affected})` : '-',
      ]),
      'lllrrrrrrrl',
    ),
    '  (tier columns: tokens/files)',
    '',
  );

  const u = summary.utilization;
  out.push('SUMMARY:');
  if (u) out.push(`  Utilization: mean ${pct(u.mean)}, min ${pct(u.min)}, max ${pct(u.max)}`);
  const strategies = Object.entries(summary.strategies).map(([s, n]) => `${s} ${n}`).join(', ');
  out.push(`  Overflowed: ${summary.overflowed} of ${summary.runs} runs${strategies ? ` (${strategies})` : ''}`);
  out.push(`  Truncated:  ${summary.truncated} of ${summary.runs} runs cut file content`, '');

  if (report.files.length > 0) {
    out.push('FILES MOST OFTEN DEGRADED OR DROPPED:');
    out.push(...alignTable(['File', 'Degraded', 'Dropped'], report.files.map((f) => [f.path, String(f.degraded), String(f.dropped)]), 'lrr'), '');
  }
  out.push('ADVICE:', ...report.advice.map((a) => `  - ${a.message}`));
  return `${out.join('\n')}\n`;
}

/** Columns padded to their widest cell; `align` is one `l` or `r` per column. */
export function alignTable(header: string[], rows: string[][], align: string): string[] {
  const all = [header, ...rows];
  const widths = header.map((_, col) => maxOf(all.map((row) => displayWidth(row[col] ?? ''))));
  const line = (row: string[]) =>
    `  ${row
      .map((cell, col) => (align[col] === 'r' ? padStartDisplay(cell, widths[col] ?? 0) : padEndDisplay(cell, widths[col] ?? 0)))
      .join('  ')
      .trimEnd()}`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

function clip(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length <= max ? oneLine : `${oneLine.slice(0, max - 3)}...`;
}

function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
