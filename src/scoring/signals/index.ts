import type { Signal } from '../../types.js';
import { dependencyDepthSignal } from './dependency-depth.js';
import { fileTypeSignal } from './file-type.js';
import { mentionDensitySignal } from './mention-density.js';
import { recencySignal } from './recency.js';
import { createTaskAlignmentSignal, type TaskAlignmentOptions } from './task-alignment.js';

export { createTaskAlignmentSignal, type SemanticOutcome, type TaskAlignmentOptions } from './task-alignment.js';
export { recencySignal, RECENCY_FLOOR } from './recency.js';
export { mentionDensitySignal, MENTION_FLOOR } from './mention-density.js';
export { dependencyDepthSignal, seedFiles } from './dependency-depth.js';
export { fileTypeSignal } from './file-type.js';

/**
 * The signal registry, in run order: task alignment first (dependency depth seeds from it),
 * then the independent signals. Adding a factor is adding a file and a line here.
 */
export function defaultSignals(options: TaskAlignmentOptions = {}): Signal[] {
  return [createTaskAlignmentSignal(options), recencySignal, mentionDensitySignal, dependencyDepthSignal, fileTypeSignal];
}
