import { z } from 'zod';
import { buildPhaseContext } from '../../manifest/handoff/phase-context.js';
import { resolveInsideRoot } from '../confine.js';
import { defineTool } from '../tool.js';

/** `handoff_context`: a phase's context from earlier phases' handoffs (spec 000), as `aiwg handoff-context` builds it. */
export const handoffContextTool = defineTool({
  name: 'handoff_context',
  title: "A phase's context from prior handoffs",
  description:
    "Build the context for a workflow phase from the handoff files of the phases before it (spec 000): the phase manifest's " +
    'fields, the narrative cap, the token budget. Returns the context, then JSON {phase, handoffs, budget, fields, warnings}.',
  input: z.strictObject({
    phase: z.number().int().min(1).describe('The phase about to run; handoffs of phases 1..phase-1 are read.'),
    dir: z.string().optional().describe('Directory of phase-<N>.json handoff files, relative to the root. Default .aiwg/rag/handoffs.'),
    log: z.boolean().optional().describe('Append the budget line to .aiwg/rag/context-budget-log.jsonl as the CLI does (default true).'),
  }),
  async run(args, { root, provider }) {
    const dir = args.dir === undefined ? undefined : await resolveInsideRoot(root, args.dir, 'dir');
    const phase = await buildPhaseContext({ root, config: provider.config, phase: args.phase, dir, log: args.log ?? true, tokenizer: await provider.tokenizer() });
    const { result } = phase;
    return {
      text: result.text,
      summary: { phase: phase.phase, manifest: phase.manifest, handoffs: phase.handoffs, budget: result.budget, fields: result.fields, warnings: result.warnings },
    };
  },
});
