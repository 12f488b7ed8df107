import type { Command } from '../command.js';
import { contextBudgetCommand } from './context-budget.js';
import { contextEvalCommand } from './context-eval.js';
import { contextScoreCommand } from './context-score.js';

/** Every CLI command. Keep sorted by name. */
export const COMMANDS: Command[] = [contextBudgetCommand, contextEvalCommand, contextScoreCommand];
