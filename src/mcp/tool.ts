import type { z } from 'zod';
import type { RepoProvider } from '../provider/repo-provider.js';
import type { Reporter } from '../types.js';

/** What every tool call can use: the server's one long-lived provider and its root. */
export interface McpToolContext {
  /** Real path of the root the server serves; every path a tool takes must stay inside it. */
  root: string;
  /** Held open for the server's lifetime: config, tokenizers, embedder and caches stay warm. */
  provider: RepoProvider;
  /** AIWG_* variables the server started with. */
  env: Record<string, string | undefined>;
  /** Logs go to stderr: stdout carries the protocol. */
  reporter: Reporter;
}

/** A tool's answer: the text an agent reads, and a compact JSON summary for programs. */
export interface McpToolOutput {
  /** The main text (a context, a summary, an explanation). */
  text: string;
  /** Sent as `structuredContent` and, serialised, as a second text block. */
  summary?: Record<string, unknown>;
}

/**
 * One MCP tool: adding a tool is adding a file under src/mcp/tools/ and a line in its index.
 * `input` is a zod object: it is the JSON Schema clients see (`z.toJSONSchema`) and the parser
 * of every call, so the two cannot drift. Throw AiwgError for bad input: the server turns it
 * into a tool error carrying the same one-line message the CLI prints.
 */
export interface McpTool<Input extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  /** What the tool returns, for the model choosing tools. */
  description: string;
  input: Input;
  /** Schema of `summary`, advertised as the tool's outputSchema when present. */
  output?: z.ZodObject;
  run(args: z.infer<Input>, ctx: McpToolContext): Promise<McpToolOutput>;
}

/** Declare a tool with its argument types checked against its input schema. */
export function defineTool<Input extends z.ZodObject>(tool: McpTool<Input>): McpTool {
  // The registry holds tools of different inputs; each run receives what its own schema parsed.
  return tool as unknown as McpTool;
}

/** How MCP tools name a missing task, for the one empty-task message of `requireTask`. */
export const MCP_TASK = { what: 'the "task" argument', example: '{ "task": "fix the retry loop in the http client" }' } as const;
