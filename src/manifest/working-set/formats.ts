import type { Level } from '../../config/schema.js';
import type { RenderFormat } from '../../stages.js';
import { UsageError } from '../../errors.js';
import { escapeAttribute, fenceFor, languageHint, neutraliseTags, singleLine } from '../../assemble/formats/escape.js';
import type { WorkingSetRole } from './schema.js';

/**
 * Output formats of a working-set context. A document is
 * `header + separator + block + separator + block ... + closing`, so the assembly can price
 * each block as `count(separator + block)` before rendering the whole (a final exact count
 * guards the invariant). Adding a format is adding an entry to WORKING_SET_FORMATS.
 */
export interface BootHeaderFields {
  root: string;
  workingSet: string;
  protocol: string;
  effective: number;
  maxTokens: number;
  reserved: number;
  tokenizer: string;
  /** Highest-priority trusted system file that is included, with its content checksum. */
  constitution?: { path: string; checksum: string };
}

export interface RenderBlock {
  path: string;
  role: WorkingSetRole;
  content: string;
  level: Level;
  truncated: boolean;
}

export interface WorkingSetFormat {
  readonly name: RenderFormat;
  header(fields: BootHeaderFields): string;
  block(block: RenderBlock): string;
  /** Put before every block (a price estimate counts it for each). */
  readonly separator: string;
  readonly closing: string;
  /** Join header and blocks; defaults to header + (separator + block)* + closing. */
  assemble?(header: string, blocks: string[]): string;
}

/** The boot header of spec 001 section 7, as ordered key/value lines. */
export function bootHeaderLines(fields: BootHeaderFields): Array<[string, string]> {
  const lines: Array<[string, string]> = [
    ['Root', fields.root],
    ['Working set', `${fields.workingSet} (${fields.protocol})`],
    [
      'Budget',
      `${fields.effective} tokens effective (max ${fields.maxTokens}, reserved for response ${fields.reserved}, tokenizer ${fields.tokenizer})`,
    ],
  ];
  if (fields.constitution) {
    lines.push(['Constitution', `${fields.constitution.path} (checksum: ${fields.constitution.checksum})`]);
  }
  lines.push(['Tool contract', 'all working-set updates require `why` (aiwg working-set add|remove|priority <path> --why "...")']);
  return lines;
}

function blockAttributes(block: RenderBlock): string {
  let attrs = ` path="${escapeAttribute(block.path)}"`;
  if (block.level !== 'full') attrs += ` level="${block.level}"`;
  if (block.truncated) attrs += ' truncated="true"';
  return attrs;
}

/**
 * Repository content is data: role tags inside it (`</context>`, `<system>`, ...) are
 * neutralised as `&lt;...` so a file cannot close its wrapper and speak as another role.
 */
const xmlFormat: WorkingSetFormat = {
  name: 'xml',
  header: (fields) => bootHeaderLines(fields).map(([key, value]) => `${key}: ${value}`).join('\n'),
  block: (block) => `<${block.role}${blockAttributes(block)}>\n${neutraliseTags(block.content)}\n</${block.role}>`,
  separator: '\n\n',
  closing: '\n',
};

const markdownFormat: WorkingSetFormat = {
  name: 'markdown',
  header: (fields) => `# Boot header\n\n${bootHeaderLines(fields).map(([key, value]) => `- ${key}: ${value}`).join('\n')}`,
  block: (block) => {
    const notes = [block.level !== 'full' ? `level ${block.level}` : '', block.truncated ? 'truncated' : ''].filter(Boolean);
    const fence = fenceFor(block.content);
    const title = `## ${block.role}: ${singleLine(block.path)}${notes.length > 0 ? ` (${notes.join(', ')})` : ''}`;
    return `${title}\n\n${fence}${languageHint(block.path)}\n${block.content}\n${fence}`;
  },
  separator: '\n\n',
  closing: '\n',
};

const jsonFormat: WorkingSetFormat = {
  name: 'json',
  header: (fields) => `{"boot":${JSON.stringify(Object.fromEntries(bootHeaderLines(fields)))},"files":[`,
  block: (block) =>
    JSON.stringify({ path: block.path, role: block.role, level: block.level, truncated: block.truncated, content: block.content }),
  separator: ',\n',
  closing: '\n]}\n',
  assemble: (header, blocks) => `${header}${blocks.length > 0 ? `\n${blocks.join(',\n')}` : ''}\n]}\n`,
};

export const WORKING_SET_FORMATS: Readonly<Record<RenderFormat, WorkingSetFormat>> = {
  xml: xmlFormat,
  markdown: markdownFormat,
  json: jsonFormat,
};

export function getWorkingSetFormat(name: string): WorkingSetFormat {
  const format = (WORKING_SET_FORMATS as Record<string, WorkingSetFormat | undefined>)[name];
  if (!format) throw new UsageError(`unknown format "${name}": use one of ${Object.keys(WORKING_SET_FORMATS).join(', ')}`);
  return format;
}

export function renderDocument(format: WorkingSetFormat, header: string, blocks: string[]): string {
  if (format.assemble) return format.assemble(header, blocks);
  return `${header}${blocks.map((block) => `${format.separator}${block}`).join('')}${format.closing}`;
}
