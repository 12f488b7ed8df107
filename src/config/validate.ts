import { quoteUserString } from '../security/quote-value.js';
import { PRESERVE_NAMES, STUB_FIELD_NAMES } from './summary-entries.js';
import type { z } from 'zod';
import { ConfigError } from '../errors.js';
import { ConfigSchema, defaultConfig, type Config } from './schema.js';

/**
 * Validation of configuration input: one strict zod parse (the schema holds the defaults), then
 * the rules one field cannot express alone. Every failure is a ConfigError naming the source,
 * the key path and the fix.
 */

/** Tolerance for "weights sum to 1" and "percentages sum to 100". */
export const SUM_TOLERANCE = 1e-6;

/** A rule spanning several keys that the merged configuration breaks. */
export interface CrossFieldProblem {
  keyPath: string;
  message: string;
  /** Dotted paths of the keys involved, to tell which layer (file, env, flags) set them. */
  keys: string[];
}

/** Strict parse plus cross-field checks; throws a ConfigError naming `source`. */
export function validateConfig(input: unknown, source: string): Config {
  const { config } = scaleUnsetReserves(parseConfigStrict(input, source), (key) => hasPath(input, ['budget_config', 'total_budget', key]));
  const [problem] = crossFieldProblems(config);
  if (problem) throw new ConfigError(problem.keyPath, problem.message, { file: source });
  return config;
}

/** The strict zod parse alone, first issue turned into a ConfigError naming `source`. */
export function parseConfigStrict(input: unknown, source: string): Config {
  const result = ConfigSchema.safeParse(input);
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  const { keyPath, message } = issue ? describeIssue(issue, input) : { keyPath: '', message: 'invalid configuration' };
  throw new ConfigError(keyPath, message, { file: source, cause: result.error });
}

/** Reserve keys of `budget_config.total_budget`. */
export type ReserveKey = 'reserve_for_output' | 'reserve_for_system';
const RESERVE_KEYS: readonly ReserveKey[] = ['reserve_for_output', 'reserve_for_system'];
/** Reserves nobody set take at most this share of max_tokens. */
export const MAX_DEFAULT_RESERVE_SHARE = 0.5;

/**
 * Reserves the user did not set scale down with a small budget: together with the reserves the
 * user did set, they take at most half of max_tokens, keeping their default ratio. Reserves set
 * in a file, the environment or a flag are never changed, so too large a reserve set on purpose
 * still fails with the reserve error. Returns the config and, when something was scaled, a
 * warning that goes to stderr and into the record.
 */
export function scaleUnsetReserves(config: Config, isSet: (key: ReserveKey) => boolean): { config: Config; warning?: string } {
  const total = config.budget_config.total_budget;
  const unset = RESERVE_KEYS.filter((key) => !isSet(key));
  const wanted = unset.reduce((sum, key) => sum + total[key], 0);
  const setSum = RESERVE_KEYS.filter((key) => isSet(key)).reduce((sum, key) => sum + total[key], 0);
  const room = Math.max(0, Math.floor(total.max_tokens * MAX_DEFAULT_RESERVE_SHARE) - setSum);
  if (unset.length === 0 || wanted <= room) return { config };
  const scaled = { ...total };
  for (const key of unset) scaled[key] = Math.floor((total[key] * room) / wanted);
  const was = unset.map((key) => `${key} ${total[key]}`).join(', ');
  const now = unset.map((key) => `${scaled[key]}`).join(', ');
  const flags = unset.map((key) => (key === 'reserve_for_output' ? '--reserve-output' : '--reserve-system')).join(' / ');
  const warning =
    `max_tokens ${total.max_tokens} is small: the default ${was} would leave ${Math.max(0, total.max_tokens - setSum - wanted)} tokens for context, ` +
    `so ${unset.length === 1 ? 'it was' : 'they were'} scaled to ${now} (at most half of max_tokens in reserves); set ${flags} to choose`;
  return { config: { ...config, budget_config: { ...config.budget_config, total_budget: scaled } }, warning };
}

