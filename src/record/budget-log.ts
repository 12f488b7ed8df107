import { resolveBudgetLogPath } from '../cache/cache-dir.js';
import { ensureOwnDirs } from '../cache/own-dirs.js';
import { appendLine } from '../util/atomic-write.js';

/**
 * One line of `.aiwg/rag/context-budget-log.jsonl`, whatever command applied the budget: spec
 * 000's observability fields, in its order, then what only a task run has.
 */
export interface BudgetLogLine {
  run_id: string;
  /** The workflow phase a handoff context was built for; null for a task run (context-budget, the provider). */
  phase: number | null;
  /** Tokens before the budget was applied (a task run: what the relevant files wanted at their levels). */
  original_tokens: number;
  /** The budget applied (a task run: `available`). */
  budget_tokens: number;
  /** Tokens after; equals original_tokens when nothing was cut (spec 000). */
  truncated_tokens: number;
  /** True when the budget had to cut. */
  was_truncated: boolean;
  ts: string;
  /** Task runs only: the task (redacted like a file) and the share of the budget used. */
  task?: string;
  utilization?: number;
}

/** The line with its keys in the one order, optional ones only when given. */
export function budgetLogLine(fields: BudgetLogLine): BudgetLogLine {
  const { run_id, phase, original_tokens, budget_tokens, truncated_tokens, was_truncated, ts, task, utilization } = fields;
  return {
    run_id,
    phase,
    original_tokens,
    budget_tokens,
    truncated_tokens,
    was_truncated,
    ts,
    ...(task === undefined ? {} : { task }),
    ...(utilization === undefined ? {} : { utilization }),
  };
}

/**
 * The one writer of the budget log: `<root>/.aiwg/rag/` made (ignoring itself in git) if
 * needed, then the line appended whole in one O_APPEND write, so concurrent runs never
 * interleave inside a line and a failed write leaves no torn one.
 */
export async function appendBudgetLog(root: string, line: BudgetLogLine): Promise<void> {
  await ensureOwnDirs(root);
  appendLine(resolveBudgetLogPath(root), JSON.stringify(budgetLogLine(line)));
}
