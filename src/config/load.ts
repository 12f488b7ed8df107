import { sha256Hex } from '../util/hash.js';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { credentialFileReason } from '../collect/exclusion-rules.js';
import { locateInsideRoot, readRegularFile } from '../security/read-guard.js';
import { ConfigError } from '../errors.js';
import type { Config, ConfigInput } from './schema.js';
import { crossFieldProblems, knownKeysAt, parseConfigStrict, scaleUnsetReserves } from './validate.js';

export { validateConfig } from './validate.js';

/**
 * Configuration loading. Precedence, lowest first:
 *
 *   defaults (schema.ts) < config file < environment (AIWG_*) < CLI flags
 *
 * Each layer is parsed strictly on its own, so an error names the layer that caused it; the
 * layers are then deep-merged (objects merge, lists and scalars replace) and parsed once more
 * into the fully resolved Config, and the cross-field rules run on the result.
 */

/** The config file looked for when none is named, relative to the root. */
export const DEFAULT_CONFIG_FILE = '.aiwg/rag/config.yaml';

export interface LoadConfigOptions {
  /** Repository root; the default config file lives under it. */
  root: string;
  /** Environment variables (AIWG_*). Defaults to none: the CLI passes its own. */
  env?: Record<string, string | undefined>;
  /** Values from CLI flags; `undefined` entries are ignored. */
  flags?: ConfigInput;
  /** Config file to read instead of `<root>/.aiwg/rag/config.yaml`; wins over AIWG_CONFIG. */
  configFile?: string;
  /** Base for a relative configFile or AIWG_CONFIG (the CLI's working directory); default root. */
  cwd?: string;
}

export interface LoadedConfig {
  config: Config;
  /** sha256 (hex) of the canonical JSON of `config`: same settings, same hash. */
  hash: string;
  /** Layers applied, lowest first, e.g. ["defaults", ".aiwg/rag/config.yaml", "env:AIWG_MAX_TOKENS", "flags"]. */
  sources: string[];
  /** What loading adjusted, e.g. default reserves scaled to a small budget; for stderr and the record. */
  warnings: string[];
}

/** How each AIWG_* variable maps onto the config. */
export const ENV_VARIABLES: ReadonlyArray<{ name: string; path: readonly string[]; kind: 'integer' | 'string' }> = [
  { name: 'AIWG_MAX_TOKENS', path: ['budget_config', 'total_budget', 'max_tokens'], kind: 'integer' },
  { name: 'AIWG_RESERVE_OUTPUT', path: ['budget_config', 'total_budget', 'reserve_for_output'], kind: 'integer' },
  { name: 'AIWG_RESERVE_SYSTEM', path: ['budget_config', 'total_budget', 'reserve_for_system'], kind: 'integer' },
  { name: 'AIWG_TOKENIZER', path: ['tokenizer'], kind: 'string' },
  { name: 'AIWG_OVERFLOW', path: ['budget_config', 'overflow_strategy'], kind: 'string' },
  { name: 'AIWG_SCORING_METHOD', path: ['relevance_scoring', 'scoring_method'], kind: 'string' },
  { name: 'AIWG_CACHE_DIR', path: ['cache', 'dir'], kind: 'string' },
  { name: 'AIWG_CACHE_REDIS_URL', path: ['cache', 'redis_url'], kind: 'string' },
  { name: 'AIWG_SHARED_CONTEXT', path: ['shared_context', 'url'], kind: 'string' },
  { name: 'AIWG_EMBEDDING_MODEL', path: ['relevance_scoring', 'embedding', 'model'], kind: 'string' },
  { name: 'AIWG_MODEL_DIR', path: ['relevance_scoring', 'embedding', 'model_dir'], kind: 'string' },
];

/** Load, merge and validate the configuration layers. Throws ConfigError (exit code 2). */
export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const env = options.env ?? {};
  const layers: Layer[] = [];
  const file = await readConfigLayer(options, env);
  if (file) layers.push(file);
  layers.push(...envLayers(env));
  const flags = stripEmpty(options.flags);
  if (isRecord(flags)) layers.push({ source: 'flags', label: 'command-line flags', data: flags });

  for (const layer of layers) parseConfigStrict(layer.data, layer.label);
  const merged = layers.reduce<Record<string, unknown>>((acc, layer) => deepMerge(acc, layer.data), {});
  const scaled = scaleUnsetReserves(parseConfigStrict(merged, 'merged configuration'), (key) =>
    layers.some((layer) => hasPath(layer.data, ['budget_config', 'total_budget', key])),
  );
  const { config } = scaled;
  const [problem] = crossFieldProblems(config);
  if (problem) {
    const culprit = [...layers].reverse().find((layer) => problem.keys.some((key) => hasPath(layer.data, key.split('.'))));
    throw new ConfigError(problem.keyPath, problem.message, { file: culprit?.label ?? 'defaults' });
  }
  return { config, hash: configHash(config), sources: ['defaults', ...layers.map((l) => l.source)], warnings: scaled.warning ? [scaled.warning] : [] };
}

/** sha256 (hex) of the canonical JSON of a config (keys sorted at every level). */
export function configHash(config: Config): string {
  return sha256Hex(canonicalJson(config));
}

