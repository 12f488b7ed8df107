import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { AiwgError } from '../errors.js';
import { resolveBudgetLogPath, resolveRecordsDir } from '../cache/cache-dir.js';
import { appendBudgetLog, budgetLogLine, type BudgetLogLine } from './budget-log.js';
import { ensureOwnDirs } from '../cache/own-dirs.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { validateRecord, type BudgetRecord } from './record-schema.js';

export { describeSchemaError, validateRecord } from './record-schema.js';

/** The tiers holding repository files; `requested_tokens` covers these, not history. */
const FILE_TIERS = ['primary', 'supporting', 'reference'] as const;

/**
 * Persist one budget record: validated against BudgetRecordSchema first (an invalid record is
 * refused and nothing touches the disk), written atomically (temp file + rename) to
 * `<root>/.aiwg/rag/budget-records/<timestamp>-<run_id>.json`, then one line appended to the
 * JSONL log in a single append. If the append fails the record is removed again, so the two
 * never disagree and no half-written run is left behind.
 */
export async function writeRecord(record: BudgetRecord, options: { root: string }): Promise<{ recordPath: string }> {
  const valid = validateRecord(record);
  const recordPath = join(resolveRecordsDir(options.root), recordFileName(valid));
  const logPath = resolveBudgetLogPath(options.root);
  try {
    await ensureOwnDirs(options.root);
    await writeFileAtomic(recordPath, `${JSON.stringify(valid, null, 2)}\n`);
  } catch (error) {
    throw ioError('write the budget record', recordPath, error);
  }
  try {
    // One whole line with one O_APPEND write; a failed or short write is truncated away.
    await appendBudgetLog(options.root, logLine(valid));
  } catch (error) {
    await rm(recordPath, { force: true });
    throw ioError('append to the budget log', logPath, error);
  }
  return { recordPath };
}

/** A task run's budget log line: spec 000's fields (no phase), plus the task and utilization. */
export function logLine(record: BudgetRecord): BudgetLogLine {
  return budgetLogLine({
    run_id: record.run_id,
    phase: null,
    original_tokens: record.metrics.requested_tokens,
    budget_tokens: record.available,
    truncated_tokens: FILE_TIERS.reduce((sum, tier) => sum + record.allocation[tier].total_tokens, 0),
    was_truncated: record.overflow.occurred,
    ts: record.timestamp,
    task: record.task,
    utilization: record.metrics.utilization,
  });
}

/**
 * `<timestamp>-<run_id>.json`, with `:` turned into `-` (not allowed in Windows file names)
 * and the run id limited to a safe alphabet, so names sort by time.
 */
export function recordFileName(record: Pick<BudgetRecord, 'timestamp' | 'run_id'>): string {
  return `${record.timestamp.replace(/:/g, '-')}-${safeRunId(record.run_id)}.json`;
}

export function safeRunId(runId: string): string {
  return runId.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 100) || 'run';
}

function ioError(what: string, path: string, error: unknown): AiwgError {
  // A WriteError already names the path, the errno and the fix.
  const detail = error instanceof AiwgError ? error.message : `cannot ${what} ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
  return new AiwgError('E_RECORD_IO', `${detail}; to ${what}, the directory must be writable and the disk not full (or pass --no-record)`, {
    exitCode: 2,
    cause: error,
  });
}
