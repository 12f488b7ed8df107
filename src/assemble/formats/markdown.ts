import type { TierName } from '../../types.js';
import type { FileBlockInput, OutputFormat } from './format.js';
import { asLines, fenceFor, languageHint, safeRole, singleLine } from './escape.js';
import { headerLines, minimalHeaderLine, workingSetHeaderLines } from '../boot-header.js';

const TIER_TITLES: Record<TierName, string> = {
  primary: 'Primary context',
  supporting: 'Supporting context',
  reference: 'Reference context',
  history: 'Conversation history',
};

/**
 * Markdown: a heading per file with its level and tokens, content in a fence longer than any
 * backtick run inside it (so a file cannot close its own fence).
 */
export const markdownFormat: OutputFormat = {
  id: 'markdown',
  blockSeparator: '\n\n',
  fileBlock: (input) => {
    const { prefix, suffix } = markdownParts(input);
    return prefix + input.content + suffix;
  },
  fileBlockParts: markdownParts,
  messageBlock: ({ index, role, content, tokens, toolCallId, truncated }) => {
    const fence = fenceFor(content);
    const call = toolCallId === undefined ? '' : ` · tool_call_id: ${singleLine(toolCallId)}`;
    return `### message ${index} · ${safeRole(role)}${call}\n\ntokens: ${tokens}${truncated ? ' · truncated' : ''}\n\n${fence}text\n${asLines(content)}${fence}`;
  },
  header: (header) => `# Context\n\n${headerLines(header).map((line) => `- ${singleLine(line)}`).join('\n')}\n\n`,
  minimalHeader: (available) => `# Context\n\n- ${minimalHeaderLine(available)}\n\n`,
  document: (header, sections) =>
    header +
    sections
      .filter((s) => s.blocks.length > 0)
      .map((s) => `## ${TIER_TITLES[s.tier]}\n\n${s.blocks.map((b) => b + '\n\n').join('')}`)
      .join(''),
  workingSet: {
    separator: '\n\n',
    header: (fields) => `# Boot header\n\n${workingSetHeaderLines(fields).map(([key, value]) => `- ${key}: ${value}`).join('\n')}`,
    block: (block) => {
      const notes = [block.level !== 'full' ? `level ${block.level}` : '', block.truncated ? 'truncated' : ''].filter(Boolean);
      const fence = fenceFor(block.content);
      const title = `## ${block.role}: ${singleLine(block.path)}${notes.length > 0 ? ` (${notes.join(', ')})` : ''}`;
      return `${title}\n\n${fence}${languageHint(block.path)}\n${block.content}\n${fence}`;
    },
    document: (header, blocks) => `${header}${blocks.map((block) => `\n\n${block}`).join('')}\n`,
  },
};

function markdownParts({ path, level, content, tokens, truncated }: FileBlockInput): { prefix: string; suffix: string } {
  const fence = fenceFor(content);
  const prefix = `### ${singleLine(path)}\n\nlevel: ${level} · tokens: ${tokens}${truncated ? ' · truncated' : ''}\n\n${fence}${languageHint(path)}\n`;
  return { prefix, suffix: `${asLines(content).slice(content.length)}${fence}` };
}
