import { stringify } from 'yaml';
import type { AssemblyReport } from './assemble.js';

/**
 * One `assembled` line of the working-set event log (spec 001 section 11, "Event Logging:
 * track what was included when"): what one `aiwg assemble` run put into the context.
 */
export interface AssemblyEvent {
  ts: string;
  action: 'assembled';
  /** The run (session) id, shared with context-budget and handoff-context runs of one session (`--run-id`). */
  run_id: string;
  manifest: string;
  tokenizer: string;
  effective: number;
  used: number;
  included: Array<{ path: string; tokens: number; level: string; truncated: boolean }>;
  excluded: Array<{ path: string; reason: string }>;
}

export function assemblyEvent(report: AssemblyReport, manifest: string, nowMs: number, runId: string): AssemblyEvent {
  return {
    ts: new Date(nowMs).toISOString(),
    action: 'assembled',
    run_id: runId,
    manifest,
    tokenizer: report.tokenizer,
    effective: report.budget.effective,
    used: report.budget.used,
    included: report.included.map(({ path, tokens, level, truncated }) => ({ path, tokens, level, truncated })),
    excluded: report.excluded,
  };
}

/**
 * The assembly report as the YAML block of spec 001 section 9 (`assembly_report:`), for
 * people reading stderr. `original_tokens` and `level` are shown only when they differ from
 * the plain case, so a whole file reads like the spec's example.
 */
export function formatAssemblyReport(report: AssemblyReport): string {
  const included = report.included.map((file) => ({
    path: file.path,
    role: file.role,
    tokens: file.tokens,
    truncated: file.truncated,
    ...(file.original_tokens !== file.tokens ? { original_tokens: file.original_tokens } : {}),
    ...(file.level !== 'full' ? { level: file.level } : {}),
  }));
  return stringify(
    {
      assembly_report: {
        budget: report.budget,
        tokenizer: report.tokenizer,
        included,
        excluded: report.excluded,
        warnings: report.warnings,
      },
    },
    { lineWidth: 0 },
  );
}
