import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.js';
import { UsageError } from '../../src/errors.js';
import { createContextProvider, type ContextProviderConfig } from '../../src/provider/factory.js';

describe('createContextProvider', () => {
  it('builds the memory adapter from config', async () => {
    const provider = createContextProvider({ adapter: 'memory', sections: [{ name: 'goal', content: 'ship' }] });
    const result = await provider.buildContext({ mode: 'task', task: 'ship' });
    expect(result.context).toBe('## goal\n\nship');
    expect(result.metadata.scoring_method).toBe('none');
  });

  it('builds the budget adapter without running anything until called', async () => {
    const provider = createContextProvider({ adapter: 'budget', root: '/nonexistent-root', config: defaultConfig() });
    expect(typeof provider.buildContext).toBe('function');
    await expect(provider.buildContext({ mode: 'nope', task: 'x' })).rejects.toThrow('unknown context mode "nope"');
  });

  it('names the known adapters when given an unknown one', () => {
    // A JavaScript caller or a config file can name any adapter; the type forbids it, hence the cast.
    const config = { adapter: 'neural_field' } as unknown as ContextProviderConfig;
    expect(() => createContextProvider(config)).toThrow(UsageError);
    expect(() => createContextProvider(config)).toThrow('unknown context adapter "neural_field": use one of budget, memory');
  });
});
