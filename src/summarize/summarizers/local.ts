import type { Tokenizer } from '../../tokenize/tokenizer.js';
import type { FileAnalysis, OutlineItem } from '../outline/index.js';
import { cutToLimit } from '../outline/render.js';

/** Part of every summary cache key: bump when the local summary text changes. */
export const LOCAL_SUMMARIZER = { id: 'local', version: 4 } as const;

export interface SummaryInput {
  analysis: FileAnalysis;
  lineCount: number;
  /** Exact tokens of the full file under the run's tokenizer. */
  fullTokens: number;
}

interface Caps {
  sentences: number;
  names: number;
  deps: number;
}

const START_CAPS: Caps = { sentences: 3, names: 24, deps: 12 };

/**
 * The deterministic extractive summary: purpose (module doc comment, or a document's title and
 * first sentence), what the file exports or defines, what it depends on, and its size. Lists
 * and sentences shrink until the text fits `limit`; the last resort cuts whole lines.
 */
export function summarizeLocally(input: SummaryInput, tokenizer: Tokenizer, limit: number): string {
  let caps = START_CAPS;
  for (;;) {
    const text = composeSummary(input, caps);
    if (limit < 0 || tokenizer.count(text) <= limit) return text;
    if (caps.sentences === 1 && caps.names <= 3 && caps.deps <= 3) return cutToLimit(text, { tokenizer, limit, commentPrefix: '' });
    caps = { sentences: Math.max(1, caps.sentences - 1), names: Math.max(3, caps.names >> 1), deps: Math.max(3, caps.deps >> 1) };
  }
}

function composeSummary(input: SummaryInput, caps: Caps): string {
  const { analysis } = input;
  const lines: string[] = [];
  const noun = { code: ' source file', markdown: ' document', data: ' document', text: analysis.fileType.endsWith(' file') ? '' : ' file' }[analysis.family];
  const purpose = firstSentences(purposeText(analysis), caps.sentences);
  lines.push(purpose ? `${analysis.fileType}${noun}: ${purpose}` : `${analysis.fileType}${noun}.`);
  const top = analysis.items;
  if (analysis.family === 'code') {
    const defs = publicSurface(top);
    const exported = defs.filter((i) => i.exported);
    if (exported.length > 0) lines.push(`Exports: ${nameList(exported.map(describe), caps.names)}.`);
    const internal = defs.filter((i) => !i.exported);
    if (internal.length > 0) lines.push(`${exported.length > 0 ? 'Also defines' : 'Defines'}: ${nameList(internal.map(describe), caps.names)}.`);
    const deps = dependencies(top);
    if (deps.length > 0) lines.push(`Depends on: ${nameList(deps, caps.deps)}.`);
  } else if (analysis.family === 'markdown') {
    const sections = top.filter((i) => i.kind === 'heading').flatMap((i) => (top.length === 1 ? i.children : [i]));
    if (sections.length > 0) lines.push(`Sections: ${nameList(sections.map((s) => s.name ?? ''), caps.names, '; ')}.`);
  } else if (analysis.family === 'data') {
    if (top.length > 0) lines.push(`Top-level keys: ${nameList(top.map((i) => i.name ?? ''), caps.names)}.`);
  }
  lines.push(`Size: ${input.lineCount} ${input.lineCount === 1 ? 'line' : 'lines'}, ${input.fullTokens} tokens.`);
  return lines.join('\n');
}

/** Top-level definitions, with namespaces and modules opened: their members are the surface. */
function publicSurface(items: OutlineItem[]): OutlineItem[] {
  return items
    .filter((i) => i.isDefinition)
    .flatMap((i) => (WRAPPING_KINDS.has(i.kind) && i.children.some((c) => c.isDefinition) ? publicSurface(i.children) : [i]));
}

const WRAPPING_KINDS = new Set(['namespace', 'module']);
const BEHAVIOUR_KINDS = new Set(['function', 'class', 'method', 'struct', 'trait', 'impl']);

/** `class CircuitBreaker (3 members)`, `function retry`. */
function describe(item: OutlineItem): string {
  const members = item.children.filter((c) => c.isDefinition).length;
  return `${item.kind} ${item.name}${members > 0 ? ` (${members} ${members === 1 ? 'member' : 'members'})` : ''}`;
}

