import { quoteUserString } from '../security/quote-value.js';
import type { z } from 'zod';
import { ConfigError } from '../errors.js';

/**
 * Turn zod issues into one ConfigError that names the file, the dotted key path of every
 * problem and how to fix it. Manifests are written by people and by models, so the message
 * must be actionable without reading the schema.
 */
export function issuesToConfigError(file: string, issues: readonly z.core.$ZodIssue[]): ConfigError {
  const lines = issues.map((issue) => `${keyPathOf(issue.path) || '(top level)'}: ${describeIssue(issue)}`);
  const first = issues[0];
  const keyPath = first ? keyPathOf(first.path) : '';
  const [head, ...rest] = lines;
  const body = rest.length === 0 ? describeIssue(first) : `${issues.length} problems:\n  ${[head, ...rest].join('\n  ')}`;
  return new ConfigError(rest.length === 0 ? keyPath : '', body, { file });
}

export function keyPathOf(path: readonly PropertyKey[]): string {
  return path.map((part) => String(part)).join('.');
}

/** One zod issue as a phrase that follows its key path, e.g. `got "x": use one of "a", "b"`. */
export function describeIssue(issue: z.core.$ZodIssue | undefined): string {
  if (!issue) return 'invalid';
  switch (issue.code) {
    case 'unrecognized_keys':
      return `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}: remove ${issue.keys.length > 1 ? 'them' : 'it'} or check the spelling`;
    case 'invalid_value':
      return `got ${quote(issue.input)}: use one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_type':
      return issue.input === undefined
        ? `is required (${issue.expected})`
        : `expected ${issue.expected}, got ${quote(issue.input)}`;
    case 'too_small':
      if (issue.origin === 'string') return Number(issue.minimum) <= 1 ? 'is empty' : `${quote(issue.input)} is shorter than ${String(issue.minimum)} characters`;
      return `${quote(issue.input)} is too small: use a value >= ${String(issue.minimum)}`;
    case 'too_big':
      return `${quote(issue.input)} is too big: use a value <= ${String(issue.maximum)}`;
    case 'invalid_format':
      return `${quote(issue.input)} is not a valid ${issue.format}${issue.format === 'datetime' ? ' (use ISO 8601, e.g. "2026-01-15T12:00:00Z")' : ''}`;
    default:
      return issue.message;
  }
}

function quote(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return quoteUserString(value);
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