/** JSON with object keys sorted at every level and undefined members dropped. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    isRecord(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])) : v,
  );
}

interface Layer {
  /** Entry in LoadedConfig.sources. */
  source: string;
  /** Where an error message says the bad value came from. */
  label: string;
  data: Record<string, unknown>;
}

/**
 * The config file through the read-path guard. The default file must resolve inside the root
 * (checked before it is opened, so a link to /dev/zero is never read); a named one may live
 * anywhere, but must be a regular file under the size cap and not a credentials file, and no
 * error ever prints its content.
 */
async function readConfigLayer(options: LoadConfigOptions, env: Record<string, string | undefined>): Promise<Layer | undefined> {
  const fromEnv = nonEmpty(env.AIWG_CONFIG);
  const named = options.configFile ?? fromEnv;
  const path = named === undefined ? join(options.root, DEFAULT_CONFIG_FILE) : resolve(options.cwd ?? options.root, named);
  const label = displayPath(options.root, path);
  const how = options.configFile !== undefined ? 'check the config file given' : named !== undefined ? 'check AIWG_CONFIG' : `fix or remove ${DEFAULT_CONFIG_FILE}`;
  if (named === undefined) {
    const located = locateInsideRoot(options.root, path);
    if (located.kind === 'refused' && located.code === 'not-found') return undefined;
    if (located.kind === 'refused' && located.code === 'outside-root') {
      throw new ConfigError('', `is a symlink leading outside the root ${options.root}: copy the file into the repository or name it with AIWG_CONFIG`, { file: label });
    }
  }
  const credential = credentialFileReason(path.split(sep).join('/'));
  if (credential !== undefined) {
    throw new ConfigError('', `is a credentials file, not a config (${credential.replace(/;.*$/, '')}), so it is not read: ${how}; a config is a YAML file such as ${DEFAULT_CONFIG_FILE}`, { file: label });
  }
  const read = await readRegularFile(path, { maxBytes: MAX_CONFIG_BYTES });
  if (read.kind === 'refused') throw new ConfigError('', `config file ${read.reason}: ${how} (${path})`, { file: label });
  // yaml loads only when there is a file to parse: a run without a config does not pay for it
  const { parseYamlData } = await import('../util/yaml-data.js');
  return { source: label, label, data: parseYamlConfig(read.file.bytes.toString('utf8'), label, parseYamlData) };
}

/** A config file is a few KB; a larger one is a mistake (a log, a data file), refused before it is read. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/** Parse a YAML config document. A key with no value (YAML null) means "use the default". */
function parseYamlConfig(text: string, label: string, parseYamlData: typeof import('../util/yaml-data.js').parseYamlData): Record<string, unknown> {
  const data = dropEmptyKnownKeys(parseYamlData(text, label, { prefix: 'YAML ' }));
  if (data === null || data === undefined) return {};
  if (!isRecord(data)) {
    const got = Array.isArray(data) ? 'a list' : typeof data === 'string' ? 'plain text' : `a ${typeof data}`;
    throw new ConfigError('', `the file must be a mapping of keys such as "budget_config:", got ${got}: is this the right file?`, { file: label });
  }
  return data;
}

function envLayers(env: Record<string, string | undefined>): Layer[] {
  const layers: Layer[] = [];
  for (const variable of ENV_VARIABLES) {
    const raw = nonEmpty(env[variable.name]);
    if (raw === undefined) continue;
    const label = `environment variable ${variable.name}`;
    let value: string | number = raw.trim();
    if (variable.kind === 'integer') {
      if (!/^[+-]?\d+(\.\d+)?$/.test(value)) {
        throw new ConfigError(variable.path.join('.'), `${variable.name}=${JSON.stringify(raw)} is not a number: set it to a whole number of tokens such as 100000`, { file: label });
      }
      value = Number(value);
    }
    layers.push({ source: `env:${variable.name}`, label, data: nest(variable.path, value) });
  }
  return layers;
}

function nest(path: readonly string[], value: unknown): Record<string, unknown> {
  return path.reduceRight<Record<string, unknown>>((inner, key, i) => ({ [key]: i === path.length - 1 ? value : inner }), {});
}

function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    out[key] = isRecord(current) && isRecord(value) ? deepMerge(current, value) : value;
  }
  return out;
}

/** Flags: drop null and undefined members and the mappings left empty, at every level. */
function stripEmpty(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    const stripped = stripEmpty(member);
    if (stripped !== undefined) out[key] = stripped;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * A config file: a known key left empty (YAML null) takes its default. Unknown keys stay, even
 * empty, so the strict parse reports them.
 */
function dropEmptyKnownKeys(value: unknown, path: string[] = []): unknown {
  if (!isRecord(value)) return value;
  const known = knownKeysAt(path);
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (member === null && known.includes(key)) continue;
    out[key] = dropEmptyKnownKeys(member, [...path, key]);
  }
  return out;
}

function hasPath(data: unknown, path: readonly string[]): boolean {
  let node = data;
  for (const key of path) {
    if (!isRecord(node) || !(key in node)) return false;
    node = node[key];
  }
  return true;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** POSIX path relative to the root when inside it, else absolute. */
function displayPath(root: string, path: string): string {
  const rel = relative(resolve(root), path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split(sep).join('/') : path;
}
