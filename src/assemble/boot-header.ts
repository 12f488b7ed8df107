import type { Level, TierName } from '../types.js';
import { LEVELS, TIER_NAMES } from '../config/schema.js';

/**
 * The boot header of spec 001 section 7, adapted to a budgeted context: enough for the model
 * to orient (where, what task, how much budget, what was included) without reading everything.
 */
export interface BootHeader {
  root: string;
  task: string;
  /** plan.available. */
  available: number;
  /** Tokens of the whole rendered context, this header included. */
  used: number;
  /** Files per tier and level. */
  included: Record<Exclude<TierName, 'history'>, Partial<Record<Level, number>>>;
  /** History messages kept. */
  historyMessages: number;
  /** Files excluded by relevance or budget (the record lists them). */
  excluded: number;
  /** Spec 001's orientation lines beyond the budget; each is printed only when known. */
  boot?: BootFacts;
}

/**
 * The rows of spec 001 section 7 that are facts of the run rather than of the budget. A front
 * end fills what it knows; a row it does not know is left out rather than invented.
 */
export interface BootFacts {
  /** The rules the context was built under: a file or name, its version and a checksum. */
  constitution?: { path: string; version?: string; checksum: string };
  /** The run id: the record, the JSONL logs and `aiwg context-report --session` use it. */
  session?: string;
  /** Where this context is written: a path, or `stdout`. */
  outputSink?: string;
  /** The content-addressed caches a follow-up run or another agent can reuse, as display paths. */
  cacheHints?: string[];
}

/**
 * The boot header of a working set, spec 001 section 7 as written: where, which manifest, the
 * budget, the constitution (the highest-priority trusted system file, when included) and the
 * tool contract.
 */
export interface WorkingSetHeader {
  root: string;
  workingSet: string;
  protocol: string;
  effective: number;
  maxTokens: number;
  reserved: number;
  tokenizer: string;
  /** Highest-priority trusted system file that is included, with its content checksum. */
  constitution?: { path: string; checksum: string };
}

/** Longest task text the header repeats; the agent receives the task itself anyway. */
export const MAX_HEADER_TASK_CHARS = 400;

/** The header's facts as `Key: value` lines, shared by the text formats. */
export function headerLines(header: BootHeader): string[] {
  const tiers = (['primary', 'supporting', 'reference'] as const).map((tier) => `${tier} ${describeTier(header.included[tier])}`);
  tiers.push(`history ${header.historyMessages} message${header.historyMessages === 1 ? '' : 's'}`);
  return [
    `Root: ${header.root}`,
    ...bootFactLines(header.boot ?? {}).map(([key, value]) => `${key}: ${value}`),
    `Task: ${headerTask(header.task)}`,
    `Budget: ${header.available} tokens available, ${header.used} used`,
    `Included: ${tiers.join('; ')}`,
    `Excluded: ${header.excluded} file${header.excluded === 1 ? '' : 's'} (see the budget record)`,
  ];
}

/** A working set's header facts as ordered key/value pairs, shared by the formats. */
export function workingSetHeaderLines(fields: WorkingSetHeader): Array<[string, string]> {
  const lines: Array<[string, string]> = [
    ['Root', fields.root],
    ['Working set', `${fields.workingSet} (${fields.protocol})`],
    ['Budget', `${fields.effective} tokens effective (max ${fields.maxTokens}, reserved for response ${fields.reserved}, tokenizer ${fields.tokenizer})`],
  ];
  if (fields.constitution) lines.push(...bootFactLines({ constitution: fields.constitution }));
  lines.push(['Tool contract', 'all working-set updates require `why` (aiwg working-set add|remove|priority <path> --why "...")']);
  return lines;
}

/** Spec 001's rows in its order (Constitution, Session, Output sink, Cache hints), only those known. */
export function bootFactLines(boot: BootFacts): Array<[string, string]> {
  const lines: Array<[string, string]> = [];
  const { constitution } = boot;
  if (constitution) {
    const version = constitution.version === undefined ? '' : `v${constitution.version}, `;
    lines.push(['Constitution', `${constitution.path} (${version}checksum: ${constitution.checksum})`]);
  }
  if (boot.session !== undefined) lines.push(['Session', boot.session]);
  if (boot.outputSink !== undefined) lines.push(['Output sink', boot.outputSink]);
  if (boot.cacheHints !== undefined && boot.cacheHints.length > 0) lines.push(['Cache hints', boot.cacheHints.join(', ')]);
  return lines;
}

/** The same rows as JSON fields (snake_case, like the record), for the json format's `boot` object. */
export function bootFactFields(boot: BootFacts): Record<string, unknown> {
  return {
    ...(boot.constitution ? { constitution: boot.constitution } : {}),
    ...(boot.session !== undefined ? { session: boot.session } : {}),
    ...(boot.outputSink !== undefined ? { output_sink: boot.outputSink } : {}),
    ...(boot.cacheHints !== undefined && boot.cacheHints.length > 0 ? { cache_hints: boot.cacheHints } : {}),
  };
}

/** The task on one line, capped at MAX_HEADER_TASK_CHARS. */
export function headerTask(task: string): string {
  const flat = task.replace(/\s+/g, ' ').trim();
  return flat.length <= MAX_HEADER_TASK_CHARS ? flat : `${flat.slice(0, MAX_HEADER_TASK_CHARS - 1)}…`;
}

/** The one line of the smallest valid header, used when the budget cannot hold the full one. */
export function minimalHeaderLine(available: number): string {
  return `Budget: ${available} tokens available; too small for any file`;
}

/** An empty count table for every tier. */
export function emptyIncluded(): BootHeader['included'] {
  return { primary: {}, supporting: {}, reference: {} };
}

/** Worst case for reserving header tokens: every level of every tier at the largest count. */
export function worstCaseHeader(base: Omit<BootHeader, 'included' | 'used' | 'historyMessages' | 'excluded'>, counts: { files: Record<TierName, number>; messages: number; excluded: number }): BootHeader {
  const included = emptyIncluded();
  for (const tier of TIER_NAMES) {
    if (tier === 'history') continue;
    for (const level of LEVELS) included[tier][level] = counts.files[tier];
  }
  return { ...base, used: base.available, included, historyMessages: counts.messages, excluded: counts.excluded };
}

function describeTier(levels: Partial<Record<Level, number>>): string {
  const parts = LEVELS.filter((level) => (levels[level] ?? 0) > 0).map((level) => `${level} ${levels[level]}`);
  const total = LEVELS.reduce((n, level) => n + (levels[level] ?? 0), 0);
  return parts.length === 0 ? '0 files' : `${total} file${total === 1 ? '' : 's'} (${parts.join(', ')})`;
}
