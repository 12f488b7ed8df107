import { LEVELS, TIER_NAMES, type Level, type TierName } from '../config/schema.js';
import { FACTOR_NAMES } from '../types.js';
import type { BudgetRecord } from './record-schema.js';
import { fmt, pct, type ContextReport } from './report.js';
import { levelReason } from './level-reason.js';

/**
 * `aiwg context-report --html FILE`: one self-contained page (inline CSS and SVG, no script, no
 * network) from the records: per run the tiers and levels as a stacked bar of the budget, the
 * files with their five factor scores and why each got its level, utilization over time, and
 * the files most often degraded or dropped. Pure: report and records in, HTML out.
 */
export function renderHtmlReport(report: ContextReport, records: readonly BudgetRecord[]): string {
  const { summary } = report;
  const newestFirst = [...records].reverse();
  const body = [
    `<h1>Context report</h1>`,
    `<p class="lead"><span data-k="runs">${summary.runs}</span> run${summary.runs === 1 ? '' : 's'}${summary.first ? ` from ${esc(summary.first)} to ${esc(summary.last ?? '')}` : ''}` +
      (summary.utilization ? `; utilization mean <b data-k="mean-util">${pct(summary.utilization.mean)}</b>, min ${pct(summary.utilization.min)}, max ${pct(summary.utilization.max)}` : '') +
      `; overflow in ${summary.overflowed} of ${summary.runs}.</p>`,
    section('Utilization over time', utilizationChart(report)),
    section('Advice', `<ul>${report.advice.map((a) => `<li class="advice-${a.kind}">${esc(a.message)}</li>`).join('')}</ul>`),
    section('Most degraded or dropped files', trendTable(report)),
    `<h2>Runs, newest first</h2>`,
    legend(),
    ...newestFirst.map((record, i) => runSection(record, i === 0)),
  ];
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>aiwg context report</title><style>${CSS}</style></head><body>\n${body.join('\n')}\n</body></html>\n`;
}

const TIER_COLORS: Record<TierName, string> = { primary: '#2e7d32', supporting: '#00838f', reference: '#1565c0', history: '#6a1b9a' };
const LEVEL_OPACITY: Record<Level, number> = { full: 1, detailed: 0.72, summary: 0.46, stub: 0.25 };
const BAR_WIDTH = 760;
const CHART = { width: 760, height: 180, pad: 34 };

const CSS = `body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1100px;color:#1d232a;padding:0 16px}
h1{margin:0 0 4px}h2{margin:28px 0 8px;font-size:18px}h3{margin:0;font-size:15px;display:inline}
.lead{color:#44505c}table{border-collapse:collapse;width:100%;font-size:13px}th,td{padding:3px 8px;border-bottom:1px solid #e3e7eb;text-align:left}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}details{border:1px solid #d7dde3;border-radius:6px;margin:10px 0;padding:8px 12px}
summary{cursor:pointer}.meta{color:#5b6773;font-size:12px}.lvl{display:inline-block;padding:0 6px;border-radius:8px;color:#fff;font-size:12px}
.legend span{display:inline-block;margin-right:14px;font-size:12px}.legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-2px}
.why{color:#44505c}.advice-too_tight{color:#b71c1c}.advice-too_loose{color:#8d6e00}svg text{font:11px system-ui,sans-serif;fill:#44505c}`;

function section(title: string, html: string): string {
  return `<h2>${esc(title)}</h2>\n${html}`;
}

function legend(): string {
  const tiers = TIER_NAMES.map((t) => `<span><i style="background:${TIER_COLORS[t]}"></i>${t}</span>`).join('');
  const levels = LEVELS.map((l) => `<span><i style="background:#37474f;opacity:${LEVEL_OPACITY[l]}"></i>${l}</span>`).join('');
  return `<p class="legend">${tiers} · ${levels} · <span><i style="background:#b0bec5"></i>header and wrappers</span><span><i style="background:#eceff1;border:1px solid #cfd8dc"></i>unused</span></p>`;
}

function runSection(record: BudgetRecord, open: boolean): string {
  const files = TIER_NAMES.flatMap((tier) => record.allocation[tier].files.map((f) => ({ ...f, tier })));
  const affected = new Set(record.overflow.files_affected);
  const rows = files.map((f) => {
    const why = f.level_reason ?? levelReason({ tier: f.tier, level: f.level, truncated: f.truncated, overflow: affected.has(f.path) ? record.overflow.strategy_applied : null });
    const factors = FACTOR_NAMES.map((name) => `<td class="n">${f.factors[name].toFixed(2)}</td>`).join('');
    return `<tr data-path="${esc(f.path)}"><td>${esc(f.path)}</td><td>${f.tier}</td><td><span class="lvl" style="background:${TIER_COLORS[f.tier]};opacity:${Math.max(0.45, LEVEL_OPACITY[f.level])}">${f.level}</span></td><td class="n" data-k="tokens">${fmt(f.tokens)}</td><td class="n">${f.relevance_score.toFixed(2)}</td>${factors}<td class="why">${esc(why)}</td></tr>`;
  });
  const header = `<tr><th>File</th><th>Tier</th><th>Level</th><th class="n">Tokens</th><th class="n">Relevance</th>${FACTOR_NAMES.map((n) => `<th class="n">${n.replace('_', ' ')}</th>`).join('')}<th>Why this level</th></tr>`;
  const dropped = record.excluded.filter((e) => e.relevance_score !== null && /^over budget\b/i.test(e.reason));
  const droppedHtml = dropped.length === 0 ? '' : `<p class="meta">Dropped for lack of budget: ${dropped.map((e) => esc(e.path)).join(', ')}</p>`;
  const warnings = record.warnings.length === 0 ? '' : `<ul class="meta">${record.warnings.map((w) => `<li>${esc(w)}</li>`).join('')}</ul>`;
  return `<details${open ? ' open' : ''} data-run="${esc(record.run_id)}"><summary><h3>${esc(clip(record.task, 90))}</h3> <span class="meta">${esc(record.timestamp.slice(0, 19).replace('T', ' '))} · run ${esc(record.run_id.slice(0, 8))} · <b data-k="util">${pct(record.metrics.utilization)}</b> of ${fmt(record.available)} available tokens · ${files.length} files</span></summary>
${budgetBar(record)}
<table>${header}${rows.join('') || `<tr><td colspan="${6 + FACTOR_NAMES.length}">No file selected.</td></tr>`}</table>${droppedHtml}${warnings}</details>`;
}

/** The run's available budget as one bar: a segment per tier and level, then wrappers, then unused. */
function budgetBar(record: BudgetRecord): string {
  const available = Math.max(1, record.available);
  const scale = (tokens: number) => (tokens / available) * BAR_WIDTH;
  const parts: Array<{ label: string; tokens: number; color: string; opacity: number }> = [];
  for (const tier of TIER_NAMES) {
    for (const level of LEVELS) {
      const tokens = record.allocation[tier].files.filter((f) => f.level === level).reduce((s, f) => s + f.tokens, 0);
      if (tokens > 0) parts.push({ label: `${tier} · ${level}`, tokens, color: TIER_COLORS[tier], opacity: LEVEL_OPACITY[level] });
    }
  }
  const inFiles = parts.reduce((s, p) => s + p.tokens, 0);
  const wrappers = Math.max(0, record.metrics.rendered_tokens - inFiles);
  if (wrappers > 0) parts.push({ label: 'header and wrappers', tokens: wrappers, color: '#b0bec5', opacity: 1 });
  const unused = Math.max(0, record.available - record.metrics.rendered_tokens);
  let x = 0;
  const rects = parts.map((p) => {
    const w = scale(p.tokens);
    const rect = `<rect x="${x.toFixed(1)}" y="0" width="${w.toFixed(1)}" height="26" fill="${p.color}" fill-opacity="${p.opacity}"><title>${esc(p.label)}: ${fmt(p.tokens)} tokens (${pct(p.tokens / available)})</title></rect>`;
    x += w;
    return rect;
  });
  rects.push(`<rect x="${x.toFixed(1)}" y="0" width="${Math.max(0, BAR_WIDTH - x).toFixed(1)}" height="26" fill="#eceff1"><title>unused: ${fmt(unused)} tokens</title></rect>`);
  const tierBudgets = TIER_NAMES.filter((t) => record.allocation[t].budget > 0)
    .map((t) => `${t} ${fmt(record.allocation[t].total_tokens)}/${fmt(record.allocation[t].budget)}`)
    .join(' · ');
  return `<svg role="img" aria-label="budget bar" width="${BAR_WIDTH}" height="44" viewBox="0 0 ${BAR_WIDTH} 44">${rects.join('')}<text x="0" y="40">${esc(`${fmt(record.metrics.rendered_tokens)} of ${fmt(record.available)} tokens used · tiers (used/budget): ${tierBudgets}`)}</text></svg>`;
}

function utilizationChart(report: ContextReport): string {
  const runs = report.runs;
  if (runs.length === 0) return '<p>No runs recorded.</p>';
  const { width, height, pad } = CHART;
  const max = Math.max(1, ...runs.map((r) => r.utilization));
  const xAt = (i: number) => pad + (runs.length === 1 ? (width - 2 * pad) / 2 : (i * (width - 2 * pad)) / (runs.length - 1));
  const yAt = (u: number) => height - pad + 10 - (u / max) * (height - pad - 10);
  const points = runs.map((r, i) => `${xAt(i).toFixed(1)},${yAt(r.utilization).toFixed(1)}`).join(' ');
  const dots = runs
    .map((r, i) => `<circle cx="${xAt(i).toFixed(1)}" cy="${yAt(r.utilization).toFixed(1)}" r="4" fill="${r.overflow.occurred ? '#c62828' : '#1565c0'}"><title>${esc(r.timestamp)} · ${pct(r.utilization)}${r.overflow.occurred ? ' · overflow' : ''}</title></circle>`)
    .join('');
  const grid = [0, 0.5, 1].map((f) => {
    const y = yAt(max * f);
    return `<line x1="${pad}" x2="${width - pad}" y1="${y.toFixed(1)}" y2="${y.toFixed(1)}" stroke="#e3e7eb"/><text x="2" y="${(y + 4).toFixed(1)}">${pct(max * f)}</text>`;
  });
  return `<svg role="img" aria-label="utilization over time" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${grid.join('')}<polyline points="${points}" fill="none" stroke="#1565c0" stroke-width="2"/>${dots}<text x="${pad}" y="${height - 4}">${esc(runs[0]!.timestamp.slice(0, 16).replace('T', ' '))}</text><text x="${width - pad}" y="${height - 4}" text-anchor="end">${esc(runs.at(-1)!.timestamp.slice(0, 16).replace('T', ' '))}</text></svg><p class="meta">Red points: runs where the overflow strategy acted.</p>`;
}

function trendTable(report: ContextReport): string {
  if (report.files.length === 0) return '<p>No file was degraded or dropped in these runs.</p>';
  const rows = report.files.map((f) => `<tr><td>${esc(f.path)}</td><td class="n" data-k="degraded">${f.degraded}</td><td class="n" data-k="dropped">${f.dropped}</td></tr>`).join('');
  return `<table><tr><th>File</th><th class="n">Runs degraded</th><th class="n">Runs dropped</th></tr>${rows}</table>`;
}

function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 3)}...`;
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
