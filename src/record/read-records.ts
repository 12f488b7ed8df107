import { readdir, readFile } from 'node:fs/promises';
import { parseJsonText } from '../util/parse-json.js';
import { join, relative, sep } from 'node:path';
import { resolveRecordsDir } from '../cache/cache-dir.js';
import { BudgetRecordSchema, type BudgetRecord } from './record-schema.js';
import { describeSchemaError, safeRunId } from './write-record.js';

export interface ReadRecordsOptions {
  /** Keep only the newest N records. */
  last?: number;
  /** Keep records at or after this instant. */
  since?: Date;
  /** Keep the run with this id (or id prefix). */
  session?: string;
}

export interface ReadRecordsResult {
  /** Oldest first; ties by run id. */
  records: BudgetRecord[];
  /** Files that could not be used, root-relative, with the reason. */
  skipped: Array<{ path: string; reason: string }>;
}

const READ_BATCH = 16;
/** `2026-01-15T10-00-00.000Z-<run id>.json`, as write-record.ts names records. */
const RECORD_NAME = /^(\d{4}-\d{2}-\d{2}T\d{2})-(\d{2})-(\d{2}(?:\.\d+)?Z)-(.+)\.json$/;

/**
 * Read the budget records of a root. A corrupt or foreign file is skipped with its reason,
 * never fatal. File names carry the time and run id, so `--since`, `--session` and `--last`
 * skip files without opening them; every record read is still checked by its own fields.
 */
export async function readRecords(root: string, options: ReadRecordsOptions = {}): Promise<ReadRecordsResult> {
  const dir = resolveRecordsDir(root);
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.json') && !n.startsWith('.'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], skipped: [] };
    throw error;
  }
  const sinceMs = options.since?.getTime();
  const session = options.session;
  const candidates = names
    .map((name) => ({ name, ...parseRecordName(name) }))
    .filter((c) => c.ms === undefined || sinceMs === undefined || c.ms >= sinceMs)
    .filter((c) => c.runId === undefined || session === undefined || c.runId.startsWith(safeRunId(session)))
    // Newest first; names we did not write (no parsable time) last.
    .sort((a, b) => (b.ms ?? -Infinity) - (a.ms ?? -Infinity) || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));

  const records: BudgetRecord[] = [];
  const skipped: ReadRecordsResult['skipped'] = [];
  for (let i = 0; i < candidates.length; i += READ_BATCH) {
    if (options.last !== undefined && records.length >= options.last) break;
    const batch = candidates.slice(i, i + READ_BATCH);
    const outcomes = await Promise.all(batch.map((c) => readOne(join(dir, c.name))));
    outcomes.forEach((outcome, k) => {
      const path = relative(root, join(dir, (batch[k] as { name: string }).name)).split(sep).join('/');
      if ('reason' in outcome) skipped.push({ path, reason: outcome.reason });
      else if (matches(outcome.record, sinceMs, session)) records.push(outcome.record);
    });
  }
  records.sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp) || (a.run_id < b.run_id ? -1 : a.run_id > b.run_id ? 1 : 0));
  return { records: options.last !== undefined ? records.slice(Math.max(0, records.length - options.last)) : records, skipped };
}

function parseRecordName(name: string): { ms?: number; runId?: string } {
  const m = RECORD_NAME.exec(name);
  if (!m) return {};
  const ms = Date.parse(`${m[1]}:${m[2]}:${m[3]}`);
  return Number.isNaN(ms) ? {} : { ms, runId: m[4] };
}

function matches(record: BudgetRecord, sinceMs: number | undefined, session: string | undefined): boolean {
  if (sinceMs !== undefined && Date.parse(record.timestamp) < sinceMs) return false;
  if (session !== undefined && !record.run_id.startsWith(session)) return false;
  return true;
}

async function readOne(path: string): Promise<{ record: BudgetRecord } | { reason: string }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    return { reason: `unreadable (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  const json = parseJsonText(text);
  if (!json.ok) return { reason: json.problem };
  const parsed = BudgetRecordSchema.safeParse(json.value);
  if (parsed.success) return { record: parsed.data };
  return { reason: `not a budget record of this version: ${describeSchemaError(parsed.error)}` };
}
