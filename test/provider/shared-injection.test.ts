import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFixtureRepo, type Fixture } from '../helpers/fixture-repo.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { UsageError } from '../../src/errors.js';
import { createTokenizer } from '../../src/tokenize/tokenizer.js';
import { createBudgetContextProvider } from '../../src/provider/budget-provider.js';
import { createInMemorySharedContext } from '../../src/provider/shared-context.js';
import { createInMemoryContextProvider } from '../../src/provider/memory-provider.js';

/** The budget provider places a mission's shared entries in the context, within the budget. */

let repo: Fixture;

beforeAll(() => {
  const body = Array.from({ length: 60 }, (_, i) => `  // refresh step ${i}: check the token and the retry count\n  total += ${i};`).join('\n');
  repo = makeFixtureRepo([
    {
      date: '2026-01-01T10:00:00Z',
      files: {
        'src/auth/token-manager.ts': `/** Refreshes access tokens. */\nexport function refreshToken(id: string): string {\n  let total = 0;\n${body}\n  return id + total;\n}\n`,
        'docs/security.md': '# Security\n\nAccess tokens are refreshed by the token manager.\n',
      },
    },
  ]);
});

afterAll(() => repo.cleanup());

const config = ConfigSchema.parse({ relevance_scoring: { scoring_method: 'keyword' } });

