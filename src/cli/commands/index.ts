import type { Command } from '../command.js';
import { assembleCommand } from './assemble.js';
import { cacheCommand } from './cache.js';
import { contextBudgetCommand } from './context-budget.js';
import { contextEvalCommand } from './context-eval.js';
import { contextReportCommand } from './context-report.js';
import { contextScoreCommand } from './context-score.js';
import { conversationCommand } from './conversation.js';
import { handoffContextCommand } from './handoff-context.js';
import { mcpCommand } from './mcp.js';
import { sharedCommand } from './shared.js';
import { summarizeCommand } from './summarize.js';
import { workingSetCommand } from './working-set.js';

/** Every CLI command. Keep sorted by name. */
export const COMMANDS: Command[] = [assembleCommand, cacheCommand, contextBudgetCommand, contextEvalCommand, contextReportCommand, contextScoreCommand, conversationCommand, handoffContextCommand, mcpCommand, sharedCommand, summarizeCommand, workingSetCommand];