function nameList(names: string[], cap: number, separator = ', '): string {
  const unique = [...new Set(names.filter((n) => n !== ''))];
  const shown = unique.slice(0, cap).join(separator);
  return unique.length > cap ? `${shown}${separator}and ${unique.length - cap} more` : shown;
}

function purposeText(analysis: FileAnalysis): string {
  const header = analysis.items.find((i) => i.isHeader);
  if (analysis.family === 'markdown') {
    const title = analysis.items.find((i) => i.kind === 'heading');
    const intro = header?.lines.join(' ') ?? title?.lines.slice(1).join(' ') ?? '';
    const name = title?.name;
    return [name ? `${name}.` : '', intro].filter((s) => s !== '').join(' ');
  }
  if (analysis.family === 'text') return header?.lines.join(' ') ?? '';
  if (analysis.family !== 'code') return '';
  const fromHeader = analysis.items
    .filter((i) => i.isHeader)
    .map((i) => stripCommentSyntax(i.lines))
    .find((text) => text !== '') ?? '';
  if (fromHeader !== '') return fromHeader;
  // No module comment: the doc comment of the first documented public definition.
  // Functions and classes say what a module does better than its types do.
  const candidates = [...analysis.items.filter((i) => i.isDefinition), ...publicSurface(analysis.items)].filter((i) => i.exported && i.doc && i.doc.length > 0);
  const documented = candidates.find((i) => BEHAVIOUR_KINDS.has(i.kind)) ?? candidates[0];
  return documented?.doc ? stripCommentSyntax(documented.doc) : '';
}

/** Comment text without `//`, `#`, `/*`, `*`, docstring quotes, directives or JSDoc tags. */
export function stripCommentSyntax(lines: string[]): string {
  const text: string[] = [];
  for (const raw of lines) {
    const line = raw
      .trim()
      .replace(/^(\/\*\*?|\*\/|\*|\/\/[/!]?|#!?|"""|'''|<\?php|--|;+)\s?/, '')
      .replace(/(\*\/|"""|''')$/, '')
      .replace(/<\/?[A-Za-z][^>]*>/g, '')
      .trim();
    if (/^@\w+/.test(line) || /^(frozen_string_literal|-\*-|eslint|prettier|ts-|@ts-|usr\/bin|bin\/)/.test(line) || /^\/?[\w/]*env\s/.test(line)) continue;
    if (line === '' && text.length > 0) break;
    if (line !== '' && !/^(use strict|['"]use strict['"];?)$/.test(line)) text.push(line);
  }
  return text.join(' ');
}

/**
 * The first `count` sentences. A sentence ends at . ! or ? followed by whitespace or the end, so
 * a dot inside a word or number ("OAuth 2.1", "index.ts", "e.g.x") does not end it.
 */
export function firstSentences(text: string, count: number): string {
  const sentences = text.match(/(?:[^.!?]|[.!?]+(?!\s|$))+(?:[.!?]+(?=\s|$)|$)/g) ?? [];
  return sentences.slice(0, count).map((s) => s.trim()).filter((s) => s !== '').join(' ');
}

/** Module specifiers of import items: quoted paths, else the first path-like word after the keyword. */
export function dependencies(items: OutlineItem[]): string[] {
  const deps: string[] = [];
  for (const item of items) {
    if (item.kind !== 'import') continue;
    const text = item.lines.join(' ');
    if (/^\s*(package|namespace|declare|<\?php)\b/.test(text)) continue;
    const quoted = [...text.matchAll(/["'<]([^"'<>\s]+)["'>]/g)].map((m) => m[1]!);
    if (quoted.length > 0) {
      deps.push(...quoted);
      continue;
    }
    const word = /^\s*(?:pub\s+)?(?:import|from|use|using|extern\s+crate|require(?:_relative)?)\s+(?:static\s+)?([\w.:\\/@-]+)/.exec(text)?.[1];
    if (word) deps.push(word.replace(/[:.\\]+$/, '').replace(/;$/, ''));
  }
  return deps;
}
