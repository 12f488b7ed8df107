import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { canonicalJson, configHash, DEFAULT_CONFIG_FILE, ENV_VARIABLES, loadConfig, type LoadConfigOptions } from '../../src/config/load.js';
import { defaultConfig } from '../../src/config/schema.js';
import { closestKey, validateConfig } from '../../src/config/validate.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A temporary root, optionally with .aiwg/rag/config.yaml holding `yaml`. */
async function rootWith(yaml?: string): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'aiwg-config-'));
  dirs.push(root);
  if (yaml !== undefined) {
    await mkdir(join(root, '.aiwg', 'rag'), { recursive: true });
    await writeFile(join(root, DEFAULT_CONFIG_FILE), yaml);
  }
  return root;
}

/** The ConfigError a load throws. */
async function loadError(options: LoadConfigOptions): Promise<ConfigError> {
  const error = await loadConfig(options).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  const configError = error as ConfigError;
  expect(configError.exitCode).toBe(2);
  expect(configError.code).toBe('E_CONFIG');
  return configError;
}

describe('loadConfig precedence: defaults < file < environment < flags', () => {
  it('gives the defaults when there is no file, environment or flag', async () => {
    const loaded = await loadConfig({ root: await rootWith() });
    expect(loaded.config).toEqual(defaultConfig());
    expect(loaded.sources).toEqual(['defaults']);
    expect(loaded.hash).toBe(configHash(defaultConfig()));
    expect(loaded.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('applies each layer over the one below, merging objects key by key', async () => {
    const root = await rootWith('budget_config:\n  total_budget:\n    max_tokens: 50000\n    reserve_for_output: 1000\ntokenizer: cl100k\n');
    const fileOnly = await loadConfig({ root });
    expect(fileOnly.config.budget_config.total_budget).toEqual({ max_tokens: 50000, reserve_for_output: 1000, reserve_for_system: 2000 });
    expect(fileOnly.config.tokenizer).toBe('cl100k');
    expect(fileOnly.sources).toEqual(['defaults', '.aiwg/rag/config.yaml']);

    const env = { AIWG_MAX_TOKENS: '60000', AIWG_TOKENIZER: 'chars4', UNRELATED: 'x' };
    const withEnv = await loadConfig({ root, env });
    expect(withEnv.config.budget_config.total_budget).toEqual({ max_tokens: 60000, reserve_for_output: 1000, reserve_for_system: 2000 });
    expect(withEnv.config.tokenizer).toBe('chars4');
    expect(withEnv.sources).toEqual(['defaults', '.aiwg/rag/config.yaml', 'env:AIWG_MAX_TOKENS', 'env:AIWG_TOKENIZER']);

    const flags = { budget_config: { total_budget: { max_tokens: 70000, reserve_for_system: undefined } } };
    const withFlags = await loadConfig({ root, env, flags });
    expect(withFlags.config.budget_config.total_budget).toEqual({ max_tokens: 70000, reserve_for_output: 1000, reserve_for_system: 2000 });
    expect(withFlags.sources.at(-1)).toBe('flags');
    expect(new Set([fileOnly.hash, withEnv.hash, withFlags.hash]).size).toBe(3);
  });

  it('ignores flags that are all undefined and empty environment variables', async () => {
    const loaded = await loadConfig({ root: await rootWith(), env: { AIWG_MAX_TOKENS: '', AIWG_OVERFLOW: '  ' }, flags: { budget_config: { overflow_strategy: undefined } } });
    expect(loaded.sources).toEqual(['defaults']);
  });

  it.each(ENV_VARIABLES.map((v) => [v.name, v.path, v.kind] as const))('maps %s onto %j', async (variable, path, kind) => {
    const value = kind === 'integer' ? '1234' : variable === 'AIWG_TOKENIZER' ? 'cl100k' : variable === 'AIWG_OVERFLOW' ? 'error' : variable === 'AIWG_SCORING_METHOD' ? 'keyword' : 'some/dir';
    const env = { [variable]: value, ...(variable === 'AIWG_MAX_TOKENS' ? { AIWG_RESERVE_OUTPUT: '10', AIWG_RESERVE_SYSTEM: '10' } : {}) };
    const loaded = await loadConfig({ root: await rootWith(), env });
    const got = path.reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], loaded.config);
    expect(got).toBe(kind === 'integer' ? 1234 : value);
    expect(loaded.sources).toContain(`env:${variable}`);
  });

  it('reads AIWG_CONFIG, and an explicit configFile wins over it', async () => {
    const root = await rootWith('tokenizer: cl100k\n');
    await writeFile(join(root, 'env.yaml'), 'tokenizer: chars4\n');
    await writeFile(join(root, 'flag.yaml'), 'tokenizer: o200k\nbudget_config: { strategy: greedy }\n');
    const fromEnv = await loadConfig({ root, env: { AIWG_CONFIG: 'env.yaml' } });
    expect(fromEnv.config.tokenizer).toBe('chars4');
    expect(fromEnv.sources).toEqual(['defaults', 'env.yaml']);
    const fromFlag = await loadConfig({ root, env: { AIWG_CONFIG: 'env.yaml' }, configFile: join(root, 'flag.yaml') });
    expect(fromFlag.config.budget_config.strategy).toBe('greedy');
    expect(fromFlag.sources).toEqual(['defaults', 'flag.yaml']);
  });

  it('resolves a relative configFile against cwd when given', async () => {
    const root = await rootWith();
    const elsewhere = await rootWith();
    await writeFile(join(elsewhere, 'mine.yaml'), 'tokenizer: chars4\n');
    const loaded = await loadConfig({ root, configFile: 'mine.yaml', cwd: elsewhere });
    expect(loaded.config.tokenizer).toBe('chars4');
    expect(loaded.sources).toEqual(['defaults', join(elsewhere, 'mine.yaml')]);
  });

  it.each([
    ['an empty file', ''],
    ['a file of comments', '# nothing here\n'],
    ['keys left empty', 'budget_config:\n  total_budget:\n    max_tokens:\ncache:\n'],
  ])('treats %s as the defaults', async (_what, yaml) => {
    expect((await loadConfig({ root: await rootWith(yaml) })).config).toEqual(defaultConfig());
  });

  it('loads the repository example config to exactly the defaults', async () => {
    const loaded = await loadConfig({ root: REPO });
    expect(loaded.config).toEqual(defaultConfig());
    expect(loaded.sources).toEqual(['defaults', '.aiwg/rag/config.yaml']);
  });
});

describe('loadConfig errors name the source, the key path and the fix', () => {
  it.each([
    [
      'an unknown key, with the closest known key',
      'budget_config:\n  total_budget:\n    max_token: 5\n',
      'budget_config.total_budget.max_token',
      /unknown key "max_token": did you mean "max_tokens"\? known keys here: max_tokens, reserve_for_output, reserve_for_system/,
    ],
    ['an unknown top-level key', 'budjet_config: {}\n', 'budjet_config', /did you mean "budget_config"\?/],
    ['an unknown key left empty', 'budget_config:\n  total_budgets:\n', 'budget_config.total_budgets', /did you mean "total_budget"\?/],
    ['a key spelled in camelCase', 'relevance_scoring:\n  scoringMethod: keyword\n', 'relevance_scoring.scoringMethod', /did you mean "scoring_method"\?/],
    ['an unknown key far from any known one', 'collect:\n  zzzzzzzzzz: 1\n', 'collect.zzzzzzzzzz', /remove it or fix its spelling; known keys here: include_secrets, max_file_bytes, ignore/],
    ['a string for a number', 'budget_config:\n  total_budget:\n    max_tokens: lots\n', 'budget_config.total_budget.max_tokens', /expected a number, got the string "lots": write the number without quotes \(default: 100000\)/],
    ['a fraction for a whole number', 'budget_config:\n  total_budget:\n    max_tokens: 1.5\n', 'budget_config.total_budget.max_tokens', /expected a whole number, got number 1\.5/],
    ['a scalar for a mapping', 'budget_config: 5\n', 'budget_config', /expected a mapping of keys, got number 5: indent its keys under it/],
    ['a word for a boolean', 'collect:\n  include_secrets: "yes"\n', 'collect.include_secrets', /expected true or false, got the string "yes"/],
    ['a value outside an enum', 'budget_config:\n  overflow_strategy: summarise\n', 'budget_config.overflow_strategy', /expected one of "truncate", "summarize", "prioritize", "error", got the string "summarise": did you mean "summarize"\?/],
    ['a negative number', 'budget_config:\n  total_budget:\n    reserve_for_output: -5\n', 'budget_config.total_budget.reserve_for_output', /must not be negative, got number -5: use a value >= 0 \(default: 8000\)/],
    ['a negative percentage', 'budget_config:\n  allocation:\n    history_context:\n      percentage: -5\n', 'budget_config.allocation.history_context.percentage', /must not be negative/],
    ['a token limit below -1', 'summarization:\n  levels:\n    stub:\n      token_limit: -3\n', 'summarization.levels.stub.token_limit', /must be >= -1 \(-1 means no limit\), got number -3/],
    ['a weight above 1', 'relevance_scoring:\n  factors:\n    recency:\n      weight: 2\n', 'relevance_scoring.factors.recency.weight', /must be <= 1, got number 2/],
    ['a bad list item', 'budget_config:\n  flow_order: [primary, secondary]\n', 'budget_config.flow_order[1]', /got the string "secondary"/],
    ['a bad version', 'version: "1.0"\n', 'version', /use a semantic version such as "1.0.0", got the string "1.0"/],
    ['a URL that is not http(s)', 'summarization:\n  llm:\n    url: ftp://host\n', 'summarization.llm.url', /expected an http\(s\) URL such as "http:\/\/localhost:11434\/v1", got the string "ftp:\/\/host"/],
    [
      'a list item missing a required key',
      'relevance_scoring:\n  factors:\n    file_type:\n      overrides:\n        - glob: "docs/**"\n',
      'relevance_scoring.factors.file_type.overrides[0].category',
      /missing required key: add it: one of "source_code", "test_code", "requirements", "documentation", "config"/,
    ],
  ])('%s', async (_what, yaml, keyPath, message) => {
    const error = await loadError({ root: await rootWith(yaml) });
    expect(error.keyPath).toBe(keyPath);
    expect(error.message).toMatch(message);
    expect(error.message.startsWith(`.aiwg/rag/config.yaml: ${keyPath}: `)).toBe(true);
  });

  it.each([
    [
      'tier percentages not summing to 100',
      'budget_config:\n  allocation:\n    primary_context:\n      percentage: 60\n',
      'budget_config.allocation',
      'tier percentages sum to 110 (primary_context 60 + supporting_context 30 + reference_context 15 + history_context 5) but must sum to 100',
    ],
    [
      'factor weights not summing to 1',
      'relevance_scoring:\n  factors:\n    recency:\n      weight: 0.3\n',
      'relevance_scoring.factors',
      'factor weights sum to 1.1 (task_alignment 0.4 + recency 0.3 + mention_density 0.2 + dependency_depth 0.1 + file_type 0.1) but must sum to 1 (tolerance 0.000001)',
    ],
    [
      'reserves set explicitly, not below max_tokens',
      'budget_config:\n  total_budget:\n    max_tokens: 9000\n    reserve_for_output: 8000\n    reserve_for_system: 2000\n',
      'budget_config.total_budget',
      'reserve_for_output (8000) + reserve_for_system (2000) = 10000 leaves nothing of max_tokens (9000): raise max_tokens above 10000 or lower the reserves',
    ],
    [
      'reserves set explicitly, equal to max_tokens',
      'budget_config:\n  total_budget:\n    max_tokens: 10000\n    reserve_for_output: 8000\n    reserve_for_system: 2000\n',
      'budget_config.total_budget',
      '= 10000 leaves nothing of max_tokens (10000)',
    ],
    [
      'thresholds out of order',
      'relevance_scoring:\n  thresholds:\n    primary_threshold: 0.4\n',
      'relevance_scoring.thresholds',
      'include_minimum <= supporting_threshold <= primary_threshold, got 0.3, 0.5, 0.4',
    ],
    ['a tier listed twice in flow_order', 'budget_config:\n  flow_order: [primary, primary]\n', 'budget_config.flow_order', 'lists primary more than once'],
  ])('%s', async (_what, yaml, keyPath, message) => {
    const error = await loadError({ root: await rootWith(yaml) });
    expect(error.keyPath).toBe(keyPath);
    expect(error.message).toContain(message);
    expect(error.message).toContain('.aiwg/rag/config.yaml: ');
  });

  it('accepts sums within the 1e-6 tolerance', async () => {
    const yaml = 'relevance_scoring:\n  factors:\n    task_alignment: { weight: 0.3 }\n    recency: { weight: 0.3 }\n    mention_density: { weight: 0.2000000001 }\n';
    expect((await loadConfig({ root: await rootWith(yaml) })).config.relevance_scoring.factors.recency.weight).toBe(0.3);
  });

  it('reports a YAML syntax error with its line', async () => {
    const error = await loadError({ root: await rootWith('budget_config:\n  total_budget:\n    max_tokens: [1, 2\n  overflow_strategy: error\n') });
    expect(error.message).toMatch(/^\.aiwg\/rag\/config\.yaml: YAML syntax error at line \d+, column \d+: .+: fix the YAML/);
    expect(error.message.split('\n')).toHaveLength(1);
  });

  it('reports a duplicated key as a YAML error at its line', async () => {
    const error = await loadError({ root: await rootWith('tokenizer: o200k\ntokenizer: cl100k\n') });
    expect(error.message).toContain('at line 2, column 1');
  });

  it('rejects a file that is not a mapping', async () => {
    const error = await loadError({ root: await rootWith('- a\n- b\n') });
    expect(error.message).toContain('the file must be a mapping of keys such as "budget_config:", got a list');
  });

  it('names the environment variable that holds a bad value', async () => {
    const root = await rootWith();
    const notNumber = await loadError({ root, env: { AIWG_MAX_TOKENS: 'lots' } });
    expect(notNumber.message).toBe(
      'environment variable AIWG_MAX_TOKENS: budget_config.total_budget.max_tokens: AIWG_MAX_TOKENS="lots" is not a number: set it to a whole number of tokens such as 100000',
    );
    const negative = await loadError({ root, env: { AIWG_RESERVE_OUTPUT: '-1' } });
    expect(negative.message).toMatch(/^environment variable AIWG_RESERVE_OUTPUT: budget_config\.total_budget\.reserve_for_output: must not be negative/);
    const badEnum = await loadError({ root, env: { AIWG_TOKENIZER: 'gpt5' } });
    expect(badEnum.message).toMatch(/^environment variable AIWG_TOKENIZER: tokenizer: expected one of "o200k", "cl100k", "chars4"/);
  });

  it('blames the highest layer that set a key of a broken rule', async () => {
    const root = await rootWith('budget_config:\n  total_budget:\n    max_tokens: 50000\n');
    const fromEnv = await loadError({ root, env: { AIWG_RESERVE_OUTPUT: '51000' } });
    expect(fromEnv.message).toMatch(/^environment variable AIWG_RESERVE_OUTPUT: budget_config\.total_budget: reserve_for_output \(51000\)/);
    const fromFlags = await loadError({ root, flags: { budget_config: { total_budget: { max_tokens: 5000, reserve_for_system: 5000 } } } });
    expect(fromFlags.message).toMatch(/^command-line flags: budget_config\.total_budget: /);
  });

  it('fails on a config file named explicitly that does not exist, naming it', async () => {
    const root = await rootWith();
    const viaEnv = await loadError({ root, env: { AIWG_CONFIG: 'missing.yaml' } });
    expect(viaEnv.message).toBe(`missing.yaml: config file does not exist: check AIWG_CONFIG (${join(root, 'missing.yaml')})`);
    const viaOption = await loadError({ root, configFile: join(root, 'nope.yaml') });
    expect(viaOption.message).toContain('config file does not exist: check the config file given');
  });

  it('refuses a default config file that is a symlink out of the root', async () => {
    const outside = await rootWith();
    await writeFile(join(outside, 'config.yaml'), 'tokenizer: chars4\n');
    const root = await rootWith();
    await mkdir(join(root, '.aiwg', 'rag'), { recursive: true });
    await symlink(join(outside, 'config.yaml'), join(root, DEFAULT_CONFIG_FILE));
    const error = await loadError({ root });
    expect(error.message).toContain('outside the root');
  });
});

describe('validateConfig', () => {
  it('returns the resolved config for valid input', () => {
    expect(validateConfig({ tokenizer: 'chars4' }, 'test').tokenizer).toBe('chars4');
  });

  it.each([undefined, null, 5, ['a']])('rejects %j as a whole configuration', (input) => {
    expect(() => validateConfig(input, 'inline')).toThrow(/^inline: the configuration must be a mapping of keys such as "budget_config:", got /);
  });

  it('throws a ConfigError naming the source for cross-field problems', () => {
    expect(() => validateConfig({ budget_config: { total_budget: { max_tokens: 100, reserve_for_output: 8000 } } }, 'inline')).toThrow(
      /^inline: budget_config\.total_budget: reserve_for_output \(8000\)/,
    );
  });
});

describe('configHash and canonicalJson', () => {
  it('do not depend on key order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: null } })).toBe('{"a":{"c":null,"d":[2,1]},"b":1}');
    const config = defaultConfig();
    const reordered = Object.fromEntries(Object.entries(config).reverse()) as typeof config;
    expect(configHash(reordered)).toBe(configHash(config));
  });
});