/** The rules between fields: sums, reserves, threshold order. In check order. */
export function crossFieldProblems(config: Config): CrossFieldProblem[] {
  const problems: CrossFieldProblem[] = [];
  const { total_budget: budget, allocation, flow_order: flowOrder } = config.budget_config;

  const tiers = Object.entries(allocation).map(([name, tier]) => [name, tier.percentage] as const);
  const tierSum = sum(tiers.map(([, p]) => p));
  if (Math.abs(tierSum - 100) > SUM_TOLERANCE) {
    problems.push({
      keyPath: 'budget_config.allocation',
      message: `tier percentages sum to ${formatNumber(tierSum)} (${terms(tiers)}) but must sum to 100: adjust the percentage of each tier so they add up to 100`,
      keys: tiers.map(([name]) => `budget_config.allocation.${name}.percentage`),
    });
  }

  const factors = Object.entries(config.relevance_scoring.factors).map(([name, f]) => [name, f.weight] as const);
  const weightSum = sum(factors.map(([, w]) => w));
  if (Math.abs(weightSum - 1) > SUM_TOLERANCE) {
    problems.push({
      keyPath: 'relevance_scoring.factors',
      message: `factor weights sum to ${formatNumber(weightSum)} (${terms(factors)}) but must sum to 1 (tolerance ${SUM_TOLERANCE}): adjust the weight of each factor so they add up to 1`,
      keys: factors.map(([name]) => `relevance_scoring.factors.${name}.weight`),
    });
  }

  const reserved = budget.reserve_for_output + budget.reserve_for_system;
  if (reserved >= budget.max_tokens) {
    problems.push({
      keyPath: 'budget_config.total_budget',
      message: `reserve_for_output (${budget.reserve_for_output}) + reserve_for_system (${budget.reserve_for_system}) = ${reserved} leaves nothing of max_tokens (${budget.max_tokens}): raise max_tokens above ${reserved} or lower the reserves`,
      keys: ['max_tokens', 'reserve_for_output', 'reserve_for_system'].map((k) => `budget_config.total_budget.${k}`),
    });
  }

  const { detailed, stub } = config.summarization.levels;
  const unknownPreserve = detailed.preserve.filter((name) => !(PRESERVE_NAMES as readonly string[]).includes(name));
  if (unknownPreserve.length > 0) {
    problems.push({
      keyPath: 'summarization.levels.detailed.preserve',
      message: `unknown entr${unknownPreserve.length === 1 ? 'y' : 'ies'} ${unknownPreserve.map((n) => JSON.stringify(n)).join(', ')}: use any of ${PRESERVE_NAMES.map((n) => JSON.stringify(n)).join(', ')}`,
      keys: ['summarization.levels.detailed.preserve'],
    });
  }
  const unknownInclude = stub.include.filter((name) => !(STUB_FIELD_NAMES as readonly string[]).includes(name));
  if (unknownInclude.length > 0) {
    problems.push({
      keyPath: 'summarization.levels.stub.include',
      message: `unknown entr${unknownInclude.length === 1 ? 'y' : 'ies'} ${unknownInclude.map((n) => JSON.stringify(n)).join(', ')}: use any of ${STUB_FIELD_NAMES.map((n) => JSON.stringify(n)).join(', ')}`,
      keys: ['summarization.levels.stub.include'],
    });
  }

  if (!config.relevance_scoring.enabled) {
    problems.push({
      keyPath: 'relevance_scoring.enabled',
      message: 'false is not supported: files are chosen and degraded by relevance, so scoring cannot be turned off; for the cheapest scoring set relevance_scoring.scoring_method: keyword',
      keys: ['relevance_scoring.enabled'],
    });
  }

  const t = config.relevance_scoring.thresholds;
  if (!(t.include_minimum <= t.supporting_threshold && t.supporting_threshold <= t.primary_threshold)) {
    problems.push({
      keyPath: 'relevance_scoring.thresholds',
      message: `thresholds must satisfy include_minimum <= supporting_threshold <= primary_threshold, got ${t.include_minimum}, ${t.supporting_threshold}, ${t.primary_threshold}: reorder them`,
      keys: ['include_minimum', 'supporting_threshold', 'primary_threshold'].map((k) => `relevance_scoring.thresholds.${k}`),
    });
  }

  const repeated = flowOrder.filter((tier, i) => flowOrder.indexOf(tier) !== i);
  if (repeated.length > 0) {
    problems.push({
      keyPath: 'budget_config.flow_order',
      message: `lists ${[...new Set(repeated)].join(', ')} more than once: name each tier at most once`,
      keys: ['budget_config.flow_order'],
    });
  }
  return problems;
}

