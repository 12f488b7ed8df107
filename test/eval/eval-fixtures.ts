import { BudgetRecordSchema, RECORD_VERSION, type BudgetRecord } from '../../src/record/record-schema.js';
import type { Level, TierName } from '../../src/config/schema.js';
import { makeFixtureRepo, type FixtureCommit } from '../helpers/fixture-repo.js';

const ZERO_FACTORS = { task_alignment: 0, recency: 0, mention_density: 0, dependency_depth: 0, file_type: 0 };

/** A valid budget record holding the given files (tier, level, tokens); everything else neutral. */
export function recordWith(
  files: Array<{ path: string; tier: TierName; level: Level; tokens?: number }>,
  options: { available?: number; renderedTokens?: number } = {},
): BudgetRecord {
  const tier = (name: TierName) => {
    const mine = files.filter((f) => f.tier === name).map((f) => ({ path: f.path, tokens: f.tokens ?? 10, level: f.level, relevance_score: 0.5, factors: ZERO_FACTORS }));
    return { budget: 1000, total_tokens: mine.reduce((a, f) => a + f.tokens, 0), files: mine };
  };
  return BudgetRecordSchema.parse({
    version: RECORD_VERSION,
    run_id: 'run-1',
    timestamp: '2026-01-15T00:00:00.000Z',
    task: 'a task',
    root: '/repo',
    tokenizer: 'chars4',
    total_budget: options.available ?? 8000,
    reserved: { output: 0, system: 0 },
    available: options.available ?? 8000,
    allocation: { primary: tier('primary'), supporting: tier('supporting'), reference: tier('reference'), history: tier('history') },
    excluded: [],
    overflow: { occurred: false, strategy_applied: null, files_affected: [] },
    metrics: { utilization: 0.5, efficiency: 0.5, rendered_tokens: options.renderedTokens ?? 100, requested_tokens: 100 },
    scoring: { method: 'keyword', embedding_model: null, weights: ZERO_FACTORS },
    warnings: [],
    timings_ms: { collect: 1, score: 1 },
    tool_version: '0.0.0',
    config_hash: 'x',
  });
}

const src = (name: string, body: string) => `export function ${name}() {\n  return ${JSON.stringify(body)};\n}\n`;

/**
 * A repository whose history exercises every mining rule. Newest commit last; the expected
 * verdict of each is in its `why` field (used by the tests, not by git).
 */
export const MINING_HISTORY: Array<FixtureCommit & { why: string }> = [
  { why: 'root-commit', date: '2026-01-01T00:00:00Z', message: 'initial import of the http client', files: { 'src/http.ts': src('request', 'v1'), 'src/parser.ts': src('parse', 'v1'), 'src/util.ts': src('util', 'v1'), 'README.md': '# demo\n', 'package.json': '{"name":"demo"}\n' } },
  { why: 'qualifies', date: '2026-01-02T00:00:00Z', message: 'fix retry loop in the http client\n\nThe loop never backed off.\n\nSigned-off-by: Dev <dev@example.com>', files: { 'src/http.ts': src('request', 'v2'), 'test/http.test.ts': 'it("retries", () => {});\n' } },
  { why: 'docs-only', date: '2026-01-03T00:00:00Z', message: 'docs: explain the retry settings', files: { 'README.md': '# demo\nretries\n' } },
  { why: 'docs-only', date: '2026-01-04T00:00:00Z', message: 'explain install steps in the readme', files: { 'README.md': '# demo\ninstall\n' } },
  { why: 'dependency-bump', date: '2026-01-05T00:00:00Z', message: 'chore(deps): bump zod from 3.0.0 to 4.0.0', files: { 'package.json': '{"name":"demo","deps":1}\n' } },
  { why: 'release', date: '2026-01-06T00:00:00Z', message: 'v1.2.0', files: { 'package.json': '{"name":"demo","version":"1.2.0"}\n', 'src/util.ts': src('util', 'v1.2') } },
  { why: 'formatting', date: '2026-01-07T00:00:00Z', message: 'fix typo in parser error message', files: { 'src/parser.ts': src('parse', 'v2') } },
  { why: 'short-message', date: '2026-01-08T00:00:00Z', message: 'wip', files: { 'src/parser.ts': src('parse', 'v3') } },
  { why: 'revert', date: '2026-01-09T00:00:00Z', message: 'Revert "fix retry loop in the http client"', files: { 'src/http.ts': src('request', 'v1') } },
  { why: 'only-added-files', date: '2026-01-10T00:00:00Z', message: 'add a cache module for parsed responses', files: { 'src/cache.ts': src('cache', 'v1') } },
  { why: 'too-many-source-files', date: '2026-01-11T00:00:00Z', message: 'rename the logger across every module', files: { 'src/http.ts': src('request', 'v3'), 'src/parser.ts': src('parse', 'v4'), 'src/util.ts': src('util', 'v2'), 'src/cache.ts': src('cache', 'v2'), 'src/log.ts': src('log', 'v1') } },
  { why: 'no-source-files', date: '2026-01-12T00:00:00Z', message: 'run the build on every pull request', files: { '.github/ci.yml': 'on: pull_request\n' } },
  { why: 'qualifies', date: '2026-01-13T00:00:00Z', message: 'add an exporter and call it from the http client', files: { 'src/export.ts': src('exporter', 'v1'), 'src/http.ts': src('request', 'v4') } },
  { why: 'qualifies', date: '2026-01-14T00:00:00Z', message: 'parse chunked bodies in the parser', files: { 'src/parser.ts': src('parseChunked', 'v5'), 'src/util.ts': src('util', 'v3') } },
];

export function makeMiningRepo() {
  return makeFixtureRepo(MINING_HISTORY.map(({ why: _why, ...commit }) => commit));
}
