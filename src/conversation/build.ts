import { BudgetExceededError } from '../errors.js';
import { fitWholeAsync } from '../allocate/fit-render.js';
import type { Tokenizer } from '../tokenize/tokenizer.js';
import { cutToFit } from '../allocate/cut-to-fit.js';
import { escapeAttribute, neutraliseTags } from '../assemble/formats/escape.js';
import { formatCount } from '../util/format.js';
import { getConversationFormat, type ConversationFormatName, type ConversationParts } from './formats/index.js';
import { capMessageText, messageCaps } from './message-caps.js';
import { pairToolCalls, type PreparedMessage } from './ordering.js';
import { checkPlan, planDirective } from './plan.js';
import { prefixHash, SESSION_RECORD_VERSION, type SessionRecord } from './record.js';
import type { RetrievedFile, Session } from './session.js';
import { createExtractiveSummarizer, describeGroup, type ConversationSummarizer } from './summary.js';
import { outputPointer, prepareToolOutput } from './tool-output.js';
import { DEFAULT_MAX_MESSAGES, recentWindowStart } from './window.js';

/**
 * Spec 002 B, the prompt builder: a session in, the `messages[]` a chat API takes out, within
 * `maxTokens` counted by the run's tokenizer on the exact payload. Pure but for the summarizer
 * port: the full texts of cut tool outputs and the session record are returned for the shell
 * to store. Steps:
 * 1. tool-call ordering repaired and made strict (ordering.ts); repeated action prompts dropped;
 * 2. the plan validated, its current step turned into an engine directive;
 * 3. retrieved context fitted to its share;
 * 4. messages capped (tool output normalised, pointer to the stored full text);
 * 5. the recent window chosen newest-first under the token and message-count bounds;
 * 6. what left the window folded into the rolling summary, resuming from the session record;
 * 7. the payload rendered and counted whole by the engine's guarantee loop (fitWholeAsync); while
 *    over, the oldest group leaves the window.
 */
export interface BuildConversationOptions {
  maxTokens: number;
  format: ConversationFormatName;
  tokenizer: Tokenizer;
  /** Bound on the window's message count (spec 002: 20-60). */
  maxMessages?: number;
  /** Share of maxTokens retrieved context may take. */
  contextShare?: number;
  summarizer?: ConversationSummarizer;
  /** The previous build's record: resume from its summary when it still matches. */
  record?: SessionRecord | null;
  /** Put a pointer in every tool output the prompt does not carry verbatim (default true). */
  storeOutOfBand?: boolean;
  /** ISO time stamped on the record. */
  nowIso: string;
}

export interface BuiltConversation {
  /** The format's payload: `{messages}` (openai), `{system, messages}` (anthropic) or text. */
  payload: unknown;
  /** What the budget was counted on: the payload as a client sends it. */
  serialized: string;
  /** tokenizer.count(serialized); never above maxTokens. */
  tokens: number;
  /** Full texts to store out of band, by pointer. */
  outputs: Array<{ pointer: string; text: string }>;
  record: SessionRecord;
  report: ConversationReport;
}

export interface ConversationReport {
  format: string;
  tokenizer: string;
  budget: { max_tokens: number; used: number };
  messages: { in_session: number; in_window: number; summarised: number; invalid: number; deferred: number; repeated_prompts_dropped: number };
  tool_outputs: { in_window: number; normalised: number; capped: number; stored: number };
  summary: { tokens: number; summarizer: string; resumed: boolean; events_added: number } | null;
  plan: { steps: number; current: number; accepted: boolean; reason?: string } | null;
  context: { files: number; included: number; truncated: number; tokens: number } | null;
  warnings: string[];
}

export const DEFAULT_CONTEXT_SHARE = 0.3;
/** The rolling summary takes at most this many tokens, and at most SUMMARY_SHARE of the budget. */
export const SUMMARY_MAX_TOKENS = 800;
const SUMMARY_SHARE = 0.15;
/** A dropped tool output above this size is stored so the summary can point to it. */
const SUMMARY_POINTER_MIN_TOKENS = 100;
/** Below this, a truncated context file is not worth its marker. */
const MIN_CONTEXT_SLICE_TOKENS = 64;

