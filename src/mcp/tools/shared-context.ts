import { z } from 'zod';
import { UsageError } from '../../errors.js';
import { createSharedContext } from '../../provider/shared-factory.js';
import { defineTool } from '../tool.js';

const ACTIONS = ['create', 'inject', 'query', 'list', 'destroy'] as const;

/** `shared_context`: the SharedContextPort of the served root (shared_context.url / AIWG_SHARED_CONTEXT), as `aiwg shared` does it. */
export const sharedContextTool = defineTool({
  name: 'shared_context',
  title: 'Shared context between the agents of a mission',
  description:
    'Create a mission context, inject a finding into it (ordered; a later injection of a key replaces it), query it by ' +
    'relevance, list it, or destroy it. Other agents, in other processes or on other machines sharing the store, see the ' +
    'same entries. Returns one line per entry, then JSON {action, mission, sequence?, entries?}.',
  input: z.strictObject({
    action: z.enum(ACTIONS).describe('create, inject, query, list or destroy.'),
    mission: z.string().min(1).describe('The shared context id, e.g. "mission-42".'),
    key: z.string().min(1).optional().describe('inject: the entry key, e.g. "finding/retry".'),
    content: z.string().optional().describe('inject: the finding.'),
    text: z.string().optional().describe('query: what to look for.'),
    agent: z.string().min(1).optional().describe("The agent's own scope inside the mission (mission scope when absent)."),
    expect_sequence: z.number().int().nonnegative().optional().describe('inject: write only if the key is at this sequence (0 = new).'),
    limit: z.number().int().positive().optional().describe('query: most hits (default 10).'),
  }),
  async run(args, { provider }) {
    const shared = createSharedContext({ root: provider.root, config: provider.config });
    try {
      const { mission, agent } = args;
      if (args.action === 'create') {
        await shared.createContext(mission);
        return { text: `created shared context ${mission}`, summary: { action: args.action, mission } };
      }
      if (args.action === 'inject') {
        if (args.key === undefined || args.content === undefined) throw new UsageError('inject needs "key" and "content", e.g. { "key": "finding/retry", "content": "..." }');
        const sequence = await shared.inject(mission, { key: args.key, content: args.content, agent, expectSequence: args.expect_sequence });
        return { text: `injected ${args.key} into ${mission} at sequence ${sequence}`, summary: { action: args.action, mission, sequence } };
      }
      if (args.action === 'destroy') {
        await shared.destroy(mission);
        return { text: `destroyed shared context ${mission}`, summary: { action: args.action, mission } };
      }
      if (args.action === 'query' && args.text === undefined) throw new UsageError('query needs "text", e.g. { "text": "retry backoff" }');
      const entries = args.action === 'query' ? await shared.query(mission, args.text!, { agent, limit: args.limit }) : await shared.entries(mission, { agent });
      const text = entries.map((e) => `#${e.sequence} ${e.key}${e.agent === undefined ? '' : ` [agent ${e.agent}]`}: ${e.content}`).join('\n') || '(no entries)';
      return { text, summary: { action: args.action, mission, entries } };
    } finally {
      await shared.close();
    }
  },
});
