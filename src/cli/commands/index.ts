import type { Command } from '../command.js';
import { assembleCommand } from './assemble.js';
import { contextBudgetCommand } from './context-budget.js';
import { contextEvalCommand } from './context-eval.js';
import { contextReportCommand } from './context-report.js';
import { contextScoreCommand } from './context-score.js';
import { handoffContextCommand } from './handoff-context.js';
import { workingSetCommand } from './working-set.js';

/** Every CLI command. Keep sorted by name. */
export const COMMANDS: Command[] = [assembleCommand, contextBudgetCommand, contextEvalCommand, contextReportCommand, contextScoreCommand, handoffContextCommand, workingSetCommand];
