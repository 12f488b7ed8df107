import { displayPath } from '../../util/display-path.js';
import { access } from 'node:fs/promises';
import { MAX_INPUT_FILE_BYTES, readRegularFile } from '../../security/read-guard.js';
import { isAbsolute, join, resolve } from 'node:path';
import { InputError } from '../../errors.js';
import { writeFileAtomic } from '../../util/atomic-write.js';
import type { AppendJsonLine } from '../fs-io.js';
import { parseWorkingSet, type WorkingSet } from './schema.js';
import { applyWorkingSetUpdate, type WorkingSetActor, type WorkingSetEvent, type WorkingSetUpdate } from './update.js';

/**
 * The manifest on disk: where it is found by default, how it is loaded, and how updates are
 * written (atomically) and logged (appended, one JSON line per update).
 */

/** Default manifest locations under the root, first existing wins. */
export const DEFAULT_WORKING_SET_PATHS = ['working-set.yml', join('.aiwg', 'working-set.yml')] as const;

export { resolveWorkingSetEventsPath } from '../../cache/cache-dir.js';

/** The manifest path: `given` (absolute or relative to `cwd`), else the first default that exists. */
export async function resolveWorkingSetPath(root: string, given: string | undefined, cwd: string): Promise<string> {
  if (given !== undefined) return isAbsolute(given) ? given : resolve(cwd, given);
  for (const candidate of DEFAULT_WORKING_SET_PATHS) {
    const path = join(root, candidate);
    if (await exists(path)) return path;
  }
  throw new InputError(
    `no working set found: create ${DEFAULT_WORKING_SET_PATHS.join(' or ')} in ${root} (see .aiwg/examples/working-set.yml) or pass --working-set FILE`,
  );
}

/** How the manifest is named in headers and events: root-relative when inside the root. */
export function displayManifestPath(root: string, file: string): string {
  return displayPath(root, file);
}

/** The manifest's text through the read-path guard: a regular file under the size cap. */
export async function readManifestText(file: string): Promise<string> {
  const read = await readRegularFile(file, { maxBytes: MAX_INPUT_FILE_BYTES });
  if (read.kind === 'refused') throw new InputError(`cannot read working set ${file}: it ${read.reason}; check --working-set`);
  return read.file.bytes.toString('utf8');
}

export async function loadWorkingSet(file: string): Promise<WorkingSet> {
  return parseWorkingSet(await readManifestText(file), file);
}

export interface UpdateFileOptions {
  root: string;
  file: string;
  updates: WorkingSetUpdate[];
  by: WorkingSetActor;
  now: () => number;
  log: AppendJsonLine;
  /** File ports; default the disk (atomic writes). */
  io?: { read(file: string): Promise<string>; write(file: string, text: string): Promise<void> };
}

/**
 * Apply updates in order to the manifest file, write it once (atomically), then append one
 * event per update. Nothing is written when any update fails.
 */
export async function updateWorkingSetFile(options: UpdateFileOptions): Promise<WorkingSetEvent[]> {
  const manifestName = displayManifestPath(options.root, options.file);
  const io = options.io ?? { read: readManifestText, write: writeFileAtomic };
  for (let attempt = 1; ; attempt += 1) {
    const original = await io.read(options.file);
    const nowIso = new Date(options.now()).toISOString();
    let text = original;
    const events: WorkingSetEvent[] = [];
    for (const update of options.updates) {
      const applied = applyWorkingSetUpdate(text, update, { file: manifestName, nowIso, by: options.by });
      text = applied.text;
      events.push(applied.event);
    }
    if (events.length === 0) return events;
    // Optimistic concurrency: another writer (a model and an orchestrator at once) changed the
    // manifest while we edited it; redo the edit on its version rather than overwrite it.
    if ((await io.read(options.file)) !== original) {
      if (attempt < MAX_UPDATE_ATTEMPTS) continue;
      throw new InputError(`${options.file} kept changing while it was being updated (${MAX_UPDATE_ATTEMPTS} attempts): retry`);
    }
    await io.write(options.file, text);
    for (const event of events) await options.log(event);
    return events;
  }
}

/** Re-reads of a manifest that changed under an update before giving up. */
const MAX_UPDATE_ATTEMPTS = 3;

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
