import { z } from 'zod';
import { LEVELS } from '../../config/schema.js';
import { defineTool } from '../tool.js';

/** `summarize`: one file at one level, as `aiwg summarize` prints it. */
export const summarizeTool = defineTool({
  name: 'summarize',
  title: 'One file at one level of detail',
  description:
    'One file of the repository at a level: full (the text), detailed (outline with signatures), summary or stub, with its ' +
    'exact token count. Returns the content, then JSON {path, level, tokens, cached}.',
  input: z.strictObject({
    file: z.string().describe('The file, relative to the root.'),
    level: z.enum(LEVELS).optional().describe('full, detailed, summary (default) or stub.'),
    cache: z.boolean().optional().describe('Read and write the summary cache (default: the config).'),
  }),
  output: z.object({ path: z.string(), level: z.enum(LEVELS), tokens: z.number().int(), cached: z.boolean(), warnings: z.array(z.string()) }),
  async run(args, { provider }) {
    const level = args.level ?? 'summary';
    const result = await provider.summarize({ file: args.file, level, cache: args.cache });
    return { text: result.content, summary: { path: result.path, level, tokens: result.tokens, cached: result.cached, warnings: result.warnings } };
  },
});
