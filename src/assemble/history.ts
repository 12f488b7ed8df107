import type { HistoryMessage, HistoryToolCall } from '../stages.js';
import { InputError } from '../errors.js';
import { locateJsonError } from './json-locate.js';

/**
 * Parse a `--history` file: a JSON array of `{role, content}` messages or `{messages: [...]}`,
 * JSONL (one message per line), or plain text (one user message). `.json` and `.jsonl`/`.ndjson`
 * are parsed strictly; other names are sniffed (a text starting with `[` or `{` is JSON or JSONL).
 * OpenAI-style content parts (`[{type: "text", text}]`), `tool_calls` and `tool_call_id` are kept.
 * Bad input throws InputError naming the file, the line and the fix.
 */
export function parseHistory(text: string, fileName: string): HistoryMessage[] {
  const body = text.replace(/^\uFEFF/, '');
  const lower = fileName.toLowerCase();
  if (lower.endsWith('.json')) return fromJsonDocument(body, fileName);
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) return fromJsonLines(body, fileName);
  const trimmed = body.trimStart();
  if (/\.(txt|md|markdown|log)$/.test(lower) || !(trimmed.startsWith('[') || trimmed.startsWith('{'))) {
    return body.trim() === '' ? [] : [{ role: 'user', content: body }];
  }
  if (trimmed.startsWith('[') || locateJsonError(body) === null) return fromJsonDocument(body, fileName);
  return fromJsonLines(body, fileName);
}

function fromJsonDocument(text: string, fileName: string): HistoryMessage[] {
  if (text.trim() === '') return [];
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    const at = locateJsonError(text);
    const where = at ? ` at line ${at.line}, column ${at.column}` : '';
    throw new InputError(`${fileName}: invalid JSON${where}: write an array of {"role", "content"} messages, {"messages": [...]}, or one JSON message per line in a .jsonl file`, { cause: error });
  }
  // One message on its own (a JSONL file of one line, named .json) is a history of one.
  const list = Array.isArray(data) ? data : isRecord(data) && Array.isArray(data.messages) ? data.messages : isRecord(data) && typeof data.role === 'string' ? [data] : null;
  if (list === null) {
    throw new InputError(`${fileName}: expected an array of messages or an object with a "messages" array`);
  }
  return parseMessageList(list, fileName);
}

/** Validate an array of chat messages (OpenAI shape); `where` names the file in errors. */
export function parseMessageList(list: unknown[], where: string): HistoryMessage[] {
  return list.map((item, k) => toMessage(item, `${where}: message ${k + 1}`));
}

function fromJsonLines(text: string, fileName: string): HistoryMessage[] {
  const messages: HistoryMessage[] = [];
  const lines = text.split('\n');
  for (let k = 0; k < lines.length; k++) {
    const line = (lines[k] ?? '').trim();
    if (line === '') continue;
    let data: unknown;
    try {
      data = JSON.parse(line);
    } catch (error) {
      const at = locateJsonError(line);
      throw new InputError(`${fileName}: invalid JSON at line ${k + 1}${at ? `, column ${at.column}` : ''}: each line of a JSONL history must be one {"role", "content"} object`, { cause: error });
    }
    messages.push(toMessage(data, `${fileName}: line ${k + 1}`));
  }
  return messages;
}

function toMessage(item: unknown, where: string): HistoryMessage {
  if (!isRecord(item)) throw new InputError(`${where} is not an object: write {"role": "user", "content": "..."}`);
  if (typeof item.role !== 'string' || item.role === '') throw new InputError(`${where} has no "role" string: add e.g. "role": "user"`);
  const message: HistoryMessage = { role: item.role, content: contentText(item.content, where) };
  if (item.tool_calls !== undefined && item.tool_calls !== null) message.tool_calls = toolCalls(item.tool_calls, where);
  if (typeof item.tool_call_id === 'string') message.tool_call_id = item.tool_call_id;
  if (typeof item.name === 'string') message.name = item.name;
  return message;
}

function contentText(content: unknown, where: string): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === 'string' ? part : isRecord(part) && typeof part.text === 'string' ? part.text : ''))
      .filter((part) => part !== '')
      .join('\n');
  }
  throw new InputError(`${where} has a "content" that is neither text nor a list of text parts`);
}

function toolCalls(value: unknown, where: string): HistoryToolCall[] {
  if (!Array.isArray(value)) throw new InputError(`${where}: "tool_calls" must be an array`);
  return value.map((call, k) => {
    if (!isRecord(call)) throw new InputError(`${where}: tool call ${k + 1} is not an object`);
    const fn = isRecord(call.function) ? call.function : call;
    const args = fn.arguments;
    return {
      id: typeof call.id === 'string' ? call.id : '',
      name: typeof fn.name === 'string' ? fn.name : '',
      arguments: typeof args === 'string' ? args : args === undefined ? '' : JSON.stringify(args),
    };
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
