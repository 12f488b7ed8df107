import { UsageError } from '../errors.js';

/** What a run id may hold: it names record files and groups log lines, so no path separators or spaces. */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/;

export const RUN_ID_HELP = 'the run (session) id to record and log under, shared by context-budget, assemble and handoff-context runs of one session (default: a new UUID); aiwg context-report --session ID shows them together';

/** `--run-id ID` checked, or undefined when absent. */
export function runIdFlag(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const text = String(value).trim();
  if (!RUN_ID.test(text)) {
    throw new UsageError(`--run-id ${JSON.stringify(String(value))}: expected 1-100 letters, digits, "_", ".", ":" or "-" starting with a letter or digit, e.g. --run-id review-42`);
  }
  return text;
}
