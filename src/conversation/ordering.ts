import type { HistoryMessage, HistoryToolCall } from '../stages.js';
import { groupMessages } from '../assemble/history-window.js';

/**
 * Spec 002 A and B, tool-call ordering for chat APIs. The input is repaired first (a message
 * injected between an assistant's tool calls and their results moves after the results, the fix
 * spec 002 prescribes for plan steps), then grouped by the history tier's rule (`groupMessages`),
 * then made strict: every call has an id, every result answers one call of its group, and a
 * group whose calls are not all answered is dropped whole. The output of `pairToolCalls` is valid
 * for OpenAI (`tool` messages right after the assistant `tool_calls`) and for Anthropic
 * (tool_use answered by tool_result blocks in the next user message).
 */

/** A message of the prepared conversation with its position in the session file. */
export interface PreparedMessage {
  /** 0-based index in the session's messages. */
  index: number;
  role: 'user' | 'assistant' | 'tool' | 'system';
  content: string;
  toolCalls?: HistoryToolCall[];
  toolCallId?: string;
  name?: string;
}

export interface PairedConversation {
  /** Groups in conversation order; each is one turn that stays or goes whole. */
  groups: PreparedMessage[][];
  /** Messages dropped: dangling calls, orphan results, unknown roles. */
  invalid: number;
  /** Messages moved after the tool results they had interrupted. */
  deferred: number;
}

const ROLES = new Set(['user', 'assistant', 'tool', 'system', 'developer']);
/** Anthropic's tool_use id pattern; OpenAI accepts it too. */
const SAFE_ID = /^[A-Za-z0-9_-]+$/;

export function pairToolCalls(messages: HistoryMessage[]): PairedConversation {
  const known = messages.map((m, index) => ({ m, index })).filter(({ m }) => ROLES.has(m.role));
  const unknownRoles = messages.length - known.length;
  const { order, deferred } = deferInterruptions(known.map(({ m }) => m));
  const list = order.map((k) => known[k]!);
  const { groups, invalid } = groupMessages(list.map(({ m }) => m));
  let dropped = invalid + unknownRoles;
  const used = new Set<string>();
  const out: PreparedMessage[][] = [];
  for (const group of groups) {
    const strict = strictGroup(group.map((k) => list[k]!), used);
    if (strict === null) dropped += group.length;
    else {
      dropped += group.length - strict.length;
      out.push(strict);
    }
  }
  return { groups: out, invalid: dropped, deferred };
}

/**
 * Spec 002 A: `assistant(tool_calls) -> user(step) -> tool(results)` becomes
 * `assistant(tool_calls) -> tool(results) -> user(step)`. Only messages before the next
 * assistant message are moved, and only when results for the calls follow them.
 */
function deferInterruptions(messages: HistoryMessage[]): { order: number[]; deferred: number } {
  const order: number[] = [];
  let deferred = 0;
  let i = 0;
  while (i < messages.length) {
    order.push(i);
    const ids = new Set((messages[i]!.tool_calls ?? []).map((c) => c.id).filter((id) => id !== ''));
    if (messages[i]!.role !== 'assistant' || ids.size === 0) {
      i++;
      continue;
    }
    const results: number[] = [];
    const others: number[] = [];
    let j = i + 1;
    for (; j < messages.length && messages[j]!.role !== 'assistant'; j++) (messages[j]!.role === 'tool' ? results : others).push(j);
    const lastResult = results[results.length - 1] ?? -1;
    const interrupting = others.filter((k) => k < lastResult).length;
    // Results first (in their order), then the interrupting messages (in theirs).
    order.push(...(interrupting > 0 ? [...results, ...others] : [...results, ...others].sort((a, b) => a - b)));
    deferred += interrupting;
    i = j;
  }
  return { order, deferred };
}

function strictGroup(group: Array<{ m: HistoryMessage; index: number }>, used: Set<string>): PreparedMessage[] | null {
  const [head, ...rest] = group;
  const lead = toPrepared(head!);
  const calls = head!.m.tool_calls ?? [];
  // Results after an assistant message without calls answer nothing: orphans.
  if (calls.length === 0) return [lead];
  // Results pair with calls by id (one result per call); without ids, by position.
  const hasIds = calls.every((c) => c.id !== '');
  if (hasIds && new Set(calls.map((c) => c.id)).size !== calls.length) return null;
  const answers = hasIds ? calls.map((c) => rest.find((r) => r.m.tool_call_id === c.id)) : rest;
  if (answers.length !== calls.length || answers.some((r) => r === undefined)) return null;
  const fresh = calls.map((c, k) => freshId(c.id, `call_${head!.index}_${k}`, used));
  lead.toolCalls = calls.map((c, k) => ({ ...c, id: fresh[k]!, arguments: objectArguments(c.arguments) }));
  const results = answers.map((r, k) => ({ ...toPrepared(r!), toolCallId: fresh[k]! }));
  return [lead, ...results];
}

/** A unique id matching SAFE_ID: the model's own when it is one, else a cleaned or made-up one. */
function freshId(id: string, fallback: string, used: Set<string>): string {
  let base = id === '' ? fallback : SAFE_ID.test(id) ? id : id.replace(/[^A-Za-z0-9_-]/g, '_');
  if (base.length > 64) base = base.slice(0, 64);
  let candidate = base;
  for (let n = 2; used.has(candidate); n++) candidate = `${base}_${n}`;
  used.add(candidate);
  return candidate;
}

function toPrepared({ m, index }: { m: HistoryMessage; index: number }): PreparedMessage {
  const role = m.role === 'developer' ? 'system' : (m.role as PreparedMessage['role']);
  const out: PreparedMessage = { index, role, content: m.content };
  if (m.name !== undefined) out.name = m.name;
  return out;
}

/**
 * Arguments as JSON text of an object, which both APIs require (Anthropic's tool_use input is
 * an object): empty becomes `{}`, anything else that is not an object is kept under `arguments`.
 */
export function objectArguments(args: string): string {
  if (args.trim() === '') return '{}';
  try {
    const value = JSON.parse(args) as unknown;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return args;
  } catch {
    // Not JSON: kept verbatim below.
  }
  return JSON.stringify({ arguments: args });
}
