import { z } from 'zod';
import type { HistoryMessage } from '../stages.js';
import { InputError } from '../errors.js';
import { parseMessageList } from '../assemble/history.js';
import { locateJsonError } from '../assemble/json-locate.js';
import { issuesToConfigError } from '../manifest/zod-issues.js';

/**
 * A session file (spec 002's inputs): the system prompt, the conversation as chat messages
 * (OpenAI shape: roles, `tool_calls`, `tool_call_id`), the plan the model recorded, and the
 * context the engine retrieved for the task. Everything in it is user input and data.
 */
export interface Session {
  /** Names the session record (`.aiwg/conversation/sessions/<id>.json`). */
  id: string;
  system: string;
  messages: HistoryMessage[];
  /** The text the orchestrator appends when the model answers without a tool call. */
  actionPrompt?: string;
  plan?: SessionPlan;
  retrieved: RetrievedFile[];
}

export interface SessionPlan {
  steps: string[];
  /** 0-based index of the step in progress; steps.length when every step is done. */
  current: number;
}

/** A file the engine retrieved (e.g. by `aiwg context-budget`), in rank order. */
export interface RetrievedFile {
  path: string;
  content: string;
}

const StepSchema = z.union([z.string(), z.strictObject({ text: z.string(), status: z.enum(['pending', 'in_progress', 'done']).optional() })]);

const SessionSchema = z.strictObject({
  /** Letters, digits, `.`, `_` and `-` only: it names a file. */
  id: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'use letters, digits, ".", "_" and "-" (at most 100 characters)')
    .optional(),
  system: z.string().default(''),
  action_prompt: z.string().min(1).optional(),
  plan: z
    .strictObject({
      steps: z.array(StepSchema),
      /** 1-based step in progress; default: the first step not marked done. */
      current: z.number().int().min(1).optional(),
    })
    .optional(),
  retrieved: z
    .union([z.string(), z.array(z.strictObject({ path: z.string().min(1), content: z.string() }))])
    .optional(),
  messages: z.array(z.unknown()).default([]),
});

export interface ParseSessionOptions {
  /** Session id when the file gives none (the CLI derives it from the file name). */
  fallbackId: string;
}

/** Parse a session file's JSON text; bad input throws InputError/ConfigError naming the file and key. */
export function parseSession(text: string, fileName: string, options: ParseSessionOptions): Session {
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    const at = locateJsonError(text);
    throw new InputError(`${fileName}: invalid JSON${at ? ` at line ${at.line}, column ${at.column}` : ''}: a session is one JSON object with "system" and "messages"`, { cause: error });
  }
  // A bare array is a session of messages only (the shape `--history` takes).
  const value = Array.isArray(data) ? { messages: data } : data;
  const parsed = SessionSchema.safeParse(value, { reportInput: true });
  if (!parsed.success) throw issuesToConfigError(fileName, parsed.error.issues);
  const raw = parsed.data;
  let messages = parseMessageList(raw.messages, fileName);
  let system = raw.system;
  // A leading system message is the system prompt when the file gives none.
  if (system === '' && messages[0]?.role === 'system') {
    system = messages[0].content;
    messages = messages.slice(1);
  }
  const session: Session = { id: raw.id ?? options.fallbackId, system, messages, retrieved: retrievedFiles(raw.retrieved) };
  if (raw.action_prompt !== undefined) session.actionPrompt = raw.action_prompt;
  if (raw.plan) session.plan = planOf(raw.plan);
  return session;
}

/**
 * Every text of a session through `redact` (the engine's one secret redaction), so no
 * credential in a session reaches the prompt, the stored outputs or the record.
 */
export async function redactSession(session: Session, redact: (text: string) => string | Promise<string>): Promise<Session> {
  const messages = await Promise.all(
    session.messages.map(async (m) => {
      const out: HistoryMessage = { ...m, content: await redact(m.content) };
      if (m.tool_calls) out.tool_calls = await Promise.all(m.tool_calls.map(async (c) => ({ ...c, arguments: await redact(c.arguments) })));
      return out;
    }),
  );
  const out: Session = {
    ...session,
    system: await redact(session.system),
    messages,
    retrieved: await Promise.all(session.retrieved.map(async (f) => ({ path: f.path, content: await redact(f.content) }))),
  };
  if (session.actionPrompt !== undefined) out.actionPrompt = await redact(session.actionPrompt);
  if (session.plan) out.plan = { ...session.plan, steps: await Promise.all(session.plan.steps.map((s) => redact(s))) };
  return out;
}

function planOf(plan: NonNullable<z.infer<typeof SessionSchema>['plan']>): SessionPlan {
  const steps = plan.steps.map((s) => (typeof s === 'string' ? s : s.text));
  const firstOpen = plan.steps.findIndex((s) => typeof s === 'string' || s.status !== 'done');
  const current = plan.current !== undefined ? plan.current - 1 : firstOpen === -1 ? steps.length : firstOpen;
  return { steps, current: Math.min(current, steps.length) };
}

/** A rendered context (from `aiwg context-budget --output`) is one retrieved document. */
function retrievedFiles(value: string | RetrievedFile[] | undefined): RetrievedFile[] {
  if (value === undefined) return [];
  if (typeof value === 'string') return value.trim() === '' ? [] : [{ path: 'context', content: value }];
  return value;
}
