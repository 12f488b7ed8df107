import type { Tokenizer } from '../tokenize/tokenizer.js';
import { cutToLimit } from '../summarize/outline/render.js';
import { firstSentences } from '../summarize/summarizers/local.js';
import type { LlmSummarizer } from '../summarize/summarizers/llm.js';
import type { PreparedMessage } from './ordering.js';

/**
 * Spec 002 C, the rolling session summary: engine-authored, it says what fell out of the
 * recent window. Each group that leaves the window becomes one or more event lines
 * (extractive: first sentences, tool name and arguments, the telling line of the result, the
 * pointer to the stored output); the summarizer folds them into the previous summary. The
 * extractive summarizer is the default; the LLM one runs when `summarization.llm` is enabled.
 */
export interface ConversationSummarizer {
  /** Recorded with the summary: a record made by another summarizer is not resumed from. */
  id: string;
  summarize(input: { previous: string; events: string[] }, tokenizer: Tokenizer, limit: number): Promise<string>;
}

/** Characters of one event line before it is clipped. */
const EVENT_CHARS = 240;
const ARGUMENT_CHARS = 100;

/** The deterministic default: previous summary + new event lines, oldest events folded into a count. */
export function createExtractiveSummarizer(): ConversationSummarizer {
  return {
    id: 'extractive:1',
    async summarize({ previous, events }, tokenizer, limit) {
      return foldLines([...splitLines(previous), ...events], tokenizer, limit);
    },
  };
}

/** The LLM summarizer; on any failure it falls back to the extractive one (and says so). */
export function createLlmConversationSummarizer(llm: LlmSummarizer, onFallback: (message: string) => void): ConversationSummarizer {
  const extractive = createExtractiveSummarizer();
  return {
    id: llm.id,
    async summarize(input, tokenizer, limit) {
      try {
        return await llm.summarizeConversation(input, tokenizer, limit);
      } catch (error) {
        onFallback(`${(error as Error).message}; used the extractive summary`);
        return extractive.summarize(input, tokenizer, limit);
      }
    },
  };
}

/**
 * Keep the first line (the session's opening request) and the newest lines that fit, with a
 * count of the lines folded away between them.
 */
function foldLines(lines: string[], tokenizer: Tokenizer, limit: number): string {
  const folded = /^\[(\d+) earlier events? folded\]$/;
  const whole = lines.join('\n');
  if (tokenizer.count(whole) <= limit) return whole;
  const [first, ...rest] = lines;
  let omitted = 0;
  const body = rest.filter((line) => {
    const m = folded.exec(line);
    if (m) omitted += Number(m[1]);
    return !m;
  });
  const compose = (drop: number) => [first!, `[${omitted + drop} earlier event${omitted + drop === 1 ? '' : 's'} folded]`, ...body.slice(drop)].join('\n');
  let lo = 0;
  let hi = body.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (tokenizer.count(compose(mid)) <= limit) hi = mid;
    else lo = mid + 1;
  }
  return cutToLimit(compose(lo), { tokenizer, limit, commentPrefix: '' });
}

/** Event lines for one group that left the window; `pointers` maps message index to its stored output. */
export function describeGroup(group: PreparedMessage[], pointers: ReadonlyMap<number, string>): string[] {
  const [lead, ...results] = group;
  if (!lead) return [];
  const lines: string[] = [];
  const text = oneLine(lead.content);
  if (lead.role === 'user') lines.push(`- user (#${lead.index + 1}): ${clip(firstSentences(text, 2) || text)}`);
  else if (lead.role === 'system') lines.push(`- note (#${lead.index + 1}): ${clip(firstSentences(text, 1) || text)}`);
  else if (text !== '') lines.push(`- assistant (#${lead.index + 1}): ${clip(firstSentences(text, 1) || text)}`);
  for (const call of lead.toolCalls ?? []) {
    const result = results.find((r) => r.toolCallId === call.id);
    const outcome = result ? tellingLine(result.content) : 'no result';
    const pointer = result ? pointers.get(result.index) : undefined;
    lines.push(clip(`- ran ${call.name}(${clip(compactArguments(call.arguments), ARGUMENT_CHARS)}) -> ${outcome}`) + (pointer ? ` [${pointer}]` : ''));
  }
  return lines;
}

/** Lines that report a failure: a runner's count, a compiler error, an error class, a verdict word or cross mark opening the line. */
const FAILURE_LINES = [/\b\d+ (failed|failing|errors?)\b/i, /\berror TS\d+/, /^\W*(error|fail|failed|failure|traceback|panic)\b/i, /^\W*[A-Z]\w*(Error|Exception):/, /^[×✗✘]/];
/** Lines that report success: a runner's count, or a verdict word opening the line. */
const SUCCESS_LINES = [/\b\d+ (passed|passing)\b/i, /^\W*(ok|passed|success|succeeded|done|finished)\b/i, /\b0 errors\b/i];

/**
 * The line of a tool result that says most: a failure, else the last success verdict, else the
 * first line with words in it; with the output's length in lines.
 */
function tellingLine(content: string): string {
  const lines = content.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !/^\[(full output|\.\.\.)/.test(l));
  const chosen = lines.find((l) => FAILURE_LINES.some((r) => r.test(l))) ?? lines.findLast((l) => SUCCESS_LINES.some((r) => r.test(l))) ?? lines.find((l) => /\w{3}/.test(l)) ?? lines[0] ?? '(empty)';
  return clip(chosen, 140) + (lines.length > 1 ? ` (${lines.length} lines)` : '');
}


function compactArguments(args: string): string {
  try {
    const value = JSON.parse(args) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      return Object.entries(value as Record<string, unknown>)
        .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
        .join(', ');
    }
  } catch {
    // Not JSON: shown as written.
  }
  return oneLine(args);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function clip(text: string, max = EVENT_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function splitLines(text: string): string[] {
  return text === '' ? [] : text.split('\n');
}
