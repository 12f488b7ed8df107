import type { OutputFormat } from './format.js';
import { bootFactFields, headerTask, minimalHeaderLine, workingSetHeaderLines } from '../boot-header.js';

/**
 * JSON: one document `{"boot": {...}, "tiers": {"primary": [...], ...}}`, one block per line.
 * JSON.stringify escapes every quote and control character, so content cannot break out.
 * Every tier key is present (empty arrays included) so consumers can rely on the shape.
 */
export const jsonFormat: OutputFormat = {
  id: 'json',
  blockSeparator: ',\n',
  fileBlock: ({ path, level, content, tokens, truncated }) =>
    JSON.stringify({ path, level, tokens, ...(truncated ? { truncated: true } : {}), content }),
  messageBlock: ({ index, role, content, tokens, toolCallId, truncated }) =>
    JSON.stringify({ index, role, ...(toolCallId === undefined ? {} : { tool_call_id: toolCallId }), tokens, ...(truncated ? { truncated: true } : {}), content }),
  header: (header) =>
    `{"boot":${JSON.stringify({
      root: header.root,
      ...bootFactFields(header.boot ?? {}),
      task: headerTask(header.task),
      budget: { available: header.available, used: header.used },
      included: { ...header.included, history: header.historyMessages },
      excluded: header.excluded,
    })},\n`,
  minimalHeader: (available) => `{"boot":${JSON.stringify({ budget: { available }, note: minimalHeaderLine(available) })},\n`,
  document: (header, sections) => {
    const tiers = sections.map((s) => (s.blocks.length === 0 ? `${JSON.stringify(s.tier)}:[]` : `${JSON.stringify(s.tier)}:[\n${s.blocks.join(',\n')}\n]`));
    return `${header}"tiers":{${tiers.join(',\n')}}}\n`;
  },
  workingSet: {
    separator: ',\n',
    header: (fields) => `{"boot":${JSON.stringify(Object.fromEntries(workingSetHeaderLines(fields)))},"files":[`,
    block: (block) => JSON.stringify({ path: block.path, role: block.role, level: block.level, truncated: block.truncated, content: block.content }),
    document: (header, blocks) => `${header}${blocks.length > 0 ? `\n${blocks.join(',\n')}` : ''}\n]}\n`,
  },
};
