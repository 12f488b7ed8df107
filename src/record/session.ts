import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { LEVELS, TIER_NAMES } from '../config/schema.js';
import { resolveBudgetLogPath, resolveWorkingSetEventsPath } from '../cache/cache-dir.js';
import { displayPath } from '../util/display-path.js';
import { parseJsonText } from '../util/parse-json.js';
import { readRecords } from './read-records.js';
import type { BudgetRecord } from './record-schema.js';

/**
 * Everything one session (run id) left behind, from the three places runs write: budget records
 * (context-budget), the budget log's phase lines (handoff-context) and the working-set event log's
 * `assembled` lines (assemble). A session is what shares a run id: `--run-id` on each command.
 */
export interface SessionView {
  /** The id or prefix asked for. */
  session: string;
  /** Every run found, oldest first. */
  runs: SessionRun[];
  /** Lines and files that could not be read, with the reason (never fatal). */
  skipped: Array<{ path: string; reason: string }>;
}

export interface SessionFile {
  path: string;
  /** Tier for context-budget runs; null for assemble (a working set has roles, not tiers). */
  tier: string | null;
  level: string;
  tokens: number;
  relevance: number | null;
  truncated: boolean;
}

export type SessionRun =
  | { kind: 'context-budget'; run_id: string; ts: string; task: string; used: number; available: number; files: SessionFile[]; excluded: number }
  | { kind: 'assemble'; run_id: string; ts: string; manifest: string; used: number; available: number; files: SessionFile[]; excluded: number }
  | { kind: 'handoff-context'; run_id: string; ts: string; phase: number; original_tokens: number; budget_tokens: number; truncated_tokens: number; was_truncated: boolean };

const HandoffLine = z.object({
  run_id: z.string(),
  phase: z.number().int(),
  ts: z.string(),
  original_tokens: z.number(),
  budget_tokens: z.number(),
  truncated_tokens: z.number(),
  was_truncated: z.boolean(),
});

const AssembledLine = z.object({
  run_id: z.string(),
  action: z.literal('assembled'),
  ts: z.string(),
  manifest: z.string(),
  effective: z.number(),
  used: z.number(),
  included: z.array(z.object({ path: z.string(), tokens: z.number(), level: z.enum(LEVELS), truncated: z.boolean() })),
  excluded: z.array(z.unknown()),
});

/** Read a session: records and log lines whose run id starts with `session`. */
export async function readSession(root: string, session: string): Promise<SessionView> {
  const { records, skipped } = await readRecords(root, { session });
  const runs: SessionRun[] = records.map(budgetRun);
  const matches = (line: { run_id: string }) => line.run_id.startsWith(session);

  for (const line of await readJsonl(root, resolveBudgetLogPath(root), skipped)) {
    // context-budget's own log lines (phase null) repeat its record; the phase lines are handoff-context runs.
    const parsed = HandoffLine.safeParse(line);
    if (parsed.success && matches(parsed.data)) runs.push({ kind: 'handoff-context', ...parsed.data });
  }
  for (const line of await readJsonl(root, resolveWorkingSetEventsPath(root), skipped)) {
    const parsed = AssembledLine.safeParse(line);
    if (!parsed.success || !matches(parsed.data)) continue;
    const event = parsed.data;
    runs.push({
      kind: 'assemble',
      run_id: event.run_id,
      ts: event.ts,
      manifest: event.manifest,
      used: event.used,
      available: event.effective,
      files: event.included.map((f) => ({ path: f.path, tier: null, level: f.level, tokens: f.tokens, relevance: null, truncated: f.truncated })),
      excluded: event.excluded.length,
    });
  }
  runs.sort((a, b) => Date.parse(a.ts) - Date.parse(b.ts) || a.kind.localeCompare(b.kind));
  return { session, runs, skipped };
}

function budgetRun(record: BudgetRecord): SessionRun {
  const files: SessionFile[] = TIER_NAMES.filter((tier) => tier !== 'history').flatMap((tier) =>
    record.allocation[tier].files.map((f) => ({ path: f.path, tier, level: f.level, tokens: f.tokens, relevance: f.relevance_score, truncated: f.truncated === true })),
  );
  return {
    kind: 'context-budget',
    run_id: record.run_id,
    ts: record.timestamp,
    task: record.task,
    used: record.metrics.rendered_tokens,
    available: record.available,
    files,
    excluded: record.excluded.length,
  };
}

/** The JSON values of a JSONL file's lines; a missing file is empty, a bad line is skipped with its line number. */
async function readJsonl(root: string, path: string, skipped: SessionView['skipped']): Promise<unknown[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    skipped.push({ path: displayPath(root, path), reason: `unreadable (${(error as NodeJS.ErrnoException).code ?? 'error'})` });
    return [];
  }
  const values: unknown[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    const json = parseJsonText(line);
    if (json.ok) values.push(json.value);
    else skipped.push({ path: `${displayPath(root, path)}:${index + 1}`, reason: json.problem });
  });
  return values;
}