describe('shared context in the built context', () => {
  it('puts the relevant entries first, the agent scope only for that agent, and says what went in', async () => {
    const shared = createInMemorySharedContext();
    await shared.createContext('m1');
    await shared.inject('m1', { key: 'note/billing', content: 'invoices are out of scope for this mission' });
    await shared.inject('m1', { key: 'finding/refresh', content: 'refreshToken retries without backoff when the token expired' });
    await shared.inject('m1', { key: 'draft', content: 'alice plans to add exponential backoff', agent: 'alice' });
    const provider = createBudgetContextProvider({ root: repo.root, config, shared });
    const tk = await createTokenizer('o200k');

    const { context, metadata } = await provider.buildContext({ mode: 'task', task: 'fix the token refresh retry', maxTokens: 3000, mission: 'm1', agent: 'alice' });
    const block = context.slice(0, context.indexOf('</shared-context>'));
    expect(block.split('\n').slice(1, -1)).toEqual([
      '[finding/refresh #2] refreshToken retries without backoff when the token expired',
      '[draft (agent alice) #3] alice plans to add exponential backoff',
      '[note/billing #1] invoices are out of scope for this mission',
    ]);
    expect(context.startsWith('<shared-context mission="m1" agent="alice">\n')).toBe(true);
    expect(context).toContain('src/auth/token-manager.ts');
    expect(metadata).toMatchObject({ shared_entries_included: 3, shared_entries_truncated: 0, shared_entries_trimmed: 0, available_tokens: 3000 });
    expect(metadata.context_tokens_used).toBe(tk.count(context));
    expect(metadata.context_tokens_used).toBeLessThanOrEqual(3000);
    expect(metadata.shared_tokens).toBe(tk.count(`${block}</shared-context>`));

    const bob = await provider.buildContext({ mode: 'task', task: 'fix the token refresh retry', maxTokens: 3000, mission: 'm1', agent: 'bob' });
    expect(bob.context).not.toContain('alice plans');
    expect(bob.metadata.shared_entries_included).toBe(2);
  });

  it('keeps the whole within maxTokens: entries past their share are cut or trimmed and counted', async () => {
    const shared = createInMemorySharedContext();
    await shared.createContext('big');
    const long = Array.from({ length: 80 }, (_, i) => `The token refresh path was traced through step ${i} of the retry loop.`).join(' ');
    await shared.inject('big', { key: 'trace-a', content: long });
    await shared.inject('big', { key: 'trace-b', content: long });
    await shared.inject('big', { key: 'trace-c', content: long });
    const provider = createBudgetContextProvider({ root: repo.root, config, shared, sharedShare: 0.25 });
    const { context, metadata } = await provider.buildContext({ mode: 'task', task: 'token refresh retry', maxTokens: 2000, mission: 'big' });
    const tk = await createTokenizer('o200k');
    expect(tk.count(context)).toBeLessThanOrEqual(2000);
    expect(metadata.shared_tokens).toBeLessThanOrEqual(500);
    expect(metadata.shared_entries_truncated).toBe(1);
    expect(Number(metadata.shared_entries_included) + Number(metadata.shared_entries_trimmed)).toBe(3);
    expect(context).toMatch(/\.\.\.\n<\/shared-context>/);
  });

  it('refuses a mission when the provider has no shared context, and an unknown mission', async () => {
    const provider = createBudgetContextProvider({ root: repo.root, config });
    await expect(provider.buildContext({ mode: 'task', task: 'fix it', mission: 'm1' })).rejects.toBeInstanceOf(UsageError);
    const withShared = createBudgetContextProvider({ root: repo.root, config, shared: createInMemorySharedContext() });
    await expect(withShared.buildContext({ mode: 'task', task: 'fix it', mission: 'nope' })).rejects.toThrow('shared context "nope" does not exist');
  });

  it('the in-memory fake injects a mission exactly as the budget adapter does, within the same budget', async () => {
    const shared = createInMemorySharedContext();
    await shared.createContext('m2');
    await shared.inject('m2', { key: 'finding/refresh', content: 'refreshToken retries without backoff when the token expired' });
    await shared.inject('m2', { key: 'draft', content: 'alice plans to add exponential backoff', agent: 'alice' });
    await shared.inject('m2', { key: 'note', content: 'a long note about invoices '.repeat(40) });
    const request = { mode: 'task', task: 'fix the token refresh retry', maxTokens: 1000, mission: 'm2', agent: 'alice' } as const;
    const real = await createBudgetContextProvider({ root: repo.root, config, shared }).buildContext(request);
    const sections = [{ name: 'task', content: 'Fix the refresh. '.repeat(200) }, { name: 'notes', content: 'short' }];
    const fake = await createInMemoryContextProvider({ sections, shared }).buildContext(request);
    const blockOf = (context: string) => context.slice(0, context.indexOf('</shared-context>') + '</shared-context>'.length);
    expect(blockOf(fake.context)).toBe(blockOf(real.context));
    expect(blockOf(fake.context)).toContain('[finding/refresh #1]');
    // The long note is cut to the share, the draft left out: the same trade-off in both.
    expect(fake.metadata).toMatchObject({ shared_entries_included: 2, shared_entries_truncated: 1, shared_entries_trimmed: 1 });
    for (const key of ['shared_entries_included', 'shared_entries_truncated', 'shared_entries_trimmed', 'shared_tokens', 'available_tokens']) {
      expect(fake.metadata[key]).toBe(real.metadata[key]);
    }
    const tk = await createTokenizer('o200k');
    expect(fake.metadata.context_tokens_used).toBe(tk.count(fake.context));
    expect(fake.metadata.context_tokens_used).toBeLessThanOrEqual(1000);
    // The sections get what the entries leave: the long one no longer fits, the short one does.
    expect(fake.context.endsWith('## notes\n\nshort')).toBe(true);
    expect(fake.metadata).toMatchObject({ files_included: 1, sections_trimmed: 1 });
  });

  it('the in-memory fake refuses a mission without a shared context, like the budget adapter', async () => {
    const fake = createInMemoryContextProvider({ sections: [{ name: 'a', content: 'b' }] });
    await expect(fake.buildContext({ mode: 'task', task: 'fix it', mission: 'm1' })).rejects.toBeInstanceOf(UsageError);
    const plain = await fake.buildContext({ mode: 'task', task: 'fix it' });
    expect(plain.metadata).not.toHaveProperty('shared_tokens');
  });
});
