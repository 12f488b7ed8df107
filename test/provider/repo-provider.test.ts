import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFixtureRepo, makeTempDir, type Fixture } from '../helpers/fixture-repo.js';
import { ConfigSchema, type Config } from '../../src/config/schema.js';
import { resolveBudgetLogPath, resolveRecordsDir } from '../../src/cache/cache-dir.js';
import { createTokenizer } from '../../src/tokenize/tokenizer.js';
import { logLine } from '../../src/record/write-record.js';
import { InputError, UsageError } from '../../src/errors.js';
import type { Embedder } from '../../src/types.js';
import type { EmbedderFactory } from '../../src/scoring/semantic-adapter.js';
import { memoiseEmbedders, openRepoProvider, type RepoProvider } from '../../src/provider/repo-provider.js';

function httpRepo(): Fixture {
  const body = (name: string, lines: number) =>
    Array.from({ length: lines }, (_, i) => `  // ${name} step ${i}: count the attempt and wait\n  total += ${i};`).join('\n');
  return makeFixtureRepo([
    {
      date: '2026-01-01T10:00:00Z',
      files: {
        'src/http/retry.ts': `/** Retries a request with exponential backoff. */\nexport function retryWithBackoff(attempts: number): number {\n  let total = 0;\n${body('retry', 30)}\n  return total * attempts;\n}\n`,
        'src/http/client.ts': `import { retryWithBackoff } from './retry.js';\n/** The http client. */\nexport const client = { get: () => retryWithBackoff(3) };\n`,
        'src/billing/invoice.ts': `/** Invoice totals. */\nexport function invoiceTotal(lines: number[]): number {\n  let total = 0;\n${body('invoice', 30)}\n  return total;\n}\n`,
        'README.md': '# svc\n\nAn http client with retries and a billing module.\n',
      },
    },
  ]);
}

function keywordConfig(): Config {
  return ConfigSchema.parse({ relevance_scoring: { scoring_method: 'keyword' } });
}

