import { mkdir, unlink } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { InputError } from '../../errors.js';
import { TOOL_OUTPUT_MAX_TOKENS } from '../../conversation/message-caps.js';
import { conversationDir, ensureConversationDir, storeOutputs } from '../../conversation/store.js';
import { prepareToolOutput } from '../../conversation/tool-output.js';
import type { Tokenizer } from '../../tokenize/tokenizer.js';
import { writeFileAtomic } from '../../util/atomic-write.js';
import type { AppendJsonLine } from '../fs-io.js';
import { loadWorkingSet, updateWorkingSetFile } from './manifest-file.js';
import type { WorkingSetEvent, WorkingSetUpdate } from './update.js';

/**
 * Spec 001 section 6, orchestrator-initiated updates: add a recent tool output to the working
 * set and remove old ones. The output goes through the conversation builder's normaliser and
 * cap (spec 002 D); when the prompt does not carry it verbatim, its full text is stored out of
 * band (`.aiwg/conversation/outputs/`) and the kept text starts with the pointer line. The kept
 * text is a file under the root, so `aiwg assemble` fits it like any other entry.
 */

/** Root-relative directory of the tool outputs a working set names (ignored by git). */
export const TOOL_OUTPUTS_DIR = posix.join('.aiwg', 'conversation', 'tool-outputs');
/** Priority of a tool output added without one: spec 001's example log entry (0.3, keep recent). */
export const DEFAULT_TOOL_OUTPUT_PRIORITY = 0.3;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export interface ToolOutputTarget {
  root: string;
  /** Absolute path of the manifest. */
  file: string;
  now: () => number;
  log: AppendJsonLine;
}

export interface AddToolOutputOptions extends ToolOutputTarget {
  /** Names the output in the working set: `<TOOL_OUTPUTS_DIR>/<name>.txt`. */
  name: string;
  text: string;
  why: string;
  tokenizer: Tokenizer;
  /** Token cap of the kept text (default TOOL_OUTPUT_MAX_TOKENS, the conversation's cap). */
  cap?: number;
  priority?: number;
  /** Keep only this many tool outputs, the newest; older ones are removed in the same write. */
  keep?: number;
}

export interface ToolOutputChange {
  events: WorkingSetEvent[];
  /** Root-relative path of the kept text. */
  path: string;
  tokens?: number;
  /** Set when the full text was stored out of band. */
  pointer?: string;
}

export function toolOutputPath(name: string): string {
  if (!NAME.test(name)) {
    throw new InputError(`tool output name "${name}" is not valid: use letters, digits, ".", "_" or "-" (at most 100, not starting with a dot), e.g. npm-test`);
  }
  return posix.join(TOOL_OUTPUTS_DIR, `${name}.txt`);
}

/** Add (or replace) a tool output in the working set; with `keep`, drop the oldest beyond it. */
export async function addToolOutput(options: AddToolOutputOptions): Promise<ToolOutputChange> {
  const path = toolOutputPath(options.name);
  if (options.keep !== undefined && (!Number.isInteger(options.keep) || options.keep < 1)) throw new InputError(`keep must be a whole number >= 1, got ${options.keep}`);
  const prepared = prepareToolOutput(options.text, { cap: options.cap ?? TOOL_OUTPUT_MAX_TOKENS, tokenizer: options.tokenizer, storeOutOfBand: true });
  const manifest = await loadWorkingSet(options.file);
  const present = manifest.files.map((f) => f.path);
  const outputs = present.filter(isToolOutputPath).filter((p) => p !== path);
  const dropped = options.keep === undefined ? [] : outputs.slice(0, Math.max(0, outputs.length - (options.keep - 1)));
  const why = options.why.trim();
  const updates: WorkingSetUpdate[] = [
    ...(present.includes(path) ? [{ action: 'remove_from_working_set' as const, path, why: `replaced: ${why}` }] : []),
    ...dropped.map((old) => ({ action: 'remove_from_working_set' as const, path: old, why: `older than the ${options.keep} most recent tool outputs` })),
    { action: 'add_to_working_set', path, priority: options.priority ?? DEFAULT_TOOL_OUTPUT_PRIORITY, role: 'context', truncate_strategy: 'start', why },
  ];
  if (why === '') throw new InputError('every working-set update needs a reason: pass --why "..." (spec 001: all calls require why)');
  if (prepared.pointer !== undefined) await storeOutputs(options.root, [{ text: options.text }]);
  await ensureConversationDir(options.root);
  await mkdir(join(conversationDir(options.root), 'tool-outputs'), { recursive: true });
  await writeFileAtomic(join(options.root, path), prepared.text);
  const events = await updateWorkingSetFile({ root: options.root, file: options.file, updates, by: 'orchestrator', now: options.now, log: options.log });
  for (const old of dropped) await removeFile(options.root, old);
  return { events, path, tokens: prepared.tokens, ...(prepared.pointer !== undefined ? { pointer: prepared.pointer } : {}) };
}

/** Remove a tool output from the working set and delete its kept text (the out-of-band copy stays). */
export async function removeToolOutput(options: ToolOutputTarget & { name: string; why: string }): Promise<ToolOutputChange> {
  const path = toolOutputPath(options.name);
  const events = await updateWorkingSetFile({
    root: options.root,
    file: options.file,
    updates: [{ action: 'remove_from_working_set', path, why: options.why.trim() }],
    by: 'orchestrator',
    now: options.now,
    log: options.log,
  });
  await removeFile(options.root, path);
  return { events, path };
}

function isToolOutputPath(path: string): boolean {
  return path.startsWith(`${TOOL_OUTPUTS_DIR}/`) && path.endsWith('.txt');
}

async function removeFile(root: string, path: string): Promise<void> {
  try {
    await unlink(join(root, path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
