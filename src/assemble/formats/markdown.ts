import type { TierName } from '../../types.js';
import type { FileBlockInput, OutputFormat } from './format.js';
import { asLines, fenceFor, languageHint, safeRole, singleLine } from './escape.js';
import { headerLines, minimalHeaderLine } from '../boot-header.js';

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
};

function markdownParts({ path, level, content, tokens, truncated }: FileBlockInput): { prefix: string; suffix: string } {
  const fence = fenceFor(content);
  const prefix = `### ${singleLine(path)}\n\nlevel: ${level} · tokens: ${tokens}${truncated ? ' · truncated' : ''}\n\n${fence}${languageHint(path)}\n`;
  return { prefix, suffix: `${asLines(content).slice(content.length)}${fence}` };
}
