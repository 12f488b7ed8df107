import { z } from 'zod';
import { CONVERSATION_FORMATS, type ConversationFormatName } from '../../conversation/formats/index.js';
import { runConversationBuild } from '../../conversation/run.js';
import { readOutput } from '../../conversation/store.js';
import { resolveInsideRoot } from '../confine.js';
import { defineTool } from '../tool.js';

/** `conversation_build`: spec 002's prompt builder, as `aiwg conversation build` runs it. */
export const conversationBuildTool = defineTool({
  name: 'conversation_build',
  title: 'Build chat messages from an agent session',
  description:
    'Turn an agent session file (system prompt, messages with tool calls and results, plan, retrieved context) into the ' +
    'messages[] a chat API takes (openai, anthropic or text), within max_tokens counted on the whole payload: a bounded recent ' +
    'window, valid tool-call ordering, tool output collapsed and capped with a pointer to the stored full text, a rolling ' +
    'summary resumed from the session record. Returns the payload, then JSON {tokens, report, record, stored_outputs}.',
  input: z.strictObject({
    session: z.string().describe('The session JSON file, relative to the root.'),
    max_tokens: z.number().int().positive().optional().describe('Budget of the whole payload (default: max_tokens - reserve_for_output of the config).'),
    format: z.enum(Object.keys(CONVERSATION_FORMATS) as [ConversationFormatName, ...ConversationFormatName[]]).optional().describe('openai (default), anthropic or text.'),
    max_messages: z.number().int().positive().optional().describe('Bound on the recent window message count (default 40).'),
    store: z.boolean().optional().describe('Store cut outputs and the session record under .aiwg/conversation/ (default true).'),
  }),
  async run(args, { root, provider, env, reporter }) {
    const session = await resolveInsideRoot(root, args.session, 'session');
    const run = await runConversationBuild({
      root,
      session,
      sessionLabel: args.session,
      config: provider.config,
      format: args.format ?? 'openai',
      ...(args.max_tokens !== undefined ? { maxTokens: args.max_tokens } : {}),
      ...(args.max_messages !== undefined ? { maxMessages: args.max_messages } : {}),
      persist: args.store ?? true,
      env,
      warn: (message) => reporter.warn(message),
    });
    return {
      text: typeof run.payload === 'string' ? run.payload : JSON.stringify(run.payload),
      summary: { tokens: run.tokens, report: run.report, record: run.record, stored_outputs: run.outputs.map((o) => o.pointer) },
    };
  },
});

/** `conversation_output`: the full text of a tool output a built conversation cut, by its pointer. */
export const conversationOutputTool = defineTool({
  name: 'conversation_output',
  title: 'Full text of a cut tool output',
  description:
    'The full text of a tool output that conversation_build normalised or cut, by the pointer its message shows ' +
    '(sha256: and 16 hex digits), as `aiwg conversation show-output` prints it.',
  input: z.strictObject({ pointer: z.string().describe('The pointer, e.g. sha256:0123456789abcdef.') }),
  async run(args, { root }) {
    return { text: await readOutput(root, args.pointer) };
  },
});
