import { alignTable } from './render-report.js';
import { fmt } from './report.js';
import type { SessionRun, SessionView } from './session.js';

const TASK_CHARS = 60;

/** `aiwg context-report --session ID`: every run of the session with the files it gave the agent. Pure. */
export function renderSession(view: SessionView): string {
  const counts = new Map<string, number>();
  for (const run of view.runs) counts.set(run.kind, (counts.get(run.kind) ?? 0) + 1);
  const ids = [...new Set(view.runs.map((r) => r.run_id))];
  const out: string[] = [
    `SESSION ${ids.length === 1 ? ids[0] : `${view.session}* (${ids.length} run ids)`}: ${view.runs.length} run${view.runs.length === 1 ? '' : 's'} (${[...counts].map(([k, n]) => `${k} ${n}`).join(', ')})`,
    '',
  ];
  for (const run of view.runs) out.push(...renderRun(run, ids.length > 1), '');
  return `${out.join('\n').trimEnd()}\n`;
}

function renderRun(run: SessionRun, showId: boolean): string[] {
  const when = `${run.ts.slice(0, 19).replace('T', ' ')}${showId ? ` [${run.run_id}]` : ''}`;
  if (run.kind === 'handoff-context') {
    const cut = run.was_truncated ? `, truncated from ${fmt(run.original_tokens)}` : '';
    return [`${when}  handoff-context phase ${run.phase}: ${fmt(run.truncated_tokens)} of ${fmt(run.budget_tokens)} tokens${cut}`];
  }
  const head =
    run.kind === 'context-budget'
      ? `${when}  context-budget "${clip(run.task)}": ${fmt(run.used)} of ${fmt(run.available)} tokens`
      : `${when}  assemble ${run.manifest}: ${fmt(run.used)} of ${fmt(run.available)} tokens`;
  const lines = [`${head}, ${run.files.length} file${run.files.length === 1 ? '' : 's'}, ${run.excluded} excluded`];
  if (run.files.length === 0) return lines;
  const withTier = run.kind === 'context-budget';
  lines.push(
    ...alignTable(
      withTier ? ['File', 'Tier', 'Level', 'Tokens', 'Relevance'] : ['File', 'Level', 'Tokens'],
      run.files.map((f) => {
        const level = f.truncated ? `${f.level} (truncated)` : f.level;
        return withTier ? [f.path, f.tier ?? '', level, fmt(f.tokens), (f.relevance ?? 0).toFixed(2)] : [f.path, level, fmt(f.tokens)];
      }),
      withTier ? 'lllrr' : 'llr',
    ),
  );
  return lines;
}

function clip(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length <= TASK_CHARS ? oneLine : `${oneLine.slice(0, TASK_CHARS - 3)}...`;
}
