import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { safeSegment } from '../cache/disk-cache.js';
import { ensureIgnoredDir } from '../cache/own-dirs.js';
import type { CreateSharedContextOptions, SharedContextPort, SharedEntry, SharedInjection } from './ports.js';
import type { SharedContextOptions } from './shared-context.js';
import {
  checkContextId,
  checkCreate,
  checkDecay,
  checkInjection,
  injectRecord,
  readMethods,
  foldLog,
  SharedStoreError,
  throwOutcome,
  UnknownSharedContextError,
  visibleEntries,
  type FoldedContext,
  type SharedRecord,
} from './shared-log.js';

export interface FileSharedContextOptions extends SharedContextOptions {
  /** Directory of the store, e.g. `<root>/.aiwg/shared`; made on first create, with a `.gitignore` of `*`. */
  dir: string;
  /** Workspace scope: one subdirectory per workspace. `default` when absent. */
  workspace?: string;
}

export const DEFAULT_WORKSPACE = 'default';
export const SHARED_GITIGNORE = '# Written by aiwg-context: shared context between agents, never committed.\n*\n';
/** A create that lost its log to a concurrent destroy's rename tries again this many times. */
const CREATE_ATTEMPTS = 5;

/**
 * The embedded shared context store: one append-only log per context,
 * `<dir>/<workspace>/<id>.log`, one JSON record per line. Every operation is one `write()` of a
 * whole line through O_APPEND, so writers in any number of processes interleave lines, never
 * bytes, and need no lock; the log order is the operation order. A writer reads the log back and
 * folds it (`foldLog`) to learn whether its record applied: that is how a conditional inject
 * that lost a race, or a create of an existing id, is refused. A line that does not parse (a
 * torn tail after a crash) is skipped. destroy renames the log away before deleting it, so a
 * record appended to it concurrently is not mistaken for one applied to a new context.
 */
export function createFileSharedContext(options: FileSharedContextOptions): SharedContextPort {
  const now = options.now ?? (() => Date.now());
  checkDecay(options.decay);
  const workspaceDir = join(options.dir, safeSegment(options.workspace ?? DEFAULT_WORKSPACE));
  const logPath = (id: string) => join(workspaceDir, `${safeSegment(id)}.log`);

  const fold = async (id: string): Promise<FoldedContext> => foldLog(await readLog(logPath(id)), now());
  const live = async (id: string): Promise<FoldedContext> => {
    const folded = await fold(id);
    if (!folded.exists) throw new UnknownSharedContextError(id);
    return folded;
  };
  const view = async (id: string, agent: string | undefined): Promise<SharedEntry[]> =>
    visibleEntries((await live(id)).entries, { nowMs: now(), agent, decay: options.decay });

  return {
    async createContext(id: string, create: CreateSharedContextOptions = {}): Promise<void> {
      checkContextId(id, 'createContext');
      const { ttlMs, replace } = checkCreate(create, options.defaultTtlMs ?? 0);
      await ensureStoreDir(options.dir, workspaceDir);
      for (let attempt = 1; ; attempt++) {
        const nonce = randomUUID();
        await appendLine(logPath(id), { op: 'create', nonce, atMs: now(), ttlMs, replace }, true);
        const outcome = (await fold(id)).outcomes.get(nonce);
        // Undefined: a concurrent destroy renamed the log after our append; the id is free again.
        if (outcome !== undefined || attempt === CREATE_ATTEMPTS) return void throwOutcome(outcome, id);
      }
    },

    async inject(id: string, injection: SharedInjection): Promise<number> {
      checkContextId(id, 'inject');
      const entry = checkInjection(injection);
      const nonce = randomUUID();
      const record = injectRecord(entry, nonce, now());
      await appendLine(logPath(id), record, false).catch((error: unknown) => {
        throw isMissing(error) ? new UnknownSharedContextError(id) : error;
      });
      return throwOutcome((await fold(id)).outcomes.get(nonce), id, entry.key, entry.expectSequence);
    },

    ...readMethods(view),

    async destroy(id: string): Promise<void> {
      checkContextId(id, 'destroy');
      await live(id);
      const path = logPath(id);
      const tomb = `${path}.${process.pid}.${randomUUID()}.destroyed`;
      try {
        await rename(path, tomb);
      } catch (error) {
        // Another process destroyed it between our read and the rename.
        if (isMissing(error)) throw new UnknownSharedContextError(id);
        throw error;
      }
      await unlink(tomb).catch(() => undefined);
    },

    async close(): Promise<void> {},
  };
}

/** Records of a log; a missing log is empty, and lines that are not whole records are skipped. */
export async function readLog(path: string): Promise<SharedRecord[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (isMissing(error)) return [];
    throw new SharedStoreError(`cannot read the shared context log ${path}: ${(error as Error).message}`, { cause: error });
  }
  const lines = text.split('\n');
  // The text after the last newline is a line still being written (or torn by a crash).
  lines.pop();
  const records: SharedRecord[] = [];
  for (const line of lines) {
    const record = parseRecord(line);
    if (record !== undefined) records.push(record);
  }
  return records;
}

function parseRecord(line: string): SharedRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const r = value as Partial<SharedRecord> & Record<string, unknown>;
  if (typeof r.nonce !== 'string' || typeof r.atMs !== 'number') return undefined;
  if (r.op === 'create') return typeof r.ttlMs === 'number' && typeof r.replace === 'boolean' ? (r as SharedRecord) : undefined;
  if (r.op === 'destroy') return r as SharedRecord;
  if (r.op === 'inject') {
    const ok = typeof r.key === 'string' && typeof r.content === 'string' && typeof r.strength === 'number';
    return ok && (r.agent === undefined || typeof r.agent === 'string') && (r.expect === undefined || typeof r.expect === 'number') ? (r as SharedRecord) : undefined;
  }
  return undefined;
}

/** One `write()` of one whole line through O_APPEND: the unit concurrent writers never split. */
async function appendLine(path: string, record: SharedRecord, create: boolean): Promise<void> {
  const line = Buffer.from(`${JSON.stringify(record)}\n`, 'utf8');
  const flags = constants.O_WRONLY | constants.O_APPEND | (create ? constants.O_CREAT : 0);
  const handle = await open(path, flags, 0o644);
  try {
    const { bytesWritten } = await handle.write(line, 0, line.length);
    if (bytesWritten !== line.length) {
      throw new SharedStoreError(`short write to the shared context log ${path} (${bytesWritten} of ${line.length} bytes): is the disk full?`);
    }
  } finally {
    await handle.close();
  }
}

/** The store directory ignores itself (one `.gitignore` of `*`), so a shared context never lands in a commit. */
async function ensureStoreDir(dir: string, workspaceDir: string): Promise<void> {
  await ensureIgnoredDir(dir, SHARED_GITIGNORE);
  await mkdir(workspaceDir, { recursive: true });
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}