export async function buildConversation(session: Session, options: BuildConversationOptions): Promise<BuiltConversation> {
  const { tokenizer, maxTokens } = options;
  const format = getConversationFormat(options.format);
  const count = (parts: ConversationParts) => tokenizer.count(format.serialize(format.render(parts)));
  const warnings: string[] = [];
  const storeOutOfBand = options.storeOutOfBand ?? true;
  const summarizer = options.summarizer ?? createExtractiveSummarizer();

  // 1. Ordering and repeated prompts.
  const paired = pairToolCalls(session.messages);
  const { groups, dropped: repeatedPrompts } = dropRepeatedPrompts(paired.groups, session.actionPrompt);
  if (paired.invalid > 0) warnings.push(`${paired.invalid} message${paired.invalid === 1 ? '' : 's'} dropped: tool calls without results, results without calls, or unknown roles`);

  // 2. Plan directive.
  let directive: string | undefined;
  let planReport: ConversationReport['plan'] = null;
  if (session.plan) {
    const check = checkPlan(session.plan, tokenizer);
    planReport = { steps: session.plan.steps.length, current: session.plan.current + 1, accepted: check.ok, ...(check.ok ? {} : { reason: check.reason }) };
    if (check.ok) directive = planDirective(session.plan);
    else warnings.push(`plan not accepted: ${check.reason}; no step directive was added`);
  }

  const base: ConversationParts = { system: session.system, window: [], ...(directive ? { directive } : {}) };
  let fixed = count(base);
  if (fixed > maxTokens && directive) {
    warnings.push(`the step directive does not fit with the system prompt in ${formatCount(maxTokens)} tokens: left out`);
    delete base.directive;
    directive = undefined;
    fixed = count(base);
  }
  if (fixed > maxTokens) {
    throw new BudgetExceededError(`the system prompt alone needs ${formatCount(fixed)} tokens but --max-tokens is ${formatCount(maxTokens)}: raise --max-tokens or shorten the system prompt`);
  }

  // 3. Retrieved context.
  const contextRoom = Math.min(Math.floor(maxTokens * (options.contextShare ?? DEFAULT_CONTEXT_SHARE)), Math.floor((maxTokens - fixed) / 2));
  const context = fitContext(session.retrieved, contextRoom, tokenizer);
  if (context.text !== '') base.context = context.text;
  const afterContext = count(base);

  // 4. Capped messages, costed as they render in this format.
  const windowBudget = Math.max(0, maxTokens - afterContext);
  const caps = messageCaps(windowBudget);
  const outputs = new Map<string, string>();
  const pointers = new Map<number, string>();
  const changedTools = new Set<number>();
  const cappedTools = new Set<number>();
  const shown: PreparedMessage[][] = groups.map((group) =>
    group.map((m) => {
      if (m.role === 'tool') {
        const prepared = prepareToolOutput(m.content, { cap: caps.tool, tokenizer, storeOutOfBand });
        if (prepared.pointer) pointers.set(m.index, prepared.pointer);
        if (prepared.changed) changedTools.add(m.index);
        if (prepared.capped) cappedTools.add(m.index);
        return { ...m, content: prepared.text };
      }
      const text = capMessageText(m.content, caps.message, tokenizer);
      const out: PreparedMessage = { ...m, content: text.text };
      if (m.toolCalls) out.toolCalls = m.toolCalls.map((c) => ({ ...c, arguments: capArguments(c.arguments, caps.message, tokenizer) }));
      return out;
    }),
  );
  const emptyCost = count({ system: '', window: [] });
  const costs = shown.map((group) => ({ cost: Math.max(1, count({ system: '', window: group }) - emptyCost), size: group.length }));

  // 5-6. Window and rolling summary.
  const maxMessages = options.maxMessages ?? DEFAULT_MAX_MESSAGES;
  const resume = resumePoint(options.record, groups, summarizer.id, session.id);
  if (options.record && resume.folded === 0 && options.record.folded_groups > 0) {
    warnings.push(`session record of "${session.id}" no longer matches the session (its first ${options.record.folded_groups} turns changed): summarised again`);
  }
  let start = recentWindowStart(costs, { tokens: windowBudget, messages: maxMessages, from: resume.folded });
  const summaryLimit = Math.min(SUMMARY_MAX_TOKENS, Math.floor(maxTokens * SUMMARY_SHARE));
  if (start > 0) {
    const reserve = summaryLimit + tokenizer.count(' Session summary (engine-authored; the 1000 earlier messages are no longer shown):\n');
    start = recentWindowStart(costs, { tokens: Math.max(0, windowBudget - reserve), messages: maxMessages, from: resume.folded });
  }
  let summary = resume.summary;
  let eventsAdded = 0;
  const fold = async (from: number, to: number) => {
    if (to <= from && tokenizer.count(summary) <= summaryLimit) return;
    const events = groups.slice(from, to).flatMap((group) => {
      for (const m of group) storeDropped(m, { outputs, pointers, tokenizer, storeOutOfBand });
      return describeGroup(group, pointers);
    });
    eventsAdded += events.length;
    summary = await summarizer.summarize({ previous: summary, events }, tokenizer, summaryLimit);
  };
  await fold(resume.folded, start);

  // 7. Render, count whole, repair.
  const partsAt = (s: number): ConversationParts => ({
    ...base,
    ...(s > 0 && summary !== '' ? { summary: { text: summary, covers: groups.slice(0, s).reduce((n, g) => n + g.length, 0) } } : {}),
    window: shown.slice(s).flat(),
  });
  // The engine's guarantee: counted whole; the oldest window group gives way first (folded into
  // the summary), then the retrieved context, the summary, the directive (spec 002).
  const { parts, tokens } = await fitWholeAsync({
    render: () => {
      const rendering = partsAt(start);
      return { parts: rendering, tokens: count(rendering) };
    },
    available: maxTokens,
    giveWay: async () => {
      if (start < shown.length) {
        start++;
        await fold(start - 1, start);
      } else if (base.context) {
        delete base.context;
        warnings.push('retrieved context left out: the budget holds only the system prompt and the summary');
      } else if (summary !== '') {
        summary = '';
        warnings.push('session summary left out: the budget holds only the system prompt');
      } else if (base.directive) {
        delete base.directive;
      } else {
        return false;
      }
      return true;
    },
    overBudget: (needed) => new BudgetExceededError(`the conversation needs ${formatCount(needed)} tokens but --max-tokens is ${formatCount(maxTokens)}: raise --max-tokens`),
  });

  for (const m of parts.window) {
    const pointer = pointers.get(m.index);
    if (pointer && m.role === 'tool') outputs.set(pointer, rawContent(groups, m.index));
  }
  const windowTools = parts.window.filter((m) => m.role === 'tool');
  const normalised = windowTools.filter((m) => changedTools.has(m.index)).length;
  const capped = windowTools.filter((m) => cappedTools.has(m.index)).length;
  const payload = format.render(parts);
  const serialized = format.serialize(payload);
  const summarisedMessages = groups.slice(0, start).reduce((n, g) => n + g.length, 0);
  const record: SessionRecord = {
    version: SESSION_RECORD_VERSION,
    session_id: session.id,
    updated_at: options.nowIso,
    folded_groups: parts.summary ? start : 0,
    folded_messages: parts.summary ? summarisedMessages : 0,
    prefix_sha256: prefixHash(groups, parts.summary ? start : 0),
    summary: parts.summary ? summary : '',
    summarizer: summarizer.id,
    window: parts.window.map((m) => m.index + 1),
  };
  return {
    payload,
    serialized,
    tokens,
    outputs: [...outputs].map(([pointer, text]) => ({ pointer, text })).sort((a, b) => (a.pointer < b.pointer ? -1 : a.pointer > b.pointer ? 1 : 0)),
    record,
    report: {
      format: format.name,
      tokenizer: tokenizer.id,
      budget: { max_tokens: maxTokens, used: tokens },
      messages: {
        in_session: session.messages.length,
        in_window: parts.window.length,
        summarised: summarisedMessages,
        invalid: paired.invalid,
        deferred: paired.deferred,
        repeated_prompts_dropped: repeatedPrompts,
      },
      tool_outputs: { in_window: windowTools.length, normalised, capped, stored: outputs.size },
      summary: parts.summary ? { tokens: tokenizer.count(summary), summarizer: summarizer.id, resumed: resume.folded > 0, events_added: eventsAdded } : null,
      plan: planReport,
      context: session.retrieved.length > 0 ? { files: session.retrieved.length, included: base.context ? context.included : 0, truncated: base.context ? context.truncated : 0, tokens: base.context ? tokenizer.count(context.text) : 0 } : null,
      warnings,
    },
  };
}