/** Keys the schema accepts at an object path (e.g. `["budget_config", "total_budget"]`). */
export function knownKeysAt(path: readonly PropertyKey[]): string[] {
  let node: SchemaNode | undefined = unwrap(ConfigSchema as unknown as SchemaNode);
  for (const segment of path) {
    if (!node) return [];
    const def: SchemaNode['_zod']['def'] = node._zod.def;
    node = unwrap(def.type === 'array' ? def.element : def.shape?.[String(segment)]);
  }
  return node?._zod.def.shape ? Object.keys(node._zod.def.shape) : [];
}

/** The known key closest to `key` (edit distance, ignoring case and separators), if close enough. */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  const norm = (s: string) => s.toLowerCase().replace(/[-_\s]/g, '');
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = norm(candidate) === norm(key) ? 0 : editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return bestDistance <= Math.max(2, Math.floor(key.length / 3)) ? best : undefined;
}

/** `a.b[2].c` from a zod path. */
export function formatKeyPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, seg) => (typeof seg === 'number' ? `${out}[${seg}]` : out ? `${out}.${String(seg)}` : String(seg)), '');
}

/**
 * Zod introspection: the fields of `_zod.def` this module reads. Zod 4 documents `_zod.def` as
 * its introspection surface but types it per schema class, so we read it structurally.
 */
interface SchemaNode {
  _zod: {
    def: {
      type: string;
      innerType?: SchemaNode;
      shape?: Record<string, SchemaNode>;
      element?: SchemaNode;
    };
  };
}

const WRAPPERS = new Set(['default', 'prefault', 'optional', 'nullable', 'readonly', 'catch', 'nonoptional']);

function unwrap(node: SchemaNode | undefined): SchemaNode | undefined {
  let current = node;
  while (current && WRAPPERS.has(current._zod.def.type) && current._zod.def.innerType) current = current._zod.def.innerType;
  return current;
}

