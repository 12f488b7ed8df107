import type { OutlineItem } from './types.js';
import { parseJsonLenient } from '../../util/jsonc.js';

/** Key trees stop at this depth; deeper objects show their key count. */
export const MAX_KEY_DEPTH = 4;
/** Longest scalar preview, in characters. */
export const MAX_VALUE_PREVIEW = 60;
const MAX_ARRAY_KEYS = 8;

export type DataFormat = 'json' | 'yaml' | 'toml';

export function dataFormatOf(path: string): DataFormat | undefined {
  const lower = path.toLowerCase();
  if (/\.(json|jsonc|json5)$/.test(lower) || lower.endsWith('.babelrc') || lower.endsWith('.eslintrc')) return 'json';
  if (/\.(ya?ml)$/.test(lower)) return 'yaml';
  if (lower.endsWith('.toml')) return 'toml';
  return undefined;
}

/**
 * The key tree of a JSON, YAML or TOML document to MAX_KEY_DEPTH, with short scalar previews.
 * Null when the document does not parse (the line-based fallback takes it then).
 */
export async function outlineData(format: DataFormat, content: string): Promise<OutlineItem[] | null> {
  const value = await parseData(format, content);
  if (value === undefined) return null;
  const counter = { row: 0 };
  if (Array.isArray(value)) return [arrayItem('(root)', value, 0, counter)];
  if (isObject(value)) return keyItems(value, 0, counter);
  return [scalarLine('(root)', value, 0, counter)];
}

async function parseData(format: DataFormat, content: string): Promise<unknown> {
  try {
    if (format === 'json') return parseJsonLenient(content);
    if (format === 'toml') return parseTomlKeys(content);
    const { parseAllDocuments } = await import('yaml');
    const docs = parseAllDocuments(content, { uniqueKeys: false });
    const list = Array.isArray(docs) ? docs : [docs];
    if (list.some((d) => d.errors.length > 0)) return undefined;
    const values = list.map((d) => d.toJS({ maxAliasCount: 100 }) as unknown);
    return values.length === 1 ? values[0] : values;
  } catch {
    return undefined;
  }
}

/**
 * TOML tables and keys with raw value text: enough for a key tree without a TOML parser.
 * Multi-line strings and arrays are skipped over.
 */
export function parseTomlKeys(content: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let table = root;
  let open: string | undefined;
  let depth = 0;
  for (const raw of content.split('\n')) {
    const line = raw.trim();
    if (open !== undefined) {
      if (line.includes(open)) open = undefined;
      continue;
    }
    if (depth > 0) {
      depth += bracketBalance(line);
      continue;
    }
    if (line === '' || line.startsWith('#')) continue;
    const header = /^(\[\[?)\s*([^\]]+?)\s*\]\]?/.exec(line);
    if (header) {
      const parts = splitTomlKey(header[2]!);
      table = root;
      for (const part of parts.slice(0, -1)) {
        const next = table[part];
        table = isObject(next) ? next : (table[part] = {});
      }
      const last = parts.at(-1)!;
      if (header[1] === '[[') {
        // An array of tables: each `[[name]]` starts a new element.
        const list = Array.isArray(table[last]) ? (table[last] as unknown[]) : (table[last] = []);
        const element: Record<string, unknown> = {};
        (list as unknown[]).push(element);
        table = element;
      } else {
        const next = table[last];
        table = isObject(next) ? next : (table[last] = {});
      }
      continue;
    }
    const pair = /^((?:"[^"]*"|'[^']*'|[^=])+?)\s*=\s*(.*)$/.exec(line);
    if (!pair) throw new Error(`not TOML: ${line}`);
    const parts = splitTomlKey(pair[1]!);
    let target = table;
    for (const part of parts.slice(0, -1)) {
      const next = target[part];
      target = isObject(next) ? next : (target[part] = {});
    }
    const value = pair[2]!;
    for (const quote of ['"""', "'''"]) {
      if (value.startsWith(quote) && value.indexOf(quote, 3) < 0) open = quote;
    }
    if (value.startsWith('[')) depth = bracketBalance(value);
    target[parts.at(-1)!] = value.replace(/\s+#.*$/, '');
  }
  return root;
}

function splitTomlKey(key: string): string[] {
  return (key.match(/"[^"]*"|'[^']*'|[^.\s]+/g) ?? []).map((p) => p.replace(/^["']|["']$/g, ''));
}

function bracketBalance(text: string): number {
  let balance = 0;
  for (const ch of text.replace(/"(?:[^"\\]|\\.)*"|'[^']*'/g, '')) {
    if (ch === '[') balance += 1;
    else if (ch === ']') balance -= 1;
  }
  return balance;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function keyItems(object: Record<string, unknown>, depth: number, counter: { row: number }): OutlineItem[] {
  return Object.entries(object).map(([key, value]) => {
    if (Array.isArray(value)) return arrayItem(key, value, depth, counter);
    if (!isObject(value)) return scalarLine(key, value, depth, counter);
    const keys = Object.keys(value).length;
    if (keys === 0) return line(`${key}: {}`, key, depth, counter);
    if (depth + 1 >= MAX_KEY_DEPTH) return line(`${key}: {${keys} ${keys === 1 ? 'key' : 'keys'}}`, key, depth, counter);
    const item = line(`${key}:`, key, depth, counter);
    item.children = keyItems(value, depth + 1, counter);
    item.endRow = counter.row - 1;
    return item;
  });
}

function arrayItem(key: string, value: unknown[], depth: number, counter: { row: number }): OutlineItem {
  const first = value[0];
  const shape = isObject(first) ? ` of {${Object.keys(first).slice(0, MAX_ARRAY_KEYS).join(', ')}${Object.keys(first).length > MAX_ARRAY_KEYS ? ', …' : ''}}` : '';
  const preview = value.length > 0 && !isObject(first) && !Array.isArray(first) ? ` e.g. ${preview1(first)}` : '';
  return line(`${key}: [${value.length} ${value.length === 1 ? 'item' : 'items'}]${shape}${preview}`, key, depth, counter);
}

function scalarLine(key: string, value: unknown, depth: number, counter: { row: number }): OutlineItem {
  return line(`${key}: ${preview1(value)}`, key, depth, counter);
}

function preview1(value: unknown): string {
  const text = value instanceof Date ? value.toISOString() : typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > MAX_VALUE_PREVIEW ? `${flat.slice(0, MAX_VALUE_PREVIEW - 1)}…` : flat;
}

function line(text: string, name: string, depth: number, counter: { row: number }): OutlineItem {
  const row = counter.row++;
  return {
    kind: 'key',
    name,
    isDefinition: false,
    exported: true,
    depth,
    startRow: row,
    endRow: row,
    firstRow: row,
    lines: [`${'  '.repeat(depth)}${text}`],
    children: [],
    closing: [],
  };
}
