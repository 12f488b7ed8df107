import type { Command } from '../command.js';

/**
 * A row of the command table: what `aiwg --help` lists, and the command's module, imported only
 * when that command runs or shows its own help. So `aiwg --help` loads no engine code, and a
 * command loads only its own dependencies (the tokenizer table, the embedding runtime and
 * tree-sitter are imported further down, by the stages that need them).
 */
export interface CommandEntry {
  name: string;
  /** One line for the command list (its one home: `aiwg <command> --help` starts with it). */
  summary: string;
  load: () => Promise<Command>;
  /**
   * The command collects the repository it runs in (unless `--root` names another): the runner
   * starts its first git commands in the working directory before loading the module
   * (collect/git-ahead.ts), so git works while the engine loads.
   */
  gitAhead?: true;
}

/** Every CLI command. Keep sorted by name; adding one is adding a file and a row here. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'assemble',
    summary: 'Assemble the context a working-set manifest declares (spec 001), within its budget',
    load: async () => (await import('./assemble.js')).assembleCommand,
  },
  {
    name: 'cache',
    summary: 'Show, prune or clear the summary, token-count, secret-scan and embedding caches and the persistent index',
    load: async () => (await import('./cache.js')).cacheCommand,
  },
  {
    name: 'context-budget',
    summary: 'Pick the files an agent should read for a task and fit them to a token budget',
    load: async () => (await import('./context-budget.js')).contextBudgetCommand,
    gitAhead: true,
  },
  {
    name: 'context-eval',
    summary: "Replay the repository's past commits as tasks and measure retrieval against a BM25 baseline",
    load: async () => (await import('./context-eval.js')).contextEvalCommand,
  },
  {
    name: 'context-report',
    summary: 'Report budget use over recorded runs: utilization, overflow, degraded files, advice',
    load: async () => (await import('./context-report.js')).contextReportCommand,
  },
  {
    name: 'context-score',
    summary: 'Show the relevance score of one file for a task: every factor, its weight and the tier',
    load: async () => (await import('./context-score.js')).contextScoreCommand,
  },
  {
    name: 'conversation',
    summary: 'Build the messages[] a chat API takes from an agent session, within a token budget',
    load: async () => (await import('./conversation.js')).conversationCommand,
  },
  {
    name: 'handoff-context',
    summary: "Build a phase's context from the handoffs of the phases before it (spec 000)",
    load: async () => (await import('./handoff-context.js')).handoffContextCommand,
  },
  {
    name: 'mcp',
    summary: 'Serve the engine to MCP clients over stdio (context_budget, context_score, summarize, ...)',
    load: async () => (await import('./mcp.js')).mcpCommand,
  },
  {
    name: 'shared',
    summary: 'Create, inject into, query, list or destroy a shared context between agents (spec 004)',
    load: async () => (await import('./shared.js')).sharedCommand,
  },
  {
    name: 'summarize',
    summary: 'Show one file at a level (full, detailed, summary, stub) with its exact token count',
    load: async () => (await import('./summarize.js')).summarizeCommand,
  },
  {
    name: 'working-set',
    summary: 'Add, remove or re-prioritise working-set files (each update logged with its why)',
    load: async () => (await import('./working-set.js')).workingSetCommand,
  },
];

/** The table row of a command name, or undefined. */
export function findCommand(name: string | undefined): CommandEntry | undefined {
  return COMMANDS.find((c) => c.name === name);
}
