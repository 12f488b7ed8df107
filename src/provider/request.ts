import { UsageError } from '../errors.js';
import type { ContextRequest } from './ports.js';
import { requireTask } from '../scoring/task-facts.js';

/**
 * Checks every adapter applies the same way, so a caller switching backends sees the same
 * errors. Returns the request's maxTokens (undefined when absent).
 */
export function checkRequest(request: ContextRequest): number | undefined {
  requireTask(request.task, { what: 'buildContext: request.task', example: '{ mode: "task", task: "fix the retry loop in the http client" }' });
  return checkMaxTokens(request.maxTokens, 'buildContext: maxTokens');
}

/** A positive integer token count, or undefined when absent. */
export function checkMaxTokens(value: number | undefined, label: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value <= 0) {
    throw new UsageError(`${label} must be a positive integer number of tokens, got ${String(value)}`);
  }
  return value;
}