/**
 * Spec 002 E: a user message repeating the previous user message with no tool result in
 * between (the action prompt appended again after an answer without a tool call) is dropped.
 * With `actionPrompt` given, only repeats of that text are. Depends only on earlier messages,
 * so a session record's prefix stays stable as the session grows.
 */
export function dropRepeatedPrompts(groups: PreparedMessage[][], actionPrompt?: string): { groups: PreparedMessage[][]; dropped: number } {
  const out: PreparedMessage[][] = [];
  let lastUser: string | undefined;
  let dropped = 0;
  for (const group of groups) {
    const lead = group[0]!;
    if (lead.role === 'user') {
      const text = lead.content.trim();
      const isCandidate = actionPrompt === undefined || text === actionPrompt.trim();
      if (isCandidate && text === lastUser) {
        dropped++;
        continue;
      }
      lastUser = text;
    } else if (group.length > 1) {
      lastUser = undefined;
    }
    out.push(group);
  }
  return { groups: out, dropped };
}

function resumePoint(record: SessionRecord | null | undefined, groups: PreparedMessage[][], summarizerId: string, sessionId: string): { folded: number; summary: string } {
  if (!record || record.session_id !== sessionId || record.summarizer !== summarizerId) return { folded: 0, summary: '' };
  if (record.folded_groups === 0 || record.folded_groups > groups.length) return { folded: 0, summary: '' };
  if (prefixHash(groups, record.folded_groups) !== record.prefix_sha256) return { folded: 0, summary: '' };
  return { folded: record.folded_groups, summary: record.summary };
}

