import { relative, sep } from 'node:path';
import { z } from 'zod';
import { LEVELS, OVERFLOW_STRATEGIES, SCORING_METHODS } from '../../config/schema.js';
import { CONTEXT_MODES } from '../../provider/modes/index.js';
import { TOKENIZER_IDS } from '../../tokenize/tokenizer.js';
import type { ContextAnswer } from '../../provider/context-query.js';
import { requireTask } from '../../scoring/task-facts.js';
import { defineTool, MCP_TASK } from '../tool.js';

const FORMATS = ['xml', 'markdown', 'json'] as const;

const input = z.strictObject({
  task: z.string().describe('The change the agent is about to make, e.g. "fix the retry loop in the http client".'),
  budget: z.number().int().min(1).optional().describe('The most tokens the returned context may hold. Default: the configured budget minus its reserves.'),
  format: z.enum(FORMATS).optional().describe('Format of the context: xml (default), markdown or json.'),
  mode: z.enum(CONTEXT_MODES.map((m) => m.name) as [string, ...string[]]).optional().describe('task (default), review (more callers and tests) or chat (bigger history tier).'),
  scoring: z.enum(SCORING_METHODS).optional().describe('Task alignment: keyword, semantic or hybrid. Default from the config.'),
  overflow: z.enum(OVERFLOW_STRATEGIES).optional().describe('When files do not fit: truncate, summarize, prioritize or error.'),
  strategy: z.enum(['optimal', 'greedy']).optional().describe('Level chooser: optimal (knapsack) or greedy (the spec degrade loop).'),
  tokenizer: z.enum(TOKENIZER_IDS).optional().describe('Token counter for the budget: o200k (default), cl100k or chars4.'),
  history: z
    .array(z.strictObject({ role: z.string(), content: z.string() }))
    .optional()
    .describe('Conversation so far, oldest first, for the history tier.'),
  record: z.boolean().optional().describe('Write the budget record and the log line under .aiwg/rag/ as the CLI does. Default true.'),
});

const output = z.object({
  run_id: z.string(),
  mode: z.string(),
  tokens: z.number().int(),
  available: z.number().int(),
  tokenizer: z.string(),
  files: z.array(
    z.object({
      path: z.string(),
      tier: z.enum(['primary', 'supporting', 'reference']),
      level: z.enum(LEVELS),
      tokens: z.number().int(),
      relevance: z.number(),
      truncated: z.boolean(),
    }),
  ),
  excluded: z.number().int(),
  overflow: z.object({ occurred: z.boolean(), strategy: z.string().nullable(), files_affected: z.number().int() }),
  warnings: z.array(z.string()),
  record: z.string().nullable(),
});

/** `context_budget`: the engine's main door, over MCP. */
export const contextBudgetTool = defineTool({
  name: 'context_budget',
  title: 'Context for a task within a token budget',
  description:
    'Pick the repository files an agent should read for a task and fit them to a token budget. Returns the rendered context ' +
    '(boot header + one block per file at full, detailed, summary or stub level), then a JSON allocation summary: run_id, ' +
    'tokens/available, and every included file with its tier, level and tokens.',
  input,
  output,
  async run(args, { root, provider }) {
    requireTask(args.task, MCP_TASK);
    const answer = await provider.query({
      task: args.task,
      maxTokens: args.budget,
      format: args.format,
      mode: args.mode,
      scoring: args.scoring,
      overflow: args.overflow,
      strategy: args.strategy,
      tokenizer: args.tokenizer,
      history: args.history,
      record: args.record ?? true,
    });
    return { text: answer.context, summary: allocationSummary(answer, root) };
  },
});

/** The compact allocation summary: what is in the context, not the whole record. */
export function allocationSummary(answer: ContextAnswer, root: string): z.infer<typeof output> {
  const { record } = answer;
  return {
    run_id: answer.runId,
    mode: answer.mode,
    tokens: answer.tokens,
    available: answer.available,
    tokenizer: record.tokenizer,
    files: answer.files,
    excluded: record.excluded.length,
    overflow: { occurred: record.overflow.occurred, strategy: record.overflow.strategy_applied, files_affected: record.overflow.files_affected.length },
    warnings: record.warnings,
    record: answer.recordPath === null ? null : relative(root, answer.recordPath).split(sep).join('/'),
  };
}