describe('closestKey', () => {
  it.each([
    ['max_token', ['max_tokens', 'reserve_for_output'], 'max_tokens'],
    ['maxTokens', ['max_tokens', 'reserve_for_output'], 'max_tokens'],
    ['RESERVE-FOR-OUTPUT', ['max_tokens', 'reserve_for_output'], 'reserve_for_output'],
    ['xyz', ['max_tokens', 'reserve_for_output'], undefined],
  ])('%s -> %s', (key, known, expected) => {
    expect(closestKey(key, known)).toBe(expected);
  });
});

describe('reserves and small budgets', () => {
  it.each([
    // max_tokens, reserves set, expected [output, system], scaled?
    [100000, {}, [8000, 2000], false],
    [20000, {}, [8000, 2000], false],
    [8000, {}, [3200, 800], true],
    [1000, {}, [400, 100], true],
    [8000, { reserve_for_output: 1000 }, [1000, 2000], false],
    [6000, { reserve_for_output: 2000 }, [2000, 1000], true],
    [8000, { reserve_for_output: 0, reserve_for_system: 0 }, [0, 0], false],
  ] as const)('max_tokens %i with %j set gives reserves %j', async (max, set, [output, system], scaled) => {
    const loaded = await loadConfig({ root: await rootWith(), flags: { budget_config: { total_budget: { max_tokens: max, ...set } } } });
    expect(loaded.config.budget_config.total_budget).toEqual({ max_tokens: max, reserve_for_output: output, reserve_for_system: system });
    expect(loaded.warnings).toHaveLength(scaled ? 1 : 0);
  });

  it('says what it scaled, from what, and how to choose', async () => {
    const loaded = await loadConfig({ root: await rootWith(), env: { AIWG_MAX_TOKENS: '8000' } });
    expect(loaded.warnings).toEqual([
      'max_tokens 8000 is small: the default reserve_for_output 8000, reserve_for_system 2000 would leave 0 tokens for context, so they were scaled to 3200, 800 (at most half of max_tokens in reserves); set --reserve-output / --reserve-system to choose',
    ]);
  });

  it('keeps the clear error for reserves set explicitly in a file, the environment or a flag', async () => {
    const fromFile = await loadError({ root: await rootWith('budget_config:\n  total_budget:\n    max_tokens: 8000\n    reserve_for_output: 8000\n') });
    expect(fromFile.message).toContain('leaves nothing of max_tokens (8000)');
    const fromFlag = await loadError({ root: await rootWith(), flags: { budget_config: { total_budget: { max_tokens: 8000, reserve_for_system: 9000 } } } });
    expect(fromFlag.message).toMatch(/^command-line flags: budget_config\.total_budget: reserve_for_output \(0\) \+ reserve_for_system \(9000\)/);
  });
});