describe('openRepoProvider', () => {
  let repo: Fixture;
  let provider: RepoProvider;
  beforeAll(async () => {
    repo = httpRepo();
    provider = await openRepoProvider({ root: repo.root, config: keywordConfig() });
  });
  afterAll(async () => {
    await provider.close();
    repo.cleanup();
  });

  it('answers a task with the context, the files in it (tier, level, tokens), the run id and the record', async () => {
    const answer = await provider.query({ task: 'fix the retry backoff in the http client', maxTokens: 3000 });
    expect(answer.runId).toBe(answer.record.run_id);
    expect(answer.available).toBe(3000);
    expect(answer.record.available).toBe(3000);
    const o200k = await createTokenizer('o200k');
    expect(o200k.count(answer.context)).toBe(answer.tokens);
    expect(answer.tokens).toBeLessThanOrEqual(3000);
    expect(answer.files.map((f) => f.path)).toContain('src/http/retry.ts');
    // Each file is reported as the record's tier that holds it, with that entry's level and tokens.
    for (const f of answer.files) {
      const recorded = answer.record.allocation[f.tier].files.find((r) => r.path === f.path);
      expect(recorded, f.path).toBeDefined();
      expect(f).toEqual({ path: f.path, tier: f.tier, level: recorded?.level, tokens: recorded?.tokens, relevance: recorded?.relevance_score, truncated: recorded?.truncated === true });
    }
    const inRecord = (['primary', 'supporting', 'reference'] as const).reduce((n, t) => n + answer.record.allocation[t].files.length, 0);
    expect(answer.files).toHaveLength(inRecord);
    for (const f of answer.files) {
      expect(answer.context).toContain(f.path);
      expect(['primary', 'supporting', 'reference']).toContain(f.tier);
    }
    expect(answer.recordPath).toBeNull();
    expect(existsSync(resolveRecordsDir(repo.root))).toBe(false);
  });

  it('sees an edit made between two queries of the same provider', async () => {
    const task = 'add jitter to the retry backoff';
    const before = await provider.query({ task, maxTokens: 3000 });
    expect(before.files.map((f) => f.path)).not.toContain('src/http/jitter.ts');
    repo.write('src/http/jitter.ts', '/** Random jitter added to the retry backoff delay. */\nexport function jitter(delayMs: number): number {\n  return delayMs * Math.random();\n}\n');
    repo.write('src/http/retry.ts', '/** Retries with backoff; see jitter. UNIQUE_MARKER_AFTER_EDIT */\nexport function retryWithBackoff(): number {\n  return 1;\n}\n');
    const after = await provider.query({ task, maxTokens: 3000 });
    expect(after.files.map((f) => f.path)).toContain('src/http/jitter.ts');
    expect(after.context).toContain('UNIQUE_MARKER_AFTER_EDIT');
    expect(after.runId).not.toBe(before.runId);
  });

  it('applies per-query options over the base config for that call only', async () => {
    const markdown = await provider.query({ task: 'invoice totals', maxTokens: 1500, format: 'markdown', mode: 'review', overflow: 'truncate' });
    expect(markdown.mode).toBe('review');
    expect(markdown.context).not.toContain('<context');
    expect(markdown.available).toBe(1500);
    const plain = await provider.query({ task: 'invoice totals' });
    expect(plain.context).toContain('<context');
    expect(plain.available).toBe(provider.config.budget_config.total_budget.max_tokens - 8000 - 2000);
  });

  it('writes the record and the log line exactly as the CLI does when asked', async () => {
    const answer = await provider.query({ task: 'invoice totals', maxTokens: 2000, record: true });
    expect(answer.recordPath).not.toBeNull();
    expect(JSON.parse(readFileSync(answer.recordPath ?? '', 'utf8'))).toEqual(answer.record);
    const lines = readFileSync(resolveBudgetLogPath(repo.root), 'utf8').trim().split('\n');
    expect(JSON.parse(lines.at(-1) ?? '')).toEqual(logLine(answer.record));
    expect(readdirSync(resolveRecordsDir(repo.root))).toHaveLength(1);
  });

  it('runs concurrent queries one after the other, each complete', async () => {
    const answers = await Promise.all([
      provider.query({ task: 'retry backoff', maxTokens: 1000 }),
      provider.query({ task: 'invoice totals', maxTokens: 1000 }),
      provider.buildContext({ mode: 'task', task: 'http client', maxTokens: 1000 }),
    ]);
    expect(answers[0].files[0]?.path).toMatch(/^src\/http\//);
    expect(answers[1].files[0]?.path).toBe('src/billing/invoice.ts');
    expect(answers[2].metadata.context_tokens_used).toBeLessThanOrEqual(1000);
  });

  it.each([
    [{ task: '  ' }, UsageError, /task/],
    [{ task: 'retry', maxTokens: -5 }, UsageError, /maxTokens must be a positive integer/],
    [{ task: 'retry', mode: 'verifier' }, UsageError, /unknown context mode "verifier"/],
  ])('refuses %o with a one-line error and keeps serving', async (query, type, message) => {
    const error = await provider.query(query).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(type);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
    await expect(provider.query({ task: 'retry', maxTokens: 500 })).resolves.toMatchObject({ available: 500 });
  });
});

describe('openRepoProvider lifecycle', () => {
  it('fails at open for a missing root, and refuses queries once closed', async () => {
    const scratch = makeTempDir();
    try {
      await expect(openRepoProvider({ root: join(scratch.root, 'nope') })).rejects.toThrow(InputError);
      writeFileSync(join(scratch.root, 'file.txt'), 'x');
      await expect(openRepoProvider({ root: join(scratch.root, 'file.txt') })).rejects.toThrow(/not a directory/);
      const provider = await openRepoProvider({ root: scratch.root, config: keywordConfig() });
      await provider.close();
      await expect(provider.query({ task: 'anything' })).rejects.toThrow(/closed/);
    } finally {
      scratch.cleanup();
    }
  });

  it('loads the config once from the root when none is given', async () => {
    const repo = httpRepo();
    try {
      repo.write('.aiwg/rag/config.yaml', 'relevance_scoring:\n  scoring_method: keyword\ntokenizer: cl100k\n');
      const provider = await openRepoProvider({ root: repo.root });
      expect(provider.config.relevance_scoring.scoring_method).toBe('keyword');
      const answer = await provider.query({ task: 'retry backoff', maxTokens: 800 });
      expect(answer.record.tokenizer).toBe('cl100k');
      expect(await provider.tokenizer()).toBe(await provider.tokenizer('cl100k'));
      await provider.close();
    } finally {
      repo.cleanup();
    }
  });
});

describe('memoiseEmbedders', () => {
  const embedder: Embedder = { id: 'test/fixed@1', dimensions: 2, embed: async (texts) => texts.map(() => new Float32Array([1, 0])) };
  const options = { root: '/r', cacheDir: '/r/.aiwg', reporter: { info() {}, warn() {}, debug() {}, progress() {} } };

  it('builds one embedder per embedding config and asks again after a null', async () => {
    const calls: string[] = [];
    let answer: Embedder | null = null;
    const factory: EmbedderFactory = async (config) => (calls.push(config.relevance_scoring.embedding.model), answer);
    const memo = memoiseEmbedders(factory);
    const a = ConfigSchema.parse({});
    const b = ConfigSchema.parse({ relevance_scoring: { embedding: { model: 'other/model' } } });
    expect(await memo(a, options)).toBeNull();
    answer = embedder;
    expect(await memo(a, options)).toBe(embedder);
    expect(await memo(a, options)).toBe(embedder);
    expect(await memo(b, options)).toBe(embedder);
    expect(calls).toEqual([a.relevance_scoring.embedding.model, a.relevance_scoring.embedding.model, 'other/model']);
  });
});
