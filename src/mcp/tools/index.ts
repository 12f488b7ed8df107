import type { McpTool } from '../tool.js';
import { assembleTool } from './assemble.js';
import { contextBudgetTool } from './context-budget.js';
import { contextScoreTool } from './context-score.js';
import { conversationBuildTool, conversationOutputTool } from './conversation-build.js';
import { handoffContextTool } from './handoff-context.js';
import { sharedContextTool } from './shared-context.js';
import { summarizeTool } from './summarize.js';

/**
 * Every tool `aiwg mcp` serves. Adding one is adding a file next to this one (a `defineTool`
 * export) and a line here. Keep sorted by name.
 */
export const MCP_TOOLS: readonly McpTool[] = [assembleTool, contextBudgetTool, contextScoreTool, conversationBuildTool, conversationOutputTool, handoffContextTool, sharedContextTool, summarizeTool];
