import type { Readable, Writable } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { isAiwgError } from '../errors.js';
import { describeIssue, keyPathOf } from '../manifest/zod-issues.js';
import type { RepoProvider } from '../provider/repo-provider.js';
import type { Reporter } from '../types.js';
import { silentReporter } from '../util/reporter.js';
import { TOOL_VERSION } from '../version.js';
import type { McpTool, McpToolContext } from './tool.js';
import { MCP_TOOLS } from './tools/index.js';

export interface AiwgMcpServerOptions {
  /** The one long-lived provider of the served root: every tool call goes through it. */
  provider: RepoProvider;
  /** The tool registry; `MCP_TOOLS` when absent. */
  tools?: readonly McpTool[];
  env?: Record<string, string | undefined>;
  /** Where logs go (never stdout: it carries the protocol). */
  reporter?: Reporter;
}

const INSTRUCTIONS =
  'aiwg-context decides what a coding agent gets to read. Call context_budget with the task before starting work: it ' +
  'returns the files that matter, each at the level of detail that fits the token budget. Use context_score to see why a ' +
  'file ranks where it does, and summarize to read one file at a given level.';

/**
 * The MCP server over the official SDK's low-level `Server`: tools come from the registry,
 * their input schemas from their zod objects. Every failure of a call, bad arguments included,
 * is a tool result with `isError` and a one-line message, never a protocol error or a crash.
 */
export function createAiwgMcpServer(options: AiwgMcpServerOptions): Server {
  const tools = options.tools ?? MCP_TOOLS;
  const byName = new Map(tools.map((t) => [t.name, t]));
  const ctx: McpToolContext = {
    root: options.provider.root,
    provider: options.provider,
    env: options.env ?? {},
    reporter: options.reporter ?? silentReporter(),
  };
  const listed: Tool[] = tools.map(describeTool);
  const server = new Server({ name: 'aiwg-context', version: TOOL_VERSION }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listed }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name);
    if (tool === undefined) return toolError(`unknown tool "${request.params.name}": use one of ${[...byName.keys()].join(', ')}`);
    return callTool(tool, request.params.arguments ?? {}, ctx);
  });
  return server;
}

/**
 * Serve over stdio until the client closes stdin. Resolves when the session ended.
 * The streams are parameters so the CLI passes the process's and nothing else touches them.
 */
export async function serveMcpStdio(options: AiwgMcpServerOptions & { stdin: Readable; stdout: Writable }): Promise<void> {
  const server = createAiwgMcpServer(options);
  const transport = new StdioServerTransport(options.stdin, options.stdout);
  const ended = new Promise<void>((resolve) => {
    options.stdin.once('end', resolve);
    options.stdin.once('close', resolve);
    server.onclose = () => resolve();
  });
  await server.connect(transport);
  await ended;
  await server.close();
  await options.provider.close();
}

/** Run one call: parse the arguments with the tool's schema, run it, shape the result. */
export async function callTool(tool: McpTool, args: unknown, ctx: McpToolContext): Promise<CallToolResult> {
  const parsed = tool.input.safeParse(args, { reportInput: true });
  if (!parsed.success) return toolError(argumentProblem(tool, parsed.error));
  try {
    const output = await tool.run(parsed.data, ctx);
    if (output.summary === undefined) return { content: [{ type: 'text', text: output.text }] };
    return {
      content: [
        { type: 'text', text: output.text },
        { type: 'text', text: JSON.stringify(output.summary) },
      ],
      structuredContent: output.summary,
    };
  } catch (error) {
    if (isAiwgError(error)) return toolError(`${tool.name}: ${error.message}`);
    // A bug, not bad input: report it as the CLI does (exit 70 there), and keep serving.
    const message = error instanceof Error ? error.message : String(error);
    ctx.reporter.warn(`${tool.name}: internal error: ${error instanceof Error ? (error.stack ?? message) : message}`);
    return toolError(`internal error in ${tool.name} (please report it): ${message.split('\n')[0]}`);
  }
}

/** `argument: what is wrong: what it is for`, one line, from the first zod issue. */
function argumentProblem(tool: McpTool, error: z.ZodError): string {
  const issue = error.issues[0];
  const key = issue ? keyPathOf(issue.path) : '';
  const [head] = issue?.path ?? [];
  const field = typeof head === 'string' ? tool.input.shape[head] : undefined;
  const hint = field?.description === undefined ? '' : `: ${lowerFirst(field.description.replace(/\.$/, ''))}`;
  return `${tool.name}: ${key === '' ? 'arguments' : key}: ${describeIssue(issue)}${hint}`;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

function describeTool(tool: McpTool): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchema(tool.input, 'input'),
    ...(tool.output === undefined ? {} : { outputSchema: jsonSchema(tool.output, 'output') }),
  };
}

function jsonSchema(schema: z.ZodObject, io: 'input' | 'output'): Tool['inputSchema'] {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io }) as Record<string, unknown>;
  // z.toJSONSchema of a z.object is always `type: "object"`, which is what the protocol requires.
  return rest as Tool['inputSchema'];
}
