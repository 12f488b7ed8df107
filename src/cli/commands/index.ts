import type { Command } from '../command.js';
import { contextBudgetCommand } from './context-budget.js';
import { contextEvalCommand } from './context-eval.js';

/** Every CLI command. Keep sorted by name. */
export const COMMANDS: Command[] = [contextBudgetCommand, contextEvalCommand];
