import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError, UsageError } from '../errors.js';
import { ensureIgnoredDir } from '../cache/own-dirs.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { parseSessionRecord, type SessionRecord } from './record.js';
import { POINTER_PREFIX } from './tool-output.js';
import { sha256Hex } from '../util/hash.js';

/**
 * Where `aiwg conversation` keeps its state, under `<root>/.aiwg/conversation/` (a directory
 * that ignores itself): `outputs/<sha256>.txt`, the full text of every tool output a prompt
 * does not carry verbatim (content-addressed, written once by temp file + rename), and
 * `sessions/<id>.json`, the session records.
 */
export function conversationDir(root: string): string {
  return join(root, '.aiwg', 'conversation');
}

const SELF_IGNORE = '# Written by aiwg-context: stored tool outputs and session records, never committed.\n*\n';
const POINTER = new RegExp(`^${POINTER_PREFIX}([0-9a-f]{12,64})$`);

/** Store full tool outputs; an output already stored is not written again. */
export async function storeOutputs(root: string, outputs: ReadonlyArray<{ text: string }>): Promise<void> {
  if (outputs.length === 0) return;
  const dir = join(conversationDir(root), 'outputs');
  await ensureConversationDir(root);
  const present = new Set(await readdir(dir).catch(() => [] as string[]));
  for (const { text } of outputs) {
    const name = `${sha256Hex(text)}.txt`;
    if (!present.has(name)) await writeFileAtomic(join(dir, name), text);
  }
}

/**
 * The full text behind a pointer (`sha256:` + at least 12 hex digits). The file's content is
 * checked against its address: a corrupt entry is reported, never returned.
 */
export async function readOutput(root: string, pointer: string): Promise<string> {
  const match = POINTER.exec(pointer.trim());
  if (!match) throw new UsageError(`"${pointer}" is not an output pointer: pass what the message shows, e.g. ${POINTER_PREFIX}0123456789abcdef`);
  const hex = match[1]!;
  const dir = join(conversationDir(root), 'outputs');
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.txt') && n.startsWith(hex));
  if (names.length === 0) throw new InputError(`no stored output ${pointer} under ${dir}: was the session built in this root (--root)?`);
  if (names.length > 1) throw new InputError(`${pointer} matches ${names.length} stored outputs: pass more of the hash`);
  const text = await readFile(join(dir, names[0]!), 'utf8');
  if (`${sha256Hex(text)}.txt` !== names[0]) throw new InputError(`stored output ${names[0]} is corrupt (its content no longer matches its hash): rebuild the conversation to store it again`);
  return text;
}

export async function readSessionRecord(root: string, sessionId: string): Promise<SessionRecord | null> {
  try {
    return parseSessionRecord(await readFile(sessionRecordPath(root, sessionId), 'utf8'));
  } catch {
    return null;
  }
}

export async function writeSessionRecord(root: string, record: SessionRecord): Promise<void> {
  await ensureConversationDir(root);
  await writeFileAtomic(sessionRecordPath(root, record.session_id), `${JSON.stringify(record, null, 2)}\n`);
}

export function sessionRecordPath(root: string, sessionId: string): string {
  return join(conversationDir(root), 'sessions', `${sessionId}.json`);
}

/** Create `.aiwg/conversation/` (ignoring itself) and its `outputs/`. */
export async function ensureConversationDir(root: string): Promise<void> {
  const dir = conversationDir(root);
  await ensureIgnoredDir(dir, SELF_IGNORE);
  await mkdir(join(dir, 'outputs'), { recursive: true });
  await mkdir(join(dir, 'sessions'), { recursive: true });
}
