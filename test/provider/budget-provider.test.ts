import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFixtureRepo, type Fixture } from '../helpers/fixture-repo.js';
import { ConfigSchema, type Config } from '../../src/config/schema.js';
import { allocateContext } from '../../src/allocate/allocate-context.js';
import { resolveRecordsDir } from '../../src/cache/cache-dir.js';
import { createTokenizer } from '../../src/tokenize/tokenizer.js';
import { UsageError } from '../../src/errors.js';
import type { BudgetPlan } from '../../src/stages.js';
import { createBudgetContextProvider } from '../../src/provider/budget-provider.js';
import type { ContextProvider } from '../../src/provider/ports.js';

/** The keys spec 004 telemetry reads, with their types. */
const REQUIRED_METADATA = {
  context_tokens_used: 'number',
  sections_trimmed: 'number',
  files_included: 'number',
  available_tokens: 'number',
  run_id: 'string',
  scoring_method: 'string',
  embedding_model: 'string',
} as const;

function serviceRepo(): Fixture {
  const body = (name: string, lines: number) =>
    Array.from({ length: lines }, (_, i) => `  // ${name} step ${i}: check the token and the retry count\n  total += ${i};`).join('\n');
  return makeFixtureRepo([
    {
      date: '2026-01-01T10:00:00Z',
      files: {
        'src/auth/token-manager.ts': `import { signJwt } from './jwt.js';\n\n/** Issues and refreshes access tokens. */\nexport function refreshToken(userId: string): string {\n  let total = 0;\n${body('refresh', 40)}\n  return signJwt(userId + total);\n}\n`,
        'src/auth/jwt.ts': `/** JWT signing. */\nexport function signJwt(payload: string): string {\n  let total = 0;\n${body('sign', 30)}\n  return payload + total;\n}\n`,
        'src/billing/invoice.ts': `/** Invoice totals. */\nexport function invoiceTotal(lines: number[]): number {\n  let total = 0;\n${body('invoice', 30)}\n  return total;\n}\n`,
        'docs/security.md': '# Security\n\nAccess tokens are JWTs refreshed by the token manager.\n',
      },
    },
  ]);
}

function keywordConfig(): Config {
  return ConfigSchema.parse({ relevance_scoring: { scoring_method: 'keyword' } });
}

describe('createBudgetContextProvider', () => {
  let repo: Fixture;
  beforeAll(() => {
    repo = serviceRepo();
  });
  afterAll(() => repo.cleanup());

  it('returns the rendered context with scalar metadata carrying every required key', async () => {
    const provider = createBudgetContextProvider({ root: repo.root, config: keywordConfig(), deps: { newRunId: () => 'run-1' } });
    const result = await provider.buildContext({ mode: 'task', task: 'refresh the access token in the token manager', maxTokens: 4000 });
    expect(result.mode).toBe('task');
    expect(result.context).toContain('src/auth/token-manager.ts');
    for (const [key, type] of Object.entries(REQUIRED_METADATA)) expect(typeof result.metadata[key], key).toBe(type);
    for (const value of Object.values(result.metadata)) expect(['string', 'number', 'boolean']).toContain(typeof value);
    expect(result.metadata).toMatchObject({ run_id: 'run-1', scoring_method: 'keyword', embedding_model: '', available_tokens: 4000, mode: 'task' });
    expect(result.metadata.files_included).toBeGreaterThan(0);
    const tokenizer = await createTokenizer('o200k');
    expect(result.metadata.context_tokens_used).toBe(tokenizer.count(result.context));
    expect(result.metadata.context_tokens_used).toBeLessThanOrEqual(result.metadata.available_tokens);
  });

  it('stays within a tight maxTokens and counts the files the overflow strategy degraded or dropped', async () => {
    const provider = createBudgetContextProvider({ root: repo.root, config: keywordConfig() });
    const result = await provider.buildContext({ mode: 'task', task: 'refresh the access token in the token manager and sign the jwt', maxTokens: 400 });
    expect(result.metadata.available_tokens).toBe(400);
    expect(result.metadata.context_tokens_used).toBeLessThanOrEqual(400);
    expect(result.metadata.sections_trimmed).toBeGreaterThan(0);
    expect(result.metadata.overflow_occurred).toBe(true);
  });

  it('writes no record unless asked, and exactly one with record: true', async () => {
    const records = resolveRecordsDir(repo.root);
    const quiet = createBudgetContextProvider({ root: repo.root, config: keywordConfig() });
    await quiet.buildContext({ mode: 'task', task: 'sign the jwt' });
    expect(existsSync(records)).toBe(false);

    const recording = createBudgetContextProvider({ root: repo.root, config: keywordConfig(), record: true, deps: { newRunId: () => 'run-recorded' } });
    const result = await recording.buildContext({ mode: 'review', task: 'sign the jwt' });
    const files = readdirSync(records);
    expect(files).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(records, files[0] ?? ''), 'utf8')).run_id).toBe(result.metadata.run_id);
  });

  it('applies the mode to the tier budgets the allocator receives', async () => {
    const plans = new Map<string, BudgetPlan>();
    const providerFor = (mode: string): ContextProvider =>
      createBudgetContextProvider({
        root: repo.root,
        config: keywordConfig(),
        deps: { allocate: (input, ctx) => (plans.set(mode, input.plan), allocateContext(input, ctx)) },
      });
    for (const mode of ['task', 'review', 'chat']) await providerFor(mode).buildContext({ mode, task: 'sign the jwt', maxTokens: 10_000 });
    expect(plans.get('task')?.tiers).toEqual({ primary: 5000, supporting: 3000, reference: 1500, history: 500 });
    expect(plans.get('review')?.tiers).toEqual({ primary: 3500, supporting: 4500, reference: 1500, history: 500 });
    expect(plans.get('chat')?.tiers.history).toBe(2500);
    for (const plan of plans.values()) expect(plan.available).toBe(10_000);
  });

  it.each([
    [{ mode: 'verifier', task: 'sign the jwt' }, /unknown context mode "verifier": use one of chat, review, task/],
    [{ mode: 'task', task: '   ' }, /task is empty/],
    [{ mode: 'task', task: 'sign', maxTokens: 0 }, /maxTokens must be a positive integer/],
    [{ mode: 'task', task: 'sign', maxTokens: 12.5 }, /maxTokens must be a positive integer/],
  ])('rejects %o with a UsageError', async (request, message) => {
    const provider = createBudgetContextProvider({ root: repo.root, config: keywordConfig() });
    const error = await provider.buildContext(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
  });
});