function describeIssue(issue: z.core.$ZodIssue, input: unknown): { keyPath: string; message: string } {
  const path = issue.path;
  const got = valueAt(input, path);
  const hint = defaultHint(path);
  if (path.length === 0 && issue.code === 'invalid_type') {
    return { keyPath: '', message: `the configuration must be a mapping of keys such as "budget_config:", got ${describeValue(got)}` };
  }
  if (got === undefined && issue.code !== 'unrecognized_keys') {
    const choices = issue.code === 'invalid_value' ? `: one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}` : '';
    return { keyPath: formatKeyPath(path), message: `missing required key: add it${choices}` };
  }
  switch (issue.code) {
    case 'unrecognized_keys': {
      const [key = ''] = issue.keys;
      const known = knownKeysAt(path);
      const suggestion = closestKey(key, known);
      const fix = suggestion ? `did you mean "${suggestion}"?` : 'remove it or fix its spelling;';
      return { keyPath: formatKeyPath([...path, key]), message: `unknown key "${key}": ${fix} known keys here: ${known.join(', ')}` };
    }
    case 'invalid_type': {
      const [expected, fix] = TYPE_FIXES[issue.expected] ?? [`a ${issue.expected}`, `write a ${issue.expected}`];
      return { keyPath: formatKeyPath(path), message: `expected ${expected}, got ${describeValue(got)}: ${fix}${hint}` };
    }
    case 'too_small':
    case 'too_big': {
      const isMin = issue.code === 'too_small';
      const bound = isMin ? issue.minimum : issue.maximum;
      if (issue.origin === 'number' || issue.origin === 'int') {
        const op = isMin ? (issue.inclusive ? '>=' : '>') : issue.inclusive ? '<=' : '<';
        const what = isMin && Number(bound) === 0 && issue.inclusive ? 'must not be negative' : `must be ${op} ${String(bound)}`;
        const minusOne = path.at(-1) === 'token_limit' ? ' (-1 means no limit)' : '';
        return { keyPath: formatKeyPath(path), message: `${what}${minusOne}, got ${describeValue(got)}: use a value ${op} ${String(bound)}${hint}` };
      }
      const unit = issue.origin === 'string' ? 'characters' : 'items';
      return { keyPath: formatKeyPath(path), message: `needs ${isMin ? 'at least' : 'at most'} ${String(bound)} ${unit}, got ${describeValue(got)}${hint}` };
    }
    case 'invalid_value': {
      const options = issue.values.map((v) => JSON.stringify(v));
      const suggestion = typeof got === 'string' ? closestKey(got, issue.values.map(String)) : undefined;
      const fix = suggestion ? `did you mean "${suggestion}"?` : `use one of ${options.join(', ')}`;
      return { keyPath: formatKeyPath(path), message: `expected one of ${options.join(', ')}, got ${describeValue(got)}: ${fix}` };
    }
    case 'invalid_format': {
      const what = issue.format === 'url' ? 'expected an http(s) URL such as "http://localhost:11434/v1"' : issue.message;
      return { keyPath: formatKeyPath(path), message: `${what}, got ${describeValue(got)}${hint}` };
    }
    default:
      return { keyPath: formatKeyPath(path), message: `${issue.message}, got ${describeValue(got)}${hint}` };
  }
}

/** What a zod `expected` type means to a user, and how to write it. */
const TYPE_FIXES: Record<string, [string, string]> = {
  number: ['a number', 'write the number without quotes'],
  int: ['a whole number', 'write a whole number without quotes or decimals'],
  boolean: ['true or false', 'write true or false without quotes'],
  string: ['text', 'write the value as text, quoted if it contains special characters'],
  object: ['a mapping of keys', 'indent its keys under it'],
  array: ['a list', 'write a YAML list: [a, b] or one "- item" per line'],
};

function hasPath(input: unknown, path: readonly string[]): boolean {
  let node = input;
  for (const key of path) {
    if (node === null || typeof node !== 'object' || Array.isArray(node) || !(key in node)) return false;
    node = (node as Record<string, unknown>)[key];
  }
  return node !== undefined && node !== null;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let node = input;
  for (const seg of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[seg];
  }
  return node;
}

/** " (default: 100000)" when the schema has a scalar default at `path`. */
function defaultHint(path: readonly PropertyKey[]): string {
  const value = valueAt(defaultConfig(), path);
  return value !== undefined && (typeof value !== 'object' || value === null) ? ` (default: ${JSON.stringify(value)})` : '';
}

function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') {
    const quoted = quoteUserString(value);
    return quoted.startsWith('"') ? `the string ${quoted}` : quoted;
  }
  return `${typeof value} ${String(value)}`;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

/** Sums of decimals print as 1.1, not 1.1000000000000001. */
function formatNumber(value: number): string {
  return String(Number(value.toFixed(6)));
}

function terms(entries: ReadonlyArray<readonly [string, number]>): string {
  return entries.map(([name, value]) => `${name} ${value}`).join(' + ');
}
