import type { FileBlockInput, OutputFormat, RoleBlockInput } from './format.js';
import { asLines, escapeAttribute, neutraliseTags, safeRole } from './escape.js';
import { headerLines, minimalHeaderLine, workingSetHeaderLines } from '../boot-header.js';

/**
 * The default format, spec 001 section 5's `context` role: each file in a
 * `<context path level tokens>` element, tiers in `<tier name>` elements, the boot header in
 * `<boot>`. Content is data: wrapper-closing and role tags inside it are neutralised.
 */
export const xmlFormat: OutputFormat = {
  id: 'xml',
  blockSeparator: '\n',
  fileBlock: (input) => {
    const body = neutraliseTags(input.content);
    return `${openContext(input)}${asLines(body)}</context>`;
  },
  fileBlockParts: (input) =>
    neutraliseTags(input.content) === input.content ? { prefix: openContext(input), suffix: `${asLines(input.content).slice(input.content.length)}</context>` } : null,
  messageBlock: ({ index, role, content, tokens, toolCallId, truncated }) =>
    `<message index="${index}" role="${safeRole(role)}"${toolCallId === undefined ? '' : ` tool_call_id="${escapeAttribute(toolCallId)}"`} tokens="${tokens}"${truncated ? ' truncated="true"' : ''}>\n${asLines(neutraliseTags(content))}</message>`,
  header: (header) => `<boot>\n${neutraliseTags(headerLines(header).join('\n'))}\n</boot>\n`,
  minimalHeader: (available) => `<boot>\n${minimalHeaderLine(available)}\n</boot>\n`,
  document: (header, sections) =>
    header +
    sections
      .filter((s) => s.blocks.length > 0)
      .map((s) => `<tier name="${s.tier}">\n${s.blocks.map((b) => b + '\n').join('')}</tier>\n`)
      .join(''),
  // Spec 001's role elements: `<system path="...">`, `<context path="..." level="summary">`.
  workingSet: {
    separator: '\n\n',
    header: (fields) => workingSetHeaderLines(fields).map(([key, value]) => `${key}: ${value}`).join('\n'),
    block: (block) => `<${block.role}${roleAttributes(block)}>\n${neutraliseTags(block.content)}\n</${block.role}>`,
    document: (header, blocks) => `${header}${blocks.map((block) => `\n\n${block}`).join('')}\n`,
  },
};

function openContext({ path, level, tokens, truncated }: FileBlockInput): string {
  return `<context path="${escapeAttribute(path)}" level="${level}" tokens="${tokens}"${truncated ? ' truncated="true"' : ''}>\n`;
}

function roleAttributes(block: RoleBlockInput): string {
  let attrs = ` path="${escapeAttribute(block.path)}"`;
  if (block.level !== 'full') attrs += ` level="${block.level}"`;
  if (block.truncated) attrs += ' truncated="true"';
  return attrs;
}
