import { z } from 'zod';
import { SCORING_METHODS } from '../../config/schema.js';
import { renderExplanation } from '../../scoring/explain.js';
import { requireTask } from '../../scoring/task-facts.js';
import { defineTool, MCP_TASK } from '../tool.js';

/** `context_score`: why one file ranks where it does, as `aiwg context-score` explains it. */
export const contextScoreTool = defineTool({
  name: 'context_score',
  title: 'Why a file scores what it scores for a task',
  description:
    'Score one file of the repository against a task and explain it: every factor (task alignment, recency, mentions, ' +
    'dependency depth, file type) with its raw value, score, weight and contribution, the total and the tier. Returns the ' +
    'explanation as a table, then the same as JSON.',
  input: z.strictObject({
    file: z.string().describe('The file, relative to the root (e.g. "src/http/retry.ts").'),
    task: z.string().describe('The task to score against.'),
    scoring: z.enum(SCORING_METHODS).optional().describe('Task alignment: keyword, semantic or hybrid. Default from the config.'),
  }),
  async run(args, { provider }) {
    requireTask(args.task, MCP_TASK);
    const { explanation, warnings } = await provider.score(args);
    return { text: renderExplanation(explanation, args.task), summary: { task: args.task, ...explanation, warnings } };
  },
});
