import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createTokenizer } from '../../src/tokenize/tokenizer.js';
import { UsageError } from '../../src/errors.js';
import { createInMemoryContextProvider } from '../../src/provider/memory-provider.js';

const REQUIRED_KEYS = ['context_tokens_used', 'sections_trimmed', 'files_included', 'available_tokens', 'run_id', 'scoring_method', 'embedding_model'];

const sections = [
  { name: 'identity', content: 'You are the release coordinator.' },
  { name: 'skills', content: 'deploy '.repeat(400) },
  { name: 'task', content: 'Ship version 2.1 after the tests pass.' },
];

describe('createInMemoryContextProvider', () => {
  it('keeps every section that still fits, in order, and skips the one that does not', async () => {
    const provider = createInMemoryContextProvider({ sections });
    const result = await provider.buildContext({ mode: 'task', task: 'ship it', maxTokens: 60 });
    expect(result.context).toBe('## identity\n\nYou are the release coordinator.\n\n## task\n\nShip version 2.1 after the tests pass.');
    expect(result.metadata).toMatchObject({ files_included: 2, sections_trimmed: 1, available_tokens: 60, run_id: 'memory-1', embedding_model: '' });
    expect(result.metadata.context_tokens_used).toBe((await createTokenizer('o200k')).count(result.context));
    expect(result.metadata.context_tokens_used).toBeLessThanOrEqual(60);
  });

  it('reports the same required metadata keys as the budget adapter, scalars only', async () => {
    const result = await createInMemoryContextProvider({ sections }).buildContext({ mode: 'chat', task: 'ship it' });
    for (const key of REQUIRED_KEYS) expect(result.metadata).toHaveProperty(key);
    for (const value of Object.values(result.metadata)) expect(['string', 'number', 'boolean']).toContain(typeof value);
    expect(result.mode).toBe('chat');
    expect(result.metadata).toMatchObject({ files_included: 3, sections_trimmed: 0, available_tokens: 8000 });
  });

  it('adds the history as a last section and numbers runs per provider', async () => {
    const provider = createInMemoryContextProvider({ sections: sections.slice(0, 1) });
    const first = await provider.buildContext({ mode: 'task', task: 'ship it', history: [{ role: 'user', content: 'is CI green?' }, { role: 'assistant', content: 'yes' }] });
    expect(first.context.endsWith('## history\n\nuser: is CI green?\nassistant: yes')).toBe(true);
    expect(first.metadata.files_included).toBe(2);
    const second = await provider.buildContext({ mode: 'task', task: 'ship it' });
    expect(second.metadata.run_id).toBe('memory-2');
    const other = await createInMemoryContextProvider({ sections }).buildContext({ mode: 'task', task: 'ship it' });
    expect(other.metadata.run_id).toBe('memory-1');
  });

  it('never exceeds maxTokens and accounts for every section (property)', async () => {
    const section = fc.record({ name: fc.string({ minLength: 1, maxLength: 12 }), content: fc.string({ maxLength: 200 }) });
    await fc.assert(
      fc.asyncProperty(fc.array(section, { maxLength: 8 }), fc.integer({ min: 1, max: 150 }), async (given, maxTokens) => {
        const provider = createInMemoryContextProvider({ sections: given, tokenizer: 'chars4' });
        const { context, metadata } = await provider.buildContext({ mode: 'task', task: 't', maxTokens });
        expect(metadata.context_tokens_used).toBe(Math.ceil(context.length / 4));
        expect(metadata.context_tokens_used).toBeLessThanOrEqual(maxTokens);
        expect(metadata.files_included + metadata.sections_trimmed).toBe(given.length);
      }),
    );
  });

  it.each([
    [{ mode: 'router', task: 'x' }, 'unknown context mode "router": use one of chat, review, task'],
    [{ mode: 'task', task: '' }, 'task is empty'],
    [{ mode: 'task', task: 'x', maxTokens: -1 }, 'maxTokens must be a positive integer'],
  ])('rejects %o', async (request, message) => {
    const error = await createInMemoryContextProvider({ sections }).buildContext(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain(message);
  });
});
