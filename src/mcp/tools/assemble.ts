import { z } from 'zod';
import { resolveWorkingSetPath } from '../../manifest/working-set/manifest-file.js';
import { assembleWorkingSetFile } from '../../manifest/working-set/assemble-file.js';
import { resolveInsideRoot } from '../confine.js';
import { defineTool } from '../tool.js';

/** `assemble`: the context a working-set manifest declares (spec 001), as `aiwg assemble` builds it. */
export const assembleTool = defineTool({
  name: 'assemble',
  title: 'Assemble a working set',
  description:
    'Assemble the context a working-set manifest (spec 001) declares, within its budget: files by priority, role tags, ' +
    'truncation strategies, summary levels for files that do not fit. Returns the context, then the assembly report as JSON ' +
    '(budget, included files with tokens and levels, excluded files with reasons, warnings).',
  input: z.strictObject({
    working_set: z.string().optional().describe('The manifest, relative to the root. Default: working-set.yml, else .aiwg/working-set.yml.'),
    format: z.enum(['xml', 'markdown', 'json']).optional().describe('xml (default, spec 001 role tags), markdown or json.'),
    levels: z.boolean().optional().describe('Fall back to summary levels for files that do not fit whole (default true); false truncates them.'),
    log: z.boolean().optional().describe('Append the "assembled" event to .aiwg/rag/working-set-events.jsonl as the CLI does (default true).'),
  }),
  async run(args, { root, provider, reporter, env }) {
    const given = args.working_set === undefined ? undefined : await resolveInsideRoot(root, args.working_set, 'working_set');
    const file = await resolveWorkingSetPath(root, given, root);
    const result = await assembleWorkingSetFile({
      root,
      config: provider.config,
      file,
      format: args.format ?? 'xml',
      useLevels: args.levels ?? true,
      log: args.log ?? true,
      reporter,
      tokenizer: await provider.tokenizer(),
      env,
    });
    return { text: result.context, summary: { manifest: result.manifestPath, ...result.report } };
  },
});