function storeDropped(
  m: PreparedMessage,
  ctx: { outputs: Map<string, string>; pointers: Map<number, string>; tokenizer: Tokenizer; storeOutOfBand: boolean },
): void {
  if (!ctx.storeOutOfBand || m.role !== 'tool' || ctx.tokenizer.count(m.content) < SUMMARY_POINTER_MIN_TOKENS) return;
  const pointer = outputPointer(m.content);
  ctx.pointers.set(m.index, pointer);
  ctx.outputs.set(pointer, m.content);
}

function rawContent(groups: PreparedMessage[][], index: number): string {
  for (const group of groups) for (const m of group) if (m.index === index) return m.content;
  return '';
}

/** Retrieved files as `<context path>` blocks, in rank order, whole while they fit, then one cut. */
function fitContext(files: RetrievedFile[], room: number, tokenizer: Tokenizer): { text: string; included: number; truncated: number } {
  const blocks: string[] = [];
  let used = 0;
  let truncated = 0;
  for (const file of files) {
    const open = `<context path="${escapeAttribute(file.path)}">\n`;
    const close = '\n</context>';
    const body = neutraliseTags(file.content);
    const whole = open + body + close;
    const cost = tokenizer.count(whole) + 1;
    if (used + cost <= room) {
      blocks.push(whole);
      used += cost;
      continue;
    }
    // The engine's one truncation choice: cut, price the block, cut again while it is over.
    const cut = cutToFit({
      content: body,
      strategy: 'middle',
      tokenizer,
      remaining: room - used,
      contentBudget: room - used - tokenizer.count(open + close) - 1,
      minContentTokens: MIN_CONTEXT_SLICE_TOKENS,
      price: ({ text }) => ({ block: open + text + close, cost: tokenizer.count(open + text + close) + 1 }),
    });
    if (cut) {
      blocks.push(cut.block);
      truncated++;
    }
    break;
  }
  return { text: blocks.join('\n'), included: blocks.length, truncated };
}

/**
 * Arguments above the cap keep valid JSON: long string values are cut (their head kept), so
 * OpenAI still gets a JSON string and Anthropic an object. Non-JSON arguments are cut as text.
 */
function capArguments(args: string, cap: number, tokenizer: Tokenizer): string {
  if (tokenizer.count(args) <= cap) return args;
  try {
    const value = JSON.parse(args) as unknown;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const entries = Object.entries(value as Record<string, unknown>);
      const share = Math.max(8, Math.floor(cap / Math.max(1, entries.length)));
      const cut = Object.fromEntries(entries.map(([k, v]) => [k, typeof v === 'string' ? capMessageText(v, share, tokenizer).text : v]));
      const text = JSON.stringify(cut);
      if (tokenizer.count(text) <= cap) return text;
      return JSON.stringify({ arguments_cut: capMessageText(text, Math.max(8, cap - 8), tokenizer).text });
    }
  } catch {
    // Not JSON: cut as text below.
  }
  return capMessageText(args, cap, tokenizer).text;
}
