import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { WorkingSet } from './schema.js';

/**
 * Spec 001 section 6, orchestrator-initiated updates: bump files the engine used in its
 * most recent runs, demote files it has not used for N runs. The plan is pure; reading the
 * budget records is the only I/O and it is lenient (a record that does not parse is skipped
 * with a warning, never fatal).
 */
export interface RecordUsage {
  /** Record file name, for messages and ordering ties. */
  name: string;
  /** Epoch ms of the run (the record's `timestamp`, else 0). */
  timeMs: number;
  /** Paths the run put into any tier. */
  paths: Set<string>;
}

export interface RefreshOptions {
  /** Bump files that appear in the newest N records. */
  bumpRecent?: number;
  /** Demote files absent from the newest N records (only when N records exist). */
  demoteUnused?: number;
}

export interface PriorityChange {
  path: string;
  from: number;
  to: number;
  kind: 'bump' | 'demote';
  why: string;
}

/** Priority step of one bump or demotion; priorities stay in [0, 1], rounded to 2 decimals. */
export const REFRESH_STEP = 0.1;

export function planRefresh(manifest: WorkingSet, records: RecordUsage[], options: RefreshOptions): PriorityChange[] {
  const newest = [...records].sort((a, b) => b.timeMs - a.timeMs || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
  const changes: PriorityChange[] = [];
  const bumpWindow = options.bumpRecent ? newest.slice(0, options.bumpRecent) : [];
  const demoteWindow = options.demoteUnused && newest.length >= options.demoteUnused ? newest.slice(0, options.demoteUnused) : [];
  for (const file of [...manifest.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    const hits = bumpWindow.filter((record) => record.paths.has(file.path)).length;
    if (hits > 0 && file.priority < 1) {
      changes.push({
        path: file.path,
        from: file.priority,
        to: clamp(file.priority + REFRESH_STEP),
        kind: 'bump',
        why: `used in ${hits} of the newest ${bumpWindow.length} budget record${bumpWindow.length === 1 ? '' : 's'}`,
      });
      continue;
    }
    // Instruction files (system/developer/user) are not chosen by the engine, so absence
    // from budget records says nothing about them.
    const isUnused = demoteWindow.length > 0 && file.role === 'context' && demoteWindow.every((record) => !record.paths.has(file.path));
    if (isUnused && file.priority > 0) {
      changes.push({
        path: file.path,
        from: file.priority,
        to: clamp(file.priority - REFRESH_STEP),
        kind: 'demote',
        why: `unused in the last ${demoteWindow.length} budget record${demoteWindow.length === 1 ? '' : 's'}`,
      });
    }
  }
  return changes;
}

/** Read `<dir>/*.json` budget records leniently: paths from allocation.<tier>.files[].path. */
export async function readRecordUsage(dir: string): Promise<{ records: RecordUsage[]; warnings: string[] }> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => name.endsWith('.json')).sort();
  } catch {
    return { records: [], warnings: [`no budget records in ${dir}: run "aiwg context-budget" first`] };
  }
  const records: RecordUsage[] = [];
  const warnings: string[] = [];
  for (const name of names) {
    try {
      records.push(recordUsageOf(name, JSON.parse(await readFile(join(dir, name), 'utf8')) as unknown));
    } catch (error) {
      warnings.push(`skipped budget record ${name}: ${(error as Error).message}`);
    }
  }
  return { records, warnings };
}

/** Extract usage from one parsed record; tolerant of missing tiers and extra fields. */
export function recordUsageOf(name: string, value: unknown): RecordUsage {
  const record = asObject(value);
  if (!record) throw new Error('not a JSON object');
  const stamp = typeof record.timestamp === 'string' ? Date.parse(record.timestamp) : Number.NaN;
  const paths = new Set<string>();
  const allocation = asObject(record.allocation) ?? {};
  for (const tier of Object.values(allocation)) {
    const files = asObject(tier)?.files;
    if (!Array.isArray(files)) continue;
    for (const file of files) {
      const path = asObject(file)?.path;
      if (typeof path === 'string') paths.add(path);
    }
  }
  return { name, timeMs: Number.isFinite(stamp) ? stamp : 0, paths };
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function clamp(priority: number): number {
  return Math.min(1, Math.max(0, Math.round(priority * 100) / 100));
}
