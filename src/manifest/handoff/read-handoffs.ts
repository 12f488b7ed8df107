import { readdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { parseJsonText } from '../../util/parse-json.js';
import { isInside, MAX_INPUT_FILE_BYTES, readInsideRoot } from '../../security/read-guard.js';
import { z } from 'zod';
import { InputError } from '../../errors.js';
import { keyPathOf } from '../zod-issues.js';
import type { PhaseHandoff } from './manifests.js';

/**
 * Handoff files: `<dir>/phase-<N>.json`, one per phase, written by the phase that finished.
 * The context for phase N is built from the handoffs of phases 1..N-1, in phase order.
 * Keys beyond PhaseHandoff's are ignored (producers add their own bookkeeping); a key of the
 * wrong type is an error naming the file and key.
 */
export const HANDOFF_FILE_PATTERN = /^phase-([1-9]\d*)\.json$/;

const HandoffSchema = z.looseObject({
  phase: z.number().int().positive().optional(),
  phase_name: z.string().optional(),
  goal: z.string().optional(),
  epic_id: z.string().optional(),
  verdicts: z.record(z.string(), z.string()).optional(),
  artifacts_produced: z.array(z.string()).optional(),
  decisions_made: z.array(z.string()).optional(),
  open_risks: z.array(z.string()).optional(),
  narrative: z.string().optional(),
});

/** Parse one handoff JSON text; the phase comes from the file name. */
export function parseHandoff(text: string, file: string, phase: number): PhaseHandoff {
  const parsedJson = parseJsonText(text);
  if (!parsedJson.ok) throw new InputError(`${file}: ${parsedJson.problem}: fix the handoff file (see docs/handoffs.md)`);
  const value = parsedJson.value;
  // JSON null for an absent field is common in producers written in other languages.
  const cleaned = value !== null && typeof value === 'object' && !Array.isArray(value)
    ? Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null))
    : value;
  const parsed = HandoffSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? keyPathOf(issue.path) || '(top level)' : '(top level)';
    throw new InputError(`${file}: ${where}: ${issue?.message ?? 'invalid'}: fix the handoff file (see docs/handoffs.md)`);
  }
  const data = parsed.data;
  if (data.phase !== undefined && data.phase !== phase) {
    throw new InputError(`${file}: phase is ${data.phase} but the file name says ${phase}: rename the file or fix "phase"`);
  }
  const handoff: PhaseHandoff = { phase };
  for (const key of ['phase_name', 'goal', 'epic_id', 'verdicts', 'artifacts_produced', 'decisions_made', 'open_risks', 'narrative'] as const) {
    if (data[key] !== undefined) Object.assign(handoff, { [key]: data[key] });
  }
  return handoff;
}

/**
 * Read the handoffs that precede `phase` from `dir`, sorted by phase. A missing dir is none.
 * Each file goes through the read-path guard, confined to the root when `dir` is inside it
 * (else to `dir` itself): a `phase-1.json` that is a symlink out, a directory, a FIFO or a
 * device is an error naming the file, and its content is never echoed.
 */
export async function readPriorHandoffs(dir: string, phase: number, options: { root?: string } = {}): Promise<PhaseHandoff[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new InputError(`cannot read handoff directory ${dir}: ${(error as Error).message}`, { cause: error });
  }
  const files = names
    .map((name) => ({ name, match: HANDOFF_FILE_PATTERN.exec(name) }))
    .filter((entry): entry is { name: string; match: RegExpExecArray } => entry.match !== null)
    .map((entry) => ({ name: entry.name, phase: Number(entry.match[1]) }))
    .filter((entry) => entry.phase < phase)
    .sort((a, b) => a.phase - b.phase);
  const realDir = await realpath(dir);
  const realRoot = options.root === undefined ? undefined : await realpath(options.root);
  const confine = realRoot !== undefined && isInside(realRoot, realDir) ? realRoot : realDir;
  const handoffs: PhaseHandoff[] = [];
  for (const entry of files) {
    const path = join(dir, entry.name);
    const read = await readInsideRoot(confine, join(realDir, entry.name), { maxBytes: MAX_INPUT_FILE_BYTES, realRoot: confine });
    if (read.kind === 'refused') {
      throw new InputError(`handoff ${path} ${read.reason}: replace it with a regular phase-<N>.json file or remove it`);
    }
    handoffs.push(parseHandoff(read.file.bytes.toString('utf8'), path, entry.phase));
  }
  return handoffs;
}
