import type { Command } from '../command.js';
import { UsageError } from '../../errors.js';
import { resolveRoot } from '../resolve-root.js';
import { resolveRecordsDir } from '../../cache/cache-dir.js';
import { readRecords, type ReadRecordsOptions } from '../../record/read-records.js';
import { buildReport } from '../../record/report.js';
import { renderReport } from '../../record/render-report.js';
import { renderHtmlReport } from '../../record/render-html.js';
import { readSession } from '../../record/session.js';
import { renderSession } from '../../record/render-session.js';
import { writeFileAtomic } from '../../util/atomic-write.js';
import { resolveFromCwd } from '../resolve-root.js';

const RELATIVE_SINCE = /^(\d+)([mhdw])$/;
const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `aiwg context-report`: what the recorded runs say about the budget. */
export const contextReportCommand: Command = {
  name: 'context-report',
  usage: 'aiwg context-report [--root DIR] [--last N] [--since DATE] [--session RUN_ID] [--json | --html FILE]',
  options: {
    root: { type: 'string' },
    last: { type: 'string' },
    since: { type: 'string' },
    session: { type: 'string' },
    json: { type: 'boolean' },
    html: { type: 'string' },
  },
  help: {
    '--root DIR': 'repository whose .aiwg/rag/budget-records/ to read (default: current directory)',
    '--last N': 'only the newest N runs',
    '--since DATE': 'only runs at or after DATE (ISO 8601, e.g. 2026-01-15 or 2026-01-15T12:00:00Z, or 12h, 7d, 2w ago)',
    '--session RUN_ID': 'one session: every context-budget, assemble and handoff-context run logged under this run id (a prefix is enough; see --run-id), with the files each gave the agent',
    '--json': 'print the report as one JSON object on stdout',
    '--html FILE': 'write one self-contained HTML page (no network): budget bars by tier and level, factor scores and why each level, utilization over time',
  },
  async run({ values }, io) {
    const root = await resolveRoot(values.root, io.cwd);
    const options: ReadRecordsOptions = {};
    if (values.last !== undefined) options.last = parseLast(values.last);
    if (values.since !== undefined) options.since = parseSince(values.since, Date.now());
    if (typeof values.session === 'string') {
      if (values.session.trim() === '') throw new UsageError('--session needs a run id, e.g. --session 3f2a9c1e');
      options.session = values.session.trim();
    }
    const { records, skipped } = await readRecords(root, options);
    const session = options.session !== undefined ? await readSession(root, options.session) : undefined;
    for (const s of session?.skipped ?? skipped) io.stderr(`warning: skipped ${s.path}: ${s.reason}\n`);
    if (session !== undefined && session.runs.length === 0) {
      throw new UsageError(`--session ${options.session}: no recorded run has this id (no budget record, assemble or handoff-context log line); run "aiwg context-report" to list the runs`);
    }
    const report = buildReport(records);
    if (typeof values.html === 'string') {
      if (values.json === true) throw new UsageError('--html and --json are two outputs: pass one');
      const path = resolveFromCwd(values.html, io.cwd);
      await writeFileAtomic(path, renderHtmlReport(report, records));
      io.stdout(`wrote ${path} (${report.summary.runs} run${report.summary.runs === 1 ? '' : 's'})\n`);
      return 0;
    }
    if (values.json === true) io.stdout(`${JSON.stringify({ ...report, skipped, ...(session ? { session: { id: session.session, runs: session.runs } } : {}) })}\n`);
    else if (session !== undefined) io.stdout(renderSession(session));
    else io.stdout(renderReport(report, { recordsDir: resolveRecordsDir(root) }));
    return 0;
  },
};

export function parseLast(value: unknown): number {
  const text = String(value).trim();
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new UsageError(`--last ${String(value)}: expected a whole number of runs >= 1, e.g. --last 10`);
  return Number(text);
}

/** An ISO 8601 date or date-time, or a span back from `nowMs` such as `12h`, `7d`, `2w`. */
export function parseSince(value: unknown, nowMs: number): Date {
  const text = String(value).trim();
  const relative = RELATIVE_SINCE.exec(text);
  if (relative) return new Date(nowMs - Number(relative[1]) * (UNIT_MS[relative[2] as string] as number));
  const ms = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new UsageError(`--since ${String(value)}: not a date; use ISO 8601 (2026-01-15 or 2026-01-15T12:00:00Z) or a span such as 12h, 7d, 2w`);
  }
  return new Date(ms);
}
